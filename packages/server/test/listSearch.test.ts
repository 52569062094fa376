import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FastifyInstance } from 'fastify';
import { RESOURCES } from '@adplane/shared';
import { as, buildTestApp, createAs, forEachStore, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

/**
 * A list's search takes the typed text as it is: parentheses, brackets, quotes, LIKE's own % and _,
 * a backslash or a URL's own characters are characters of the name, never syntax, on both engines.
 */
const NAMES = [
  'Search probe [brackets] {braces}',
  `Search probe 'single' "double"`,
  'Search probe 100% _under_ back\\slash',
  'Search probe a+b & c=d #hash? /slash',
];

forEachStore((t) => {
  let app: FastifyInstance;
  let cookie: string;
  beforeAll(async () => {
    app = await buildTestApp(t.store);
    cookie = await login(app, 'demand');
    for (const [i, name] of NAMES.entries())
      await createAs(app, cookie, 'tags', { ...sampleBody('tags', 40 + i), name });
  });
  afterAll(() => app.close());

  // the query as the console's list sends it (URLSearchParams), and as typed into an address bar
  const search = async (text: string, encode: (s: string) => string) => {
    const res = await as(app, cookie, {
      method: 'GET',
      url: `${RESOURCES.tags.api}?pageSize=100&search=${encode(text)}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().items as { name: string }[]).map((r) => r.name);
  };
  const formEncoded = (s: string) => new URLSearchParams({ search: s }).toString().slice('search='.length);

  it('finds the one tag named with parentheses, as the console and an address bar send it', async () => {
    const all = await search('', formEncoded);
    expect(all).toContain('Local demo demand (VAST)');
    expect(all.length).toBeGreaterThan(1);
    for (const encode of [formEncoded, encodeURIComponent, encodeURI]) {
      expect(await search('Local demo demand (VAST)', encode)).toEqual(['Local demo demand (VAST)']);
      expect(await search('  demand (VAST)  ', encode)).toEqual(['Local demo demand (VAST)']);
      expect(await search('(VAST)', encode)).toEqual(['Local demo demand (VAST)']);
      expect(await search('demand (VAST', encode)).toEqual(['Local demo demand (VAST)']);
      expect(await search('demand (RTB)', encode)).toEqual([]);
    }
  });

  it('matches brackets, quotes, % and _ and a backslash as the characters they are', async () => {
    for (const name of NAMES) expect(await search(name, formEncoded), name).toEqual([name]);
    expect(await search('[brackets]', formEncoded)).toEqual([NAMES[0]]);
    expect(await search(`'single'`, formEncoded)).toEqual([NAMES[1]]);
    expect(await search('100%', formEncoded)).toEqual([NAMES[2]]);
    expect(await search('_under_', formEncoded)).toEqual([NAMES[2]]);
    expect(await search('back\\slash', formEncoded)).toEqual([NAMES[2]]);
    expect(await search('a+b & c=d', formEncoded)).toEqual([NAMES[3]]);
    expect(await search('#hash?', formEncoded)).toEqual([NAMES[3]]);
    // a pattern's characters match only themselves: 1_0% is not "1, any, 0, anything"
    expect(await search('1_0%', formEncoded)).toEqual([]);
  });
});
