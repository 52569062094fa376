import { describe, expect, it } from 'vitest';
import { type EdgeRequest } from '../../../http/edgeHttp.js';
import { proxyTrust } from '../../../http/clientAddress.js';
import { writerKey } from './prebidEntries.js';

/** Who a POST /cache is counted against (the per-address write limit). */
const request = (remoteAddress: string, headers: Record<string, string> = {}): EdgeRequest =>
  ({
    headers,
    socket: { remoteAddress, destroyed: false },
    on: () => undefined,
    resume: () => undefined,
  }) as unknown as EdgeRequest;

describe('cache writers', () => {
  it('counts the connection, never the headers a caller writes, without trusted proxies', () => {
    const none = proxyTrust(false);
    expect(
      writerKey(request('203.0.113.9', { 'x-forwarded-for': '198.51.100.1', 'x-device-ip': '198.51.100.2' }), none),
    ).toBe('203.0.113.9');
  });

  it('behind named proxies, counts the first address from the right that is not one of them (a client cannot rotate it)', () => {
    const lb = proxyTrust('10.0.0.0/8');
    expect(writerKey(request('10.0.0.5', { 'x-forwarded-for': 'spoofed-1, 198.51.100.7' }), lb)).toBe('198.51.100.7');
    expect(writerKey(request('10.0.0.5', { 'x-forwarded-for': '192.0.2.1, 198.51.100.7, 10.0.0.9' }), lb)).toBe(
      '198.51.100.7',
    );
    // a connection that is not a trusted proxy: its own address, whatever it forwards
    expect(writerKey(request('198.51.100.8', { 'x-forwarded-for': '192.0.2.1' }), lb)).toBe('198.51.100.8');
  });

  it('counts an IPv6 client by its /64', () => {
    const none = proxyTrust(false);
    expect(writerKey(request('2001:db8:1:2:aaaa::1'), none)).toBe('2001:db8:1:2::/64');
    expect(writerKey(request('2001:db8:1:2:bbbb:cccc:dddd:eeee'), none)).toBe('2001:db8:1:2::/64');
    expect(writerKey(request('::ffff:192.0.2.4'), none)).toBe('::ffff:192.0.2.4');
  });
});
