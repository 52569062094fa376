import { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { type BidRequest } from '@adplane/shared';
import { inlineVast } from './demandServers.js';
import { localServer } from './localServer.js';

/**
 * Local OpenRTB bidders for tests and the bench (the other end of adplane's outbound OpenRTB): one
 * HTTP server whose paths answer as a bidder would, recording every bid request and every notice.
 * POST paths (the query says how to answer):
 * - /bid?name=<n>&price=<usd>: a bid for our impression, with nurl, burl and lurl (auction macros in
 *   them) pointing back at /notice/<win|bill|loss>?name=<n>&...; `adm=vast` (default: an inline VAST
 *   whose impression tracker carries ${AUCTION_PRICE}), `adm=wrapper`, `adm=html` (a banner), or
 *   `adm=none` (markup served on the win notice: GET /notice/win answers the VAST, or HTML with
 *   `serve=html`), `adm=buffet` (a VAST buffet whose first ad has no media file, then the inline ad;
 *   each ad's <Error> at /notice/error?name=<n>&ad=<broken|good>&code=[ERRORCODE]), `adm=unplayable`
 *   (that broken ad alone); `deal=<id>`, `seat=<s>`, `cur=<ISO>`, `delay=<ms>`, `id=wrong` (answers another
 *   request id), `mtype=<n>`, `adomain=<d>`, `cat=<c>`, `bidid=<id>`, `skip=<offset>` (a skippable VAST);
 * - /pbs?price=<usd>: a Prebid Server: the bidder of imp[0].ext.prebid.bidder is the seat;
 * - /nobid (204), /nbr (200 with only a no-bid reason), /garbage (not JSON), /status?code=500, /hang;
 * - /answer/<key>: the answer a test wrote down word for word (`setAnswer`: an auction fixture's bidder
 *   answers), its placeholders filled from the request.
 * GET /notice/* records the hit (`notices`).
 */

/**
 * An answer written down as the bidder sends it: `json` (its strings' placeholders filled: `{request.id}`
 * the bid request's id, `{imp.id}` its first impression's, `{bidders}` this server's URL, where notices
 * are recorded) or `text` (bytes as written: a broken answer), with `status` (200) and `contentType`,
 * after `delayMs` (longer than the caller waits: a timeout).
 */
export interface LiteralAnswer {
  status?: number;
  json?: unknown;
  text?: string;
  contentType?: string;
  delayMs?: number;
}
export interface BidderCall {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: BidRequest;
}

export interface TestBidders {
  url: string;
  requests: BidderCall[];
  notices: URL[];
  /** The requests a bidder (by its /bid `name`, or its path) received. */
  requestsOf(name: string): BidderCall[];
  /** Answers POST /answer/<key> with `answer` from now on. */
  setAnswer(key: string, answer: LiteralAnswer): void;
  /**
   * Waits until `count` notices matching `path` arrived (fire-and-forget notices land a little later),
   * `ms` at most (5 s by default: on a busy two-core machine a notice may take more than a second).
   */
  waitForNotices(path: string, count: number, ms?: number): Promise<URL[]>;
  close(): Promise<void>;
}

const MACRO_QUERY =
  'price=${AUCTION_PRICE}&id=${AUCTION_ID}&imp=${AUCTION_IMP_ID}&bid=${AUCTION_BID_ID}&seat=${AUCTION_SEAT_ID}&ad=${AUCTION_AD_ID}&cur=${AUCTION_CURRENCY}&mbr=${AUCTION_MBR}&min=${AUCTION_MIN_TO_WIN}';

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'x-openrtb-version': '2.6' });
  res.end(text);
}

function bidOf(base: string, q: URLSearchParams, request: BidRequest): Record<string, unknown> {
  const name = q.get('name') ?? 'bidder';
  const adm = q.get('adm') ?? 'vast';
  const notice = (kind: string, extra = '') => `${base}/notice/${kind}?name=${encodeURIComponent(name)}&${extra}`;
  const bid: Record<string, unknown> = {
    id: `bid-${name}`,
    impid: request.imp[0]?.id,
    price: Number(q.get('price') ?? 1),
    adomain: [q.get('adomain') ?? 'brand.example.com'],
    crid: `cr-${name}`,
    adid: `ad-${name}`,
    burl: notice('bill', 'price=${AUCTION_PRICE}&ts=${AUCTION_IMP_TS}'),
    lurl: notice('loss', 'loss=${AUCTION_LOSS}&min=${AUCTION_MIN_TO_WIN}&price=${AUCTION_PRICE}'),
  };
  if (adm === 'none') bid.nurl = notice('win', `serve=${q.get('serve') ?? 'vast'}&${MACRO_QUERY}`);
  else bid.nurl = notice('win', MACRO_QUERY);
  if (adm === 'vast')
    bid.adm = inlineVast(base, null, `ad-${name}`).replace(
      `${base}/track/imp`,
      `${base}/notice/adm-imp?name=${name}&price=\${AUCTION_PRICE}`,
    );
  // skip=<offset>: the VAST ad is skippable (Linear skipoffset)
  if (adm === 'vast' && q.get('skip'))
    bid.adm = (bid.adm as string).replace('<Linear>', `<Linear skipoffset="${q.get('skip')}">`);
  // adm=buffet: a buffet whose first ad cannot play (no media file: VAST 401) before the inline ad above;
  // adm=unplayable: that broken ad alone. Each ad's <Error> points at /notice/error?name=<n>&ad=<broken|good>&code=[ERRORCODE]
  if (adm === 'buffet' || adm === 'unplayable') bid.adm = vastBuffet(base, name, adm === 'buffet');
  if (adm === 'wrapper')
    bid.adm = `<?xml version="1.0"?><VAST version="3.0"><Ad><Wrapper><AdSystem>W</AdSystem><VASTAdTagURI><![CDATA[${base}/notice/wrapped?name=${name}]]></VASTAdTagURI><Impression><![CDATA[${base}/notice/wrapper-imp?name=${name}]]></Impression><Creatives></Creatives></Wrapper></Ad></VAST>`;
  if (adm === 'html')
    bid.adm = `<a href="https://brand.example.com"><img src="${base}/banner.png?price=\${AUCTION_PRICE}" width="300" height="250"></a>`;
  if (adm === 'html') Object.assign(bid, { w: 300, h: 250 });
  if (q.get('deal')) bid.dealid = q.get('deal');
  if (q.get('mtype')) bid.mtype = Number(q.get('mtype'));
  if (q.get('cat')) bid.cat = [q.get('cat')];
  return bid;
}

/** A VAST 3.0 answer whose first ad has no media file (VAST 401), then, with `good`, a playable ad (each with an error tracker at /notice/error). */
function vastBuffet(base: string, name: string, good: boolean): string {
  const error = (ad: string) =>
    `<Error><![CDATA[${base}/notice/error?name=${name}&ad=${ad}&code=[ERRORCODE]]]></Error>`;
  const broken = `<Ad id="broken-${name}"><InLine><AdSystem>LocalDemand</AdSystem><AdTitle>Broken</AdTitle>${error('broken')}<Impression><![CDATA[${base}/notice/broken-imp?name=${name}]]></Impression><Creatives><Creative><Linear><Duration>00:00:10</Duration><MediaFiles></MediaFiles></Linear></Creative></Creatives></InLine></Ad>`;
  const playable = good
    ? inlineVast(base, null, `ad-${name}`)
        .replace(/^[\s\S]*?<VAST version="3.0">/, '')
        .replace('</VAST>', '')
        .replace(`<Error><![CDATA[${base}/track/error?c=[ERRORCODE]]]></Error>`, error('good'))
        .replace(`${base}/track/imp`, `${base}/notice/adm-imp?name=${name}`)
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?><VAST version="3.0">${broken}${playable}</VAST>`;
}

/** `value` with the placeholders of its strings filled (LiteralAnswer). */
function filled(value: unknown, fill: (text: string) => string): unknown {
  if (typeof value === 'string') return fill(value);
  if (Array.isArray(value)) return value.map((v) => filled(v, fill));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, filled(v, fill)]));
  return value;
}

function literal(res: ServerResponse, answer: LiteralAnswer, request: BidRequest, base: string): void {
  const status = answer.status ?? 200;
  if (answer.text !== undefined) {
    res.writeHead(status, { 'content-type': answer.contentType ?? 'application/json' });
    res.end(answer.text);
    return;
  }
  if (answer.json === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const fill = (text: string) =>
    text
      .replaceAll('{request.id}', request.id)
      .replaceAll('{imp.id}', request.imp[0]?.id ?? '')
      .replaceAll('{bidders}', base);
  res.writeHead(status, { 'content-type': answer.contentType ?? 'application/json', 'x-openrtb-version': '2.6' });
  res.end(JSON.stringify(filled(answer.json, fill)));
}

export async function startTestBidders(): Promise<TestBidders> {
  const answers = new Map<string, LiteralAnswer>();
  const requests: BidderCall[] = [];
  const notices: URL[] = [];
  const hanging = new Set<ServerResponse>();
  let base = '';
  const bidderServer = await localServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (req.method === 'GET') {
      if (!url.pathname.startsWith('/notice/')) {
        res.writeHead(404);
        return res.end();
      }
      notices.push(url);
      if (url.pathname === '/notice/win' && url.searchParams.get('serve') === 'vast') {
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(inlineVast(base, null, 'served-on-win'));
      }
      if (url.pathname === '/notice/win' && url.searchParams.get('serve') === 'html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<img src="https://cdn.example.com/banner.png" width="300" height="250">');
      }
      if (url.pathname === '/notice/wrapped') {
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(inlineVast(base, null, 'wrapped'));
      }
      res.writeHead(204);
      return res.end();
    }
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      let body: BidRequest;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as BidRequest;
      } catch {
        res.writeHead(400);
        return res.end();
      }
      const q = url.searchParams;
      requests.push({ path: url.pathname, query: q, headers: req.headers, body });
      const written = url.pathname.startsWith('/answer/')
        ? answers.get(decodeURIComponent(url.pathname.slice('/answer/'.length)))
        : undefined;
      if (written) {
        if (written.delayMs) {
          hanging.add(res);
          setTimeout(() => {
            hanging.delete(res);
            if (!res.destroyed) literal(res, written, body, base);
          }, written.delayMs);
        } else literal(res, written, body, base);
        return;
      }
      const answer = () => {
        switch (url.pathname) {
          case '/bid': {
            const response: Record<string, unknown> = {
              id: q.get('id') === 'wrong' ? 'someone-else' : body.id,
              seatbid: [{ seat: q.get('seat') ?? `seat-${q.get('name') ?? 'bidder'}`, bid: [bidOf(base, q, body)] }],
            };
            if (q.get('cur')) response.cur = q.get('cur');
            if (q.get('bidid')) response.bidid = q.get('bidid');
            return json(res, 200, response);
          }
          case '/pbs': {
            const bidders = Object.keys(
              (body.imp[0]?.ext?.prebid as { bidder?: Record<string, unknown> } | undefined)?.bidder ?? {},
            );
            if (!bidders.length) return json(res, 400, { error: 'no bidder' });
            const pbsQuery = new URLSearchParams(q);
            pbsQuery.set('name', bidders[0]!);
            return json(res, 200, {
              id: body.id,
              cur: 'USD',
              seatbid: [
                { seat: bidders[0], bid: [{ ...bidOf(base, pbsQuery, body), ext: { prebid: { type: 'video' } } }] },
              ],
            });
          }
          case '/nobid':
            res.writeHead(204);
            return res.end();
          case '/nbr':
            return json(res, 200, { id: body.id, nbr: 2 });
          case '/garbage':
            res.writeHead(200, { 'content-type': 'application/json' });
            return res.end('{"id": "x", seatbid: [oops');
          case '/status':
            res.writeHead(Number(q.get('code') ?? 500));
            return res.end();
          case '/hang':
            hanging.add(res);
            return;
          default:
            res.writeHead(404);
            return res.end();
        }
      };
      const delay = Number(q.get('delay') ?? 0);
      if (delay > 0) setTimeout(answer, delay);
      else answer();
    });
  });
  bidderServer.server.keepAliveTimeout = 60_000;
  base = bidderServer.url;
  return {
    url: base,
    requests,
    notices,
    requestsOf: (name) => requests.filter((r) => r.query.get('name') === name || r.path === name),
    setAnswer: (key, answer) => answers.set(key, answer),
    async waitForNotices(path, count, ms = 5000) {
      const started = Date.now();
      const hits = () => notices.filter((n) => n.pathname === path);
      while (hits().length < count && Date.now() - started < ms) await new Promise((r) => setTimeout(r, 10));
      return hits();
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      await bidderServer.close();
    },
  };
}
