import { compileFloorRules, FloorRules, type FloorRulesInput } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { buildRequestContext } from '../request/context.js';
import { contextOfBidRequest } from '../request/openrtbContext.js';
import { type SnapChannel } from '../snapshot/types.js';
import { withFloorInForce } from './floorInForce.js';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36';
const EIGHT_PM_UTC = Date.UTC(2026, 10, 28, 20, 15);

const channel = (rules: FloorRulesInput | null, floorCpm = 250_000): SnapChannel => ({
  id: 1,
  uid: 'ch',
  tenantId: 1,
  subpublisherId: 0,
  name: 'Channel',
  serving: true,
  integration: 'VAST',
  environment: 'web',
  format: 'display',
  vastVersion: '4.2',
  floorCpm,
  ...(rules ? { floorRules: { rules: compileFloorRules(FloorRules.parse(rules)), source: 'channel' as const } } : {}),
  payout: { type: 'revshare', percent: 70 },
  demandMode: 'auction',
  auctionPrice: 'first',
  timeoutMs: 1000,
  targeting: null,
  demand: [],
  idleTags: [],
});

const tagCall = (query: Record<string, string>, now = EIGHT_PM_UTC) =>
  buildRequestContext({ ip: '8.8.8.8', ua: CHROME, ...query }, { remoteAddress: '127.0.0.1', userAgent: CHROME }, now);

describe('the floor in force of a request', () => {
  it("reads the request's facts: banner for a display channel, the size, the app bundle, the hour in UTC", () => {
    const c = channel({
      schema: { fields: ['mediaType', 'size', 'bundle', 'hourOfDay'] },
      values: { 'banner|300x250|com.example.app|20': 4, 'banner|300x250|*|20': 3, 'banner|*|*|*': 1 },
    });
    const inApp = withFloorInForce(c, tagCall({ w: '300', h: '250', app_bundle: 'com.example.app' }));
    expect(inApp.floorCpm).toBe(4_000_000);
    expect(inApp.floorInForce).toEqual({
      source: 'channel',
      rule: 'banner|300x250|com.example.app|20',
      floorCpm: 4_000_000,
    });
    expect(withFloorInForce(c, tagCall({ w: '300', h: '250' })).floorInForce?.rule).toBe('banner|300x250|*|20');
    // no size stated: only `*` matches the size
    expect(withFloorInForce(c, tagCall({})).floorInForce?.rule).toBe('banner|*|*|*');
    expect(withFloorInForce(c, tagCall({ w: '300', h: '250' }, EIGHT_PM_UTC + 3_600_000)).floorInForce?.rule).toBe(
      'banner|*|*|*',
    );
  });

  it("an OpenRTB impression's first deal is its deal", () => {
    const c = channel({ schema: { fields: ['deal'] }, values: { 'deal-7': 6, '*': 2 } });
    const imp = { id: '1', banner: { w: 300, h: 250 }, pmp: { deals: [{ id: 'DEAL-7' }, { id: 'other' }] } };
    const ctx = contextOfBidRequest(
      { id: 'r', imp: [imp] },
      imp,
      { remoteAddress: '8.8.8.8', userAgent: CHROME },
      EIGHT_PM_UTC,
    );
    expect(withFloorInForce(c, ctx).floorInForce).toEqual({ source: 'channel', rule: 'deal-7', floorCpm: 6_000_000 });
    const open = { id: '1', banner: { w: 300, h: 250 } };
    const openCtx = contextOfBidRequest(
      { id: 'r', imp: [open] },
      open,
      { remoteAddress: '8.8.8.8', userAgent: CHROME },
      0,
    );
    expect(withFloorInForce(c, openCtx).floorCpm).toBe(2_000_000);
  });

  it('no rule nor default: the static floor; no rules: the channel as it is; resolved once', () => {
    const c = channel({ schema: { fields: ['country'] }, values: { DE: 9 } });
    const us = withFloorInForce(c, tagCall({}));
    expect(us.floorInForce).toEqual({ source: 'static', rule: null, floorCpm: 250_000 });
    expect(us.floorCpm).toBe(250_000);
    const plain = channel(null);
    expect(withFloorInForce(plain, tagCall({}))).toBe(plain);
    expect(withFloorInForce(us, tagCall({}))).toBe(us);
  });

  it('requests that match the same rule share one copy of the channel; a refreshed dynamic basis makes a new one', () => {
    const c = channel({ schema: { fields: ['size'] }, values: { '300x250': 3, '*': 1 } });
    const first = withFloorInForce(c, tagCall({ w: '300', h: '250' }));
    expect(withFloorInForce(c, tagCall({ w: '300', h: '250', ip: '1.1.1.1' }))).toBe(first);
    const other = withFloorInForce(c, tagCall({ w: '640', h: '360' }));
    expect(other).not.toBe(first);
    expect(other.floorCpm).toBe(1_000_000);
    expect(withFloorInForce(c, tagCall({ w: '728', h: '90' }))).toBe(other);
    // a dynamic channel whose table was computed again: the copy carries the new basis
    const basis = (measuredCpm: number) => ({
      percentile: 50,
      windowHours: 24,
      minImpressions: 10,
      impressions: 40,
      measuredCpm,
      clamped: null,
      computedAt: '2026-11-28T20:00:00.000Z',
    });
    const table = new Map([['*', basis(1_000_000)]]);
    const dynamic: SnapChannel = { ...c, floorRules: { ...c.floorRules!, source: 'dynamic', dynamic: table } };
    const before = withFloorInForce(dynamic, tagCall({}));
    expect(before.floorInForce?.dynamic?.measuredCpm).toBe(1_000_000);
    expect(withFloorInForce(dynamic, tagCall({}))).toBe(before);
    table.set('*', basis(1_200_000));
    const after = withFloorInForce(dynamic, tagCall({}));
    expect(after).not.toBe(before);
    expect(after.floorInForce?.dynamic?.measuredCpm).toBe(1_200_000);
  });
});
