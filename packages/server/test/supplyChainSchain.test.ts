import { type BidRequest, type SupplyChainNode } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import {
  inboundSupplyChain,
  parseSupplyChain,
  serializeSupplyChain,
  outboundSupplyChain,
} from '../src/edge/ortb/supplyChain.js';

/** source.schain against openrtb/supplychainobject.md, its string form for tag requests included. */
describe('schain string form', () => {
  it("URL-encodes a bang in a value, as the spec's example does (a bare one would split the node)", () => {
    const chain = {
      ver: '1.0',
      complete: 1 as const,
      nodes: [
        {
          asi: 'exchange1.com',
          sid: '1234!abcd',
          hp: 1 as const,
          rid: 'bid-request-1',
          name: 'publisher, Inc.',
          domain: 'publisher.com',
        },
      ],
    };
    const text = serializeSupplyChain(chain);
    expect(text).toBe('1.0,1!exchange1.com,1234%21abcd,1,bid-request-1,publisher%2C%20Inc.,publisher.com');
    expect(parseSupplyChain(text)).toEqual(chain);
  });
});

describe('the chain of an inbound OpenRTB request', () => {
  const nodes = [{ asi: 'directseller.com', sid: '00001', hp: 1, rid: 'BidRequest1' }];
  it('reads BidRequest.ext.schain, where OpenRTB 2.4 and before carry it', () => {
    const req = {
      id: 'BidRequest1',
      imp: [],
      ext: { schain: { ver: '1.0', complete: 1, nodes } },
    } as unknown as BidRequest;
    expect(inboundSupplyChain(req)).toEqual({ ver: '1.0', complete: 1, nodes });
  });
});

describe('the schain string of a VAST demand tag', () => {
  const ours: SupplyChainNode = { asi: 'ads.example.com', sid: 'pub!1', hp: 1 };
  const tagSupplyChain = (received: { ortb?: BidRequest; schain: string }, node: SupplyChainNode) =>
    serializeSupplyChain(outboundSupplyChain(received, node));
  it('appends our node to the string the player sent', () => {
    expect(tagSupplyChain({ schain: '1.0,1!exchange1.com,1234,1,,,' }, ours)).toBe(
      '1.0,1!exchange1.com,1234,1,,,!ads.example.com,pub%211,1,,,',
    );
  });
  it("serializes an OpenRTB request's chain with our node last", () => {
    const ortb = {
      id: 'r',
      imp: [],
      source: { schain: { ver: '1.0', complete: 0, nodes: [{ asi: 'x.com', sid: 'a', hp: 1 }] } },
    } as unknown as BidRequest;
    expect(tagSupplyChain({ ortb, schain: '' }, ours)).toBe('1.0,0!x.com,a,1,,,!ads.example.com,pub%211,1,,,');
  });
  it('starts a chain of our node: complete without a received one, incomplete when it cannot be read', () => {
    expect(tagSupplyChain({ schain: '' }, ours)).toBe('1.0,1!ads.example.com,pub%211,1,,,');
    expect(tagSupplyChain({ schain: 'nonsense' }, ours)).toBe('1.0,0!ads.example.com,pub%211,1,,,');
  });
});
