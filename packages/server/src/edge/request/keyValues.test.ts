import { describe, expect, it } from 'vitest';
import { keyValuesOfBidRequest, keyValuesOfQuery } from './keyValues.js';

describe('key-values of a request', () => {
  it("reads kv and cust_params pairs and the tag's own parameters, not its macros", () => {
    expect(keyValuesOfQuery({ kv: 'genre=Sports&tier=gold;rating=pg', w: '640', ip: '1.2.3.4', cb: '9' })).toEqual([
      'genre=sports',
      'tier=gold',
      'rating=pg',
    ]);
    expect(keyValuesOfQuery({ cust_params: 'genre=news,sports', debug: '1', vast_version: '3.0' })).toEqual([
      'genre=news',
      'genre=sports',
    ]);
    expect(keyValuesOfQuery({ genre: 'sports', Section: 'Home', app_bundle: 'com.example.tv' })).toEqual([
      'genre=sports',
      'section=home',
    ]);
  });

  it('leaves out unfilled macros, empty values, bad keys and repeats, and stops at 32 pairs', () => {
    expect(
      keyValuesOfQuery({
        genre: '{{genre}}',
        tier: '[TIER]',
        rating: '',
        'bad key': 'x',
        kv: 'genre=sports&genre=sports&=x',
      }),
    ).toEqual(['genre=sports']);
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 'v']));
    expect(keyValuesOfQuery(many)).toHaveLength(32);
    expect(keyValuesOfQuery({ w: '640' })).toEqual([]);
  });

  it("reads a bid request's first-party data: the impression's, then the site's or app's", () => {
    expect(
      keyValuesOfBidRequest(
        { site: { ext: { data: { section: 'home', ids: [1, 2], nested: { a: 'b' } } } } },
        { ext: { data: { genre: ['sports', 'news'], live: true, pbadslot: '/123/home' } } },
      ),
    ).toEqual(['genre=sports', 'genre=news', 'live=true', 'pbadslot=/123/home', 'section=home', 'ids=1', 'ids=2']);
    expect(keyValuesOfBidRequest({ app: { ext: { data: { tier: 'Gold' } } }, site: {} }, {})).toEqual(['tier=gold']);
    expect(keyValuesOfBidRequest({}, { ext: 'x' })).toEqual([]);
  });
});
