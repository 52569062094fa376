import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, localServer } from '../../test/localServer.js';
import {
  guardedConnector,
  isAddressRefused,
  isCallableAddress,
  isPublicAddress,
  originKey,
  outboundPolicy,
} from './outboundAddress.js';

describe('which addresses the server calls', () => {
  it('calls public addresses always, private ones only when allowed, link-local and the like never', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '[2606:4700:4700::1111]']) {
      expect(isPublicAddress(a), a).toBe(true);
      expect(isCallableAddress(a, false), a).toBe(true);
      expect(isCallableAddress(a, true), a).toBe(true);
    }
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '::1',
      '[::1]',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ]) {
      expect(isCallableAddress(a, false), a).toBe(false);
      expect(isCallableAddress(a, true), a).toBe(true);
    }
    // the cloud metadata service and its kin: never, whatever the switch
    for (const a of [
      '169.254.169.254',
      '169.254.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      'fe80::1',
      'ff02::1',
      '::ffff:169.254.169.254',
    ]) {
      expect(isCallableAddress(a, false), a).toBe(false);
      expect(isCallableAddress(a, true), a).toBe(false);
    }
    for (const a of ['', 'localhost', 'example.com', '1.2.3']) expect(isCallableAddress(a, true), a).toBe(false);
    // the metadata address carried in IPv6 (compatible, translated, NAT64), and two clouds' private-range metadata: never
    for (const a of [
      '::a9fe:a9fe',
      '::169.254.169.254',
      '::ffff:0:a9fe:a9fe',
      '64:ff9b::169.254.169.254',
      '64:ff9b:1::a9fe:a9fe',
      'fd00:ec2::254',
      '100.100.100.200',
    ]) {
      expect(isCallableAddress(a, false), a).toBe(false);
      expect(isCallableAddress(a, true), a).toBe(false);
    }
    // a private address carried the same way: only when private ones are allowed; a public one: always
    expect(isCallableAddress('::ffff:0:a00:1', false)).toBe(false);
    expect(isCallableAddress('::ffff:0:a00:1', true)).toBe(true);
    expect(isCallableAddress('::ffff:0:808:808', false)).toBe(true);
  });

  it('judges 6to4 and Teredo addresses by the IPv4 addresses they carry', () => {
    // 6to4 (2002::/16): the IPv4 address after the prefix
    expect(isCallableAddress('2002:a9fe:a9fe::1', true)).toBe(false);
    expect(isCallableAddress('2002:7f00:1::1', false)).toBe(false);
    expect(isCallableAddress('2002:7f00:1::1', true)).toBe(true);
    expect(isCallableAddress('2002:808:808::1', false)).toBe(true);
    // Teredo (2001::/32): the server's address after the prefix, the client's inverted at the end
    // (RFC 4380's example: server 65.54.227.120, client 192.0.2.45, a documentation address)
    expect(isCallableAddress('2001:0:4136:e378:8000:63bf:3fff:fdd2', false)).toBe(false);
    expect(isCallableAddress('2001:0:4136:e378:8000:63bf:3fff:fdd2', true)).toBe(true);
    expect(isCallableAddress('2001:0:4136:e378:8000:63bf:5601:5601', true)).toBe(false); // client 169.254.169.254
    expect(isCallableAddress('2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7', true)).toBe(false); // server 169.254.169.254
    expect(isCallableAddress('2001:0:4136:e378:8000:63bf:f7f7:f7f7', false)).toBe(true); // client 8.8.8.8
  });

  it('refuses IPv4 in the spellings readers disagree on, whatever their value', () => {
    for (const a of [
      '0x7f.1',
      '2130706433',
      '0177.0.0.1',
      '127.1',
      '0x08.8.8.8',
      '010.0.0.1',
      '8.8.8.08',
      '::ffff:0177.0.0.1',
      '::ffff:0x7f.0.0.1',
      '64:ff9b::0x7f.0.0.1',
    ]) {
      expect(isCallableAddress(a, true), a).toBe(false);
    }
  });

  it("keys origins with their port, and trusts the operator's own", () => {
    expect(originKey('https://Ads.Example.com/x?y')).toBe('https://ads.example.com:443');
    expect(originKey('http://127.0.0.1:8080/demo')).toBe('http://127.0.0.1:8080');
    expect(originKey('ftp://x')).toBeNull();
    expect(originKey('not a url')).toBeNull();
    const p = outboundPolicy(false, [
      'http://127.0.0.1:8080',
      null,
      undefined,
      'https://pbs.example.com/openrtb2/auction',
    ]);
    expect([...p.trustedOrigins]).toEqual(['http://127.0.0.1:8080', 'https://pbs.example.com:443']);
    expect(p.allowPrivate).toBe(false);
  });
});

describe('the demand connector (a real undici Agent and a local server)', () => {
  let origin: LocalServer;
  let port = 0;
  beforeAll(async () => {
    origin = await localServer((_req, res) => res.end('ok'));
    port = origin.port;
  });
  afterAll(() => origin.close());

  const get = async (agent: Agent, url: string): Promise<string> => {
    try {
      const res = await request(url, { dispatcher: agent, headersTimeout: 2000, bodyTimeout: 2000 });
      return `${res.statusCode} ${await res.body.text()}`;
    } catch (error) {
      return isAddressRefused(error) ? 'refused' : `failed: ${(error as Error).message}`;
    } finally {
      await agent.close();
    }
  };
  const agentOf = (allowPrivate: boolean, trusted: string[] = []) =>
    new Agent({ connect: guardedConnector(outboundPolicy(allowPrivate, trusted)) });

  it('refuses loopback, by address and by name, unless private addresses are allowed', async () => {
    expect(await get(agentOf(false), `http://127.0.0.1:${port}/`)).toBe('refused');
    expect(await get(agentOf(false), `http://localhost:${port}/`)).toBe('refused');
    expect(await get(agentOf(false), `http://[::ffff:7f00:1]:${port}/`)).toBe('refused');
    expect(await get(agentOf(true), `http://127.0.0.1:${port}/`)).toBe('200 ok');
    expect(await get(agentOf(true), `http://localhost:${port}/`)).toBe('200 ok');
  });

  it("calls the operator's own origin (its host, its Prebid Server) with private addresses refused", async () => {
    expect(await get(agentOf(false, [`http://127.0.0.1:${port}`]), `http://127.0.0.1:${port}/`)).toBe('200 ok');
    // an IPv6 origin as a URL writes it, in brackets (the server listens on IPv4 here: refused, or trusted and not answering)
    expect(await get(agentOf(false, []), `http://[::1]:${port}/`)).toBe('refused');
    expect(await get(agentOf(false, [`http://[::1]:${port}`]), `http://[::1]:${port}/`)).not.toBe('refused');
    // the same host on another port is not that origin
    expect(await get(agentOf(false, [`http://127.0.0.1:${port + 1}`]), `http://127.0.0.1:${port}/`)).toBe('refused');
  });

  it('refuses a host that is an IP literal in an odd spelling before any lookup (undici hands over the host as given)', async () => {
    const connect = guardedConnector(outboundPolicy(true, []));
    for (const hostname of ['0x7f.1', '2130706433', '0177.0.0.1']) {
      const error = await new Promise<Error | null>((resolve) => {
        connect({ hostname, protocol: 'http:', port: String(port) }, (e, socket) => {
          socket?.destroy();
          resolve(e);
        });
      });
      expect(isAddressRefused(error), hostname).toBe(true);
    }
  });

  it('never calls the metadata address, even with private addresses allowed', async () => {
    expect(await get(agentOf(true), 'http://169.254.169.254/latest/meta-data/')).toBe('refused');
    expect(await get(agentOf(true), 'http://[fe80::1]/')).toBe('refused');
    expect(await get(agentOf(true), 'http://0.0.0.0/')).toBe('refused');
  });
});
