import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, gunzipCapped, isGzip } from './compression.js';

describe('gzip on the OpenRTB wire', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1.0, GZIP;q=0.5', true],
    ['x-gzip', true],
    ['*', true],
    ['gzip;q=0', false],
    ['*, gzip;q=0', false],
    ['gzip;q=0.000', false],
    ['deflate, br', false],
    ['identity', false],
    ['', false],
  ])('Accept-Encoding %j accepts gzip: %s', (header, yes) => expect(acceptsGzip(header)).toBe(yes));

  it('reads Content-Encoding gzip and its alias only', () => {
    expect([isGzip('gzip'), isGzip(' GZIP '), isGzip('x-gzip'), isGzip('deflate'), isGzip(undefined)]).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('inflates up to the limit, and tells a bomb from a body that is not gzip', async () => {
    expect((await gunzipCapped(gzipSync('{"a":1}'), 100)).toString()).toBe('{"a":1}');
    expect(await gunzipCapped(gzipSync(' '.repeat(101)), 100)).toBe('too_large');
    expect(await gunzipCapped(Buffer.from('{"a":1}'), 100)).toBe('corrupt');
  });
});
