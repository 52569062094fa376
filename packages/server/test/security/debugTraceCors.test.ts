import { request as httpRequest } from 'node:http';
import { beforeAll, expect, it } from 'vitest';
import { forEachStore, login } from '../helpers.js';
import { publisherTenant } from '../tenantFixture.js';

/**
 * `/vast/<uid>?debug=1` over real HTTP: the trace (prices, demand) follows the /api origin rule, so a
 * page of another origin, a sibling of the same site included, can neither read it with the user's
 * cookie nor be granted credentials; the console's own origin, a typed URL and a script can. The
 * plain VAST keeps the players' CORS: any page's Origin echoed with credentials.
 */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A GET with exactly these headers (a browser's Origin and Fetch Metadata included). */
function get(url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const SIBLING = 'https://player.adplane.example';
const ELSEWHERE = 'https://evil.example';

forEachStore((t) => {
  const publisher = publisherTenant(t, async (p) => {
    await p.videoSpot('spot', {
      name: 'Debug spot',
      width: 640,
      height: 360,
      bitrate: 800,
      advertiser: 'brand.example.com',
    });
    await p.campaign('campaign', { name: 'Debug campaign', bid: 7, creatives: ['spot'] });
    await p.vastChannel('channel', 'Debug channel', { demand: [] });
  });
  let cookie = '';
  beforeAll(async () => {
    cookie = await login(publisher.app, 'demand');
  });

  const vast = (query: string, headers: Record<string, string>) =>
    get(`${publisher.base}/vast/${publisher.ids.channel!.uid}?w=640&h=360&ip=8.8.8.8${query}`, { cookie, ...headers });
  const isTrace = (a: Answer) =>
    /application\/json/.test(String(a.headers['content-type'])) && 'trace' in (JSON.parse(a.body) as object);

  it('gives a page of another origin, a sibling of the same site included, no trace and no credentials', async () => {
    for (const headers of <Record<string, string>[]>[
      { origin: SIBLING, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' },
      { origin: ELSEWHERE, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' },
      { origin: ELSEWHERE },
      { origin: 'null' },
      { referer: `${ELSEWHERE}/page.html` },
    ]) {
      const answer = await vast('&debug=1', headers);
      const what = JSON.stringify(headers);
      expect(answer.status, what).toBe(200);
      expect(isTrace(answer), what).toBe(false);
      expect(answer.body, what).not.toMatch(/"trace"|revenueCpm|clearing/);
      expect(answer.headers['x-adplane-debug'], what).toMatch(/refused/);
      // the plain VAST, with the players' CORS
      expect(answer.headers['content-type'], what).toMatch(/xml/);
    }
  });

  it("answers the trace to the console's own origin with credentials, and to a typed URL or a script without CORS", async () => {
    const own = new URL(publisher.base).origin;
    const fromConsole = await vast('&debug=1', {
      origin: own,
      'sec-fetch-site': 'same-origin',
      'sec-fetch-mode': 'cors',
    });
    expect(isTrace(fromConsole)).toBe(true);
    expect(fromConsole.headers['access-control-allow-origin']).toBe(own);
    expect(fromConsole.headers['access-control-allow-credentials']).toBe('true');
    expect(fromConsole.headers['x-adplane-debug']).toBeUndefined();

    for (const headers of <Record<string, string>[]>[{ 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' }, {}]) {
      const answer = await vast('&debug=1', headers);
      expect(isTrace(answer), JSON.stringify(headers)).toBe(true);
      expect(answer.headers['access-control-allow-origin'], JSON.stringify(headers)).toBeUndefined();
      expect(answer.headers['access-control-allow-credentials'], JSON.stringify(headers)).toBeUndefined();
    }
  });

  it('never reflects another origin with credentials on an answer carrying the trace', async () => {
    // a script may claim any Fetch Metadata: the trace's CORS still names only the console's origin
    const claimed = await vast('&debug=1', { origin: SIBLING, 'sec-fetch-site': 'same-origin' });
    expect(claimed.headers['access-control-allow-origin']).toBeUndefined();
    expect(claimed.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it("keeps the players' CORS on the plain ad answer and on a refused debug request: any Origin echoed with credentials", async () => {
    for (const query of ['', '&debug=1']) {
      const answer = await vast(query, { origin: ELSEWHERE, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' });
      expect(answer.headers['content-type'], query).toMatch(/xml/);
      expect(answer.headers['access-control-allow-origin'], query).toBe(ELSEWHERE);
      expect(answer.headers['access-control-allow-credentials'], query).toBe('true');
    }
    const noOrigin = await get(`${publisher.base}/vast/${publisher.ids.channel!.uid}?w=640&h=360`, {});
    expect(noOrigin.headers['access-control-allow-origin']).toBe('*');
  });
});
