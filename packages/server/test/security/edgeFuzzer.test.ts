import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { SeededRandom } from '@adplane/shared';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postbackKey } from '../../src/edge/doors/postback.js';
import { VAST_VERSIONS, type VastVersion } from '../../src/edge/vast/vastVersion.js';
import { buildApp } from '../../src/app.js';
import { createAs, onSqliteStore, login } from '../helpers.js';
import { schemaErrors } from '../vastSchema.js';
import {
  badRequestProblem,
  bidResponseProblem,
  commonProblem,
  contentType,
  type Got,
  isObj,
  send,
  type Sent,
  serverJson,
  xmlProblem,
} from './edgeFuzzChecks.js';
import {
  caseSeed,
  encode,
  longString,
  mutateJson,
  mutateQuery,
  oddHeaders,
  oddValue,
  preview,
  type QueryPair,
  queryString,
  wireBody,
} from './edgeMutators.js';

/**
 * The edge fuzzer: every public entry point of the edge (VAST tags, tracking, OpenRTB bid requests,
 * the Prebid Server endpoints, user sync, the cache, the postback) gets valid requests, then
 * seeded, structure-aware mutations of them, through the real app over real HTTP (the edge lane and
 * node:http). Whatever it sends:
 * - no answer is a 5xx;
 * - no handler fails inside (the edge answers a failure with an empty VAST or a 204 and logs it at
 *   error level: the fuzzer reads the app's log, so a throw hidden behind a 204 fails the run);
 * - answers are well formed: JSON parses, a 200 bid response echoes the request's id and bids on its
 *   impressions at a finite price of at least 0, a VAST answer is XML (a sample checked against its
 *   version's XSD), a 400 names the field and the reason.
 *
 * Bounded for CI (2 cores): about 3,000 requests one after another, on SQLite only. A failure prints
 * the seed, the case and the exact request (the full body in a file under the temp folder); replay
 * it with EDGE_FUZZ_SEED=<seed> EDGE_FUZZ_ONLY=<entry>#<case>. EDGE_FUZZ_SCALE multiplies the cases.
 */
const RUN_SEED = Number(process.env.EDGE_FUZZ_SEED ?? 0xad91a4e);
const SCALE = Number(process.env.EDGE_FUZZ_SCALE ?? 1);
const ONLY = process.env.EDGE_FUZZ_ONLY ?? '';
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
const FIXTURES = fileURLToPath(new URL('../fixtures/openrtb/', import.meta.url));
const ORTB_EXAMPLES = readdirSync(FIXTURES)
  .filter((f) => /^ortb26_6_2_\d_request_.*\.json$/.test(f))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Obj);
/** Every how many'th VAST answer xmllint checks against its XSD (the first of each version always). */
const XSD_EVERY = 15;
const CANARY_PATH = '/fuzz-canary';

type Obj = Record<string, unknown>;

interface Entry {
  name: string;
  runs: number;
  /** Case 0..seeds-1 are the valid seeds as they are; the rest are mutations of them. */
  make(r: SeededRandom, index: number): Sent;
  /** What is wrong with the answer (null: nothing), beyond the checks every answer gets. */
  check(sent: Sent, got: Got): string | null;
}

/** One to three mutations of a JSON seed. */
function mutatedJson(r: SeededRandom, seed: unknown, what: string[]): unknown {
  let value = seed;
  for (let n = 1 + r.int(3); n > 0; n--) {
    const m = mutateJson(r, value);
    value = m.value;
    what.push(m.what);
    // (a deeply nested value is the last change: copying it again would overflow the test's own stack)
    if (m.what.endsWith('deeply nested')) break;
  }
  return value;
}

function mutatedQuery(r: SeededRandom, seed: QueryPair[], what: string[]): QueryPair[] {
  let pairs = seed;
  for (let n = 1 + r.int(3); n > 0; n--) {
    const m = mutateQuery(r, pairs);
    pairs = m.pairs;
    what.push(m.what);
  }
  return pairs;
}

/** A path segment (a uid) changed now and then: unknown, empty, percent garbage, prototype names, very long. */
function mutatedUid(r: SeededRandom, uid: string, what: string[]): string {
  if (!r.chance(0.08)) return encode(uid);
  const odd = r.pick([
    'nosuchuid000',
    '%',
    '%E0%A4%A',
    '%2F..%2F..',
    '__proto__',
    'constructor',
    'x'.repeat(400),
    encode('ʼ𝕏'),
    `${encode(uid)}%00`,
    `${encode(uid)}/extra`,
    encode(`${uid} `),
  ]);
  what.push(`uid ${preview(odd)}`);
  return odd;
}

/** Now and then, odd headers beside the seed's. */
function withOddHeaders(r: SeededRandom, headers: Record<string, string>, what: string[]): Record<string, string> {
  if (!r.chance(0.2)) return headers;
  const odd = oddHeaders(r);
  what.push(odd.what);
  return { ...headers, ...odd.headers };
}

/**
 * HEAD only on a request line node reads: past 16 KB of headers node:http refuses the request
 * before any route, and Fastify's default client-error answer carries a JSON body even for a HEAD,
 * which no client can read (reported, not the edge's).
 */
const HEAD_MAX_TARGET = 8_000;
function headOrGet(r: SeededRandom, path: string, what: string[]): 'HEAD' | 'GET' {
  if (path.length > HEAD_MAX_TARGET || !r.chance(0.03)) return 'GET';
  what.push('HEAD');
  return 'HEAD';
}

const withQuery = (path: string, pairs: QueryPair[]): string => (pairs.length ? `${path}?${queryString(pairs)}` : path);

// on SQLite only: the edge reads an in-memory snapshot: the store engine does not change what it answers
onSqliteStore((t) => {
  let app: FastifyInstance;
  let port = 0;
  const ids: Record<string, { id: number; uid: string }> = {};
  /** The app's log lines at warn and above; error (50) and above fail the case that was answering. */
  const logs: { level: number; msg: string; err?: { message?: string; stack?: string } }[] = [];

  beforeAll(async () => {
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void logs.push(JSON.parse(line) as (typeof logs)[number]) },
    );
    app = await buildApp({ settings: { ...t.settings, logLevel: 'silent' }, store: t.store, logger });
    // the harness's own check: an entry that throws (answered 204 by the edge) must fail a case
    app.edge.addEntry({
      method: 'POST',
      path: CANARY_PATH,
      handle: () => {
        throw new Error('canary: a handler that throws');
      },
    });
    const cookie = await login(app, 'demand');
    const create = async (name: string, kind: string, body: Obj) =>
      (ids[name] = await createAs(app, cookie, kind, body));
    const banner = await create('banner', 'creatives', {
      name: 'Fuzz banner',
      format: 'display',
      displayType: 'image',
      imageUrl: 'https://cdn.example.com/b300x250.png',
      width: 300,
      height: 250,
      clickUrl: 'https://brand.example.com/offer',
      adomain: ['brand.example.com'],
      iabCategories: ['IAB3'],
      approval: 'approved',
    });
    const video = await create('video', 'creatives', {
      name: 'Fuzz spot',
      format: 'video',
      videoSource: 'media',
      approval: 'approved',
      clickUrl: 'https://brand.example.com/spot',
      adomain: ['brand.example.com'],
      iabCategories: ['IAB2'],
      duration: 15,
      mediaFiles: [
        {
          url: 'https://cdn.example.com/spot.mp4',
          mime: 'video/mp4',
          duration: 15,
          width: 640,
          height: 360,
          bitrate: 800,
        },
      ],
    });
    await create('bannerCampaign', 'campaigns', {
      name: 'Fuzz banner',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: 5_000_000,
      channelScope: 'all',
      creativeIds: [banner.id],
    });
    await create('videoCampaign', 'campaigns', {
      name: 'Fuzz video',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: 10_000_000,
      channelScope: 'all',
      creativeIds: [video.id],
    });
    await create('vast42', 'channels', {
      name: 'Fuzz VAST 4.2',
      integration: 'VAST',
      format: 'video',
      vastVersion: '4.2',
      demandMode: 'auction',
      timeoutMs: 500,
      payout: { type: 'revshare', percent: 70 },
      demand: [],
    });
    await create('vast30', 'channels', {
      name: 'Fuzz VAST 3.0',
      integration: 'VAST',
      format: 'video',
      vastVersion: '3.0',
      demandMode: 'priority',
      timeoutMs: 500,
      demand: [],
    });
    await create('rtbChannel', 'channels', {
      name: 'Fuzz RTB channel',
      integration: 'RTB',
      format: 'video',
      payout: { type: 'revshare', percent: 70 },
      demand: [],
    });
    const prebid = {
      environment: 'web',
      integration: 'PreBid',
      payout: { type: 'revshare', percent: 70 },
      demandMode: 'auction',
      timeoutMs: 500,
    };
    await create('display', 'channels', { ...prebid, name: 'Fuzz Prebid display', format: 'display' });
    await create('instream', 'channels', {
      ...prebid,
      name: 'Fuzz Prebid instream',
      format: 'video',
      vastVersion: '4.2',
    });
    await create('supplier', 'sups', {
      name: 'Fuzz SSP',
      qpsLimit: 'unlimited',
      marginPercent: 20,
      formats: ['video', 'display'],
      userSyncUrl: 'https://sync.ssp.test/match?uid=${UID}&gdpr=${GDPR}&consent={GDPR_CONSENT}',
    });
    // a demand partner that syncs users (its endpoint is never called: no channel lists it)
    await create('partner', 'tags', {
      name: 'Fuzz synced DSP',
      integration: 'RTB',
      endpoint: 'http://127.0.0.1:9/bid',
      price: { type: 'cpm', cpm: 0 },
      timeoutMs: 100,
      userSyncUrl: 'https://sync.dsp.test/u?r=${REDIRECT}',
    });
    await app.edge.snapshots.rebuild();
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Sends one case and checks its answer: the problem found (null: none), and the answer. */
  async function tryCase(
    sent: Sent,
    check: (sent: Sent, got: Got) => string | null,
  ): Promise<{ problem: string | null; got: Got | null }> {
    const logged = logs.length;
    let problem: string | null;
    let got: Got | null = null;
    try {
      got = await send(port, sent);
      // (a header block past node's 16 KB is refused by node:http before the edge: nothing of ours to check)
      problem = commonProblem(got) ?? (got.status === 431 ? null : check(sent, got));
    } catch (error) {
      problem = `no answer: ${(error as Error).message}`;
    }
    // the edge logs a failure it answered empty (a 204, an empty VAST) at error level: a throw inside a handler
    const errors = logs.slice(logged).filter((l) => l.level >= 50);
    if (errors.length)
      problem = `${problem ? `${problem}; ` : ''}the handler failed inside (logged: ${errors.map((e) => `${e.msg}: ${e.err?.stack?.split('\n').slice(0, 4).join(' | ') ?? e.err?.message ?? ''}`).join('; ')})`;
    return { problem, got };
  }

  it('sees a throw inside an entry that the edge answers with a 204', async () => {
    const { problem, got } = await tryCase(
      {
        method: 'POST',
        path: CANARY_PATH,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{}'),
        what: [],
      },
      () => null,
    );
    expect(got?.status).toBe(204);
    expect(problem).toMatch(/the handler failed inside \(logged: edge request failed: answered empty: Error: canary/);
  });

  it('answers every mutated edge request without a 5xx, a failure inside, or a malformed answer', async () => {
    const snapshot = app.edge.snapshots.current!;
    const tenantId = snapshot.channelsByUid.get(ids.vast42!.uid)!.tenantId;
    const pbKey = postbackKey(app.edge.deps!.signer, tenantId);

    // ---- seeds: what players, exchanges and Prebid.js send (the existing tests' requests) ----
    const vastSeeds: { uid: string; query: QueryPair[] }[] = [
      {
        uid: ids.vast42!.uid,
        query: [
          ['w', '640'],
          ['h', '360'],
          ['ip', '8.8.8.8'],
          ['cb', '123'],
          ['page_url', 'https://news.example.com/story?id=7'],
          ['domain', 'news.example.com'],
        ],
      },
      {
        uid: ids.vast30!.uid,
        query: [
          ['w', '1920'],
          ['h', '1080'],
          ['ip', '8.8.8.8'],
          ['app_bundle', 'com.example.tv'],
          ['device_type', '3'],
          ['ifa', '6D92078A-8246-4BA4-AE5B-76104861E7DC'],
          ['us_privacy', '1YNN'],
          ['gdpr', '0'],
        ],
      },
      {
        uid: ids.vast42!.uid,
        query: [
          ['w', '640'],
          ['h', '360'],
          ['ip', '8.8.8.8'],
          ['pod_max_ads', '3'],
          ['pod_max_dur', '60'],
          ['min_dur', '5'],
          ['max_dur', '30'],
          ['vast_version', '4.1'],
        ],
      },
      {
        uid: ids.vast30!.uid,
        query: [
          ['width', '640'],
          ['height', '360'],
          ['uip', '8.8.8.8'],
          ['vast_version', '2.0'],
          ['content_genre', 'news'],
          ['livestream', '1'],
          ['coppa', '0'],
          ['dnt', '0'],
        ],
      },
    ];
    const videoImp = (id = '1'): Obj => ({
      id,
      video: {
        mimes: ['video/mp4'],
        protocols: [2, 3, 5, 6, 7, 8],
        w: 640,
        h: 360,
        minduration: 5,
        maxduration: 30,
        plcmt: 1,
      },
      bidfloor: 0.5,
      bidfloorcur: 'USD',
    });
    const bannerImp = (id = '1'): Obj => ({
      id,
      banner: {
        w: 300,
        h: 250,
        format: [
          { w: 300, h: 250 },
          { w: 728, h: 90 },
        ],
      },
      bidfloor: 0.1,
    });
    const ortbSeeds: Obj[] = [
      ...ORTB_EXAMPLES,
      {
        id: 'fuzz-video',
        imp: [videoImp()],
        site: { domain: 'news.example.com', page: 'https://news.example.com/a' },
        device: { ua: UA, ip: '8.8.8.8' },
        tmax: 200,
        cur: ['USD'],
      },
      {
        id: 'fuzz-banner',
        imp: [bannerImp(), bannerImp('2')],
        app: { bundle: 'com.example.app' },
        device: { ua: UA, ip: '8.8.8.8', devicetype: 4 },
        user: { buyeruid: 'abc' },
        regs: { ext: { us_privacy: '1YNN' } },
        tmax: 200,
      },
      {
        id: 'fuzz-pmp',
        imp: [{ ...bannerImp(), pmp: { private_auction: 0, deals: [{ id: 'AB-1', bidfloor: 1 }] } }],
        site: { domain: 'news.example.com' },
        source: { schain: { ver: '1.0', complete: 1, nodes: [{ asi: 'ssp.test', sid: '1', hp: 1 }] } },
        tmax: 200,
      },
    ];
    const rtbChannelSeeds: Obj[] = [
      {
        id: 'fuzz-ssp-video',
        imp: [videoImp()],
        site: { domain: 'news.example.com' },
        device: { ua: UA, ip: '8.8.8.8' },
        tmax: 200,
      },
      {
        id: 'fuzz-ssp-pod',
        imp: [videoImp('1'), videoImp('2')],
        app: { bundle: 'com.example.tv' },
        device: { ua: UA, ip: '8.8.8.8', devicetype: 3 },
        tmax: 200,
      },
    ];
    const pbjs = (imps: Obj[], ext: Obj = {}): Obj => ({
      id: 'auction-1',
      imp: imps,
      site: { page: 'https://news.example.com/story', domain: 'news.example.com', publisher: { id: 'acct-1' } },
      device: { w: 1366, h: 860, ua: UA, ip: '8.8.8.8', language: 'en' },
      tmax: 500,
      test: 0,
      source: { tid: 'tid-1' },
      ext: {
        prebid: {
          auctiontimestamp: 1_760_000_000_000,
          targeting: { includewinners: true, includebidderkeys: false },
          channel: { name: 'pbjs', version: 'v11.36.0' },
          ...ext,
        },
      },
    });
    const pbBanner = (channel: string, id = 'div-banner'): Obj => ({
      id,
      banner: { format: [{ w: 300, h: 250 }] },
      secure: 1,
      ext: { prebid: { bidder: { adplane: { channel } }, adunitcode: id } },
    });
    const pbVideo = (channel: string, id = 'div-video'): Obj => ({
      id,
      video: { mimes: ['video/mp4'], protocols: [2, 3, 5, 6], w: 640, h: 360, plcmt: 1 },
      secure: 1,
      ext: { prebid: { bidder: { adplane: { channel } }, adunitcode: id } },
    });
    const auctionSeeds: Obj[] = [
      pbjs([pbBanner(ids.display!.uid)]),
      pbjs([pbVideo(ids.instream!.uid)], {
        cache: { vastxml: { ttlseconds: 300 }, bids: {} },
        targeting: {
          includebidderkeys: true,
          includeformat: true,
          pricegranularity: { precision: 2, ranges: [{ max: 20, increment: 0.1 }] },
        },
      }),
      pbjs(
        [
          pbBanner(ids.display!.uid, 'a'),
          pbVideo(ids.instream!.uid, 'b'),
          {
            id: 'c',
            banner: { format: [{ w: 728, h: 90 }] },
            ext: { prebid: { bidder: { appnexus: { placement_id: 1 } } } },
          },
        ],
        { aliases: { adp: 'adplane' }, currency: { rates: { EUR: { USD: 1.1 } }, usepbsrates: true } },
      ),
      {
        id: 'stored',
        imp: [{ id: 'x', banner: { w: 300, h: 250 } }],
        ext: { prebid: { storedrequest: { id: ids.display!.uid } } },
        site: { page: 'https://news.example.com/' },
      },
    ];
    const ampSeed: QueryPair[] = [
      ['tag_id', ids.display!.uid],
      ['w', '320'],
      ['h', '50'],
      ['ms', '970x90, 300x250'],
      ['slot', '/1111/amp_test'],
      ['curl', 'https://news.example.com/amp/story'],
      ['timeout', '3000'],
      ['targeting', JSON.stringify({ section: 'sports' })],
      ['gdpr_consent', 'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA'],
      ['consent_type', '2'],
      ['gdpr_applies', 'false'],
      ['__amp_source_origin', 'https://news.example.com'],
    ];
    const cookieSyncSeeds: Obj[] = [
      { bidders: ['adplane'], account: ids.display!.uid, gdpr: 0, gdpr_consent: 'CO-x', us_privacy: '1YNN' },
      {
        bidders: ['adplane', 'appnexus'],
        limit: 2,
        coopSync: true,
        filterSettings: {
          iframe: { bidders: '*', filter: 'include' },
          image: { bidders: ['adplane'], filter: 'exclude' },
        },
        gpp: 'DBABMA~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA',
        gpp_sid: [2, 6],
      },
      {},
    ];
    const setuidSeeds: QueryPair[][] = [
      [
        ['bidder', 'adplane'],
        ['uid', 'abc-123'],
        ['gdpr', '0'],
        ['gdpr_consent', ''],
        ['f', 'i'],
      ],
      [
        ['bidder', `adplane_tag_${ids.partner!.id}`],
        ['uid', 'partner-uid-9'],
        ['us_privacy', '1YNN'],
        ['gpp_sid', '7,8'],
        ['f', 'b'],
      ],
    ];
    const supplierSyncSeed: QueryPair[] = [
      ['gdpr', '0'],
      ['gdpr_consent', ''],
      ['us_privacy', '1YNN'],
      ['gpp_sid', '7,8'],
    ];
    const cachePutSeeds: Obj[] = [
      {
        puts: [
          { type: 'xml', value: '<VAST version="4.2"></VAST>', ttlseconds: 300 },
          { type: 'json', value: { a: 1, b: [1, 2] } },
        ],
      },
      { puts: [{ type: 'json', value: 'plain text', key: 'k1' }] },
    ];

    // ---- state gathered on the way: tracking URLs of answers, cache ids ----
    const evUrls: QueryPair[][] = [];
    const cacheIds: string[] = [];
    /** What the auctions cached (their VAST is ours: it must be VAST); what clients post is theirs. */
    const auctionCached = new Set<string>();
    const gatherEv = (xml: string) => {
      for (const m of xml.matchAll(/\/ev\?([^<"\]\s]+)/g)) {
        if (evUrls.length >= 200) return;
        const search = new URLSearchParams(m[1]!.replace(/&amp;/g, '&'));
        evUrls.push([...search].map(([k, v]) => [k, v] as QueryPair));
      }
    };
    let xsdChecked = 0;
    const versionsChecked = new Set<string>();
    /** A VAST document's problem: not XML, not VAST, and (on a sample) not valid against its version's XSD. */
    const vastProblem = (xml: string): string | null => {
      const x = xmlProblem(xml);
      if (x.problem) return x.problem;
      if (x.root !== 'VAST') return `the root element is ${x.root}, not VAST`;
      if (!(VAST_VERSIONS as readonly string[]).includes(x.version))
        return `VAST version ${preview(x.version)} is none of ours`;
      if (!versionsChecked.has(x.version) || ++xsdChecked % XSD_EVERY === 0) {
        versionsChecked.add(x.version);
        const errors = schemaErrors(x.version as VastVersion, xml);
        if (errors) return `the VAST is not valid against the ${x.version} XSD: ${errors.slice(0, 400)}`;
      }
      return null;
    };
    const seen: Record<string, Record<number, number>> = {};

    const entries: Entry[] = [
      {
        name: 'vast',
        runs: 450,
        make(r, i) {
          const seed = vastSeeds[i % vastSeeds.length]!;
          const what: string[] = [];
          if (i < vastSeeds.length)
            return {
              method: 'GET',
              path: withQuery(`/vast/${seed.uid}`, seed.query),
              headers: { 'user-agent': UA },
              what,
            };
          const uid = mutatedUid(r, seed.uid, what);
          const path = withQuery(`/vast/${uid}`, mutatedQuery(r, seed.query, what));
          const method = headOrGet(r, path, what);
          return { method, path, headers: withOddHeaders(r, { 'user-agent': UA }, what), what };
        },
        check(sent, got) {
          if (sent.method === 'HEAD') return got.status === 200 ? null : `HEAD answered ${got.status}`;
          // an unknown channel: 404 with an empty VAST (the player still reads a VAST)
          const known = [ids.vast42!.uid, ids.vast30!.uid].some((uid) => sent.path.startsWith(`/vast/${uid}?`));
          if (got.status !== 200 && !(got.status === 404 && !known))
            return `a VAST tag answered ${got.status}, not 200 with a VAST (empty or not)`;
          if (!contentType(got).startsWith('application/xml')) return `content-type ${contentType(got)}`;
          gatherEv(got.text);
          return vastProblem(got.text);
        },
      },
      {
        name: 'ev',
        runs: 350,
        make(r, i) {
          const what: string[] = [];
          const seed = evUrls.length
            ? evUrls[i % evUrls.length]!
            : ([
                ['e', 'impression'],
                ['t', 'x'],
              ] as QueryPair[]);
          if (i < Math.min(20, evUrls.length))
            return { method: 'GET', path: withQuery('/ev', seed), headers: { 'user-agent': UA }, what };
          let pairs = seed.map((p) => [...p] as QueryPair);
          const token = pairs.find((p) => p[0] === 't');
          if (token && r.chance(0.5)) {
            const t0 = token[1];
            const at = r.int(Math.max(1, t0.length));
            token[1] = r.pick([
              `${t0.slice(0, at)}${t0[at] === 'A' ? 'B' : 'A'}${t0.slice(at + 1)}`,
              t0.slice(0, at),
              `${t0}${t0}`,
              t0.split('').reverse().join(''),
              longString(r).slice(0, 5_000),
              String(oddValue(r) ?? ''),
              `${t0.slice(0, at)}.${t0.slice(at)}`,
            ]);
            what.push(`t changed to ${preview(token[1])}`);
          }
          if (r.chance(0.3)) {
            const e = r.pick([
              'impression',
              'click',
              'error',
              'complete',
              'start',
              'nosuch',
              '',
              'IMPRESSION',
              '__proto__',
              'constructor',
              'toString',
            ]);
            pairs = [...pairs.filter((p) => p[0] !== 'e'), ['e', e]];
            what.push(`e=${e}`);
          }
          if (r.chance(0.2)) {
            pairs.push(
              r.pick<QueryPair>([
                ['code', r.pick(['100', '9999', '-1', 'abc', ''])],
                ['w', String(oddValue(r) ?? '')],
                ['b', String(oddValue(r) ?? '')],
                ['p', String(oddValue(r) ?? '')],
              ]),
            );
            what.push(`${pairs[pairs.length - 1]![0]} added`);
          }
          if (r.chance(0.5)) pairs = mutatedQuery(r, pairs, what);
          const path = withQuery('/ev', pairs);
          return {
            method: headOrGet(r, path, what),
            path,
            headers: withOddHeaders(r, { 'user-agent': UA }, what),
            what,
          };
        },
        check(sent, got) {
          if (sent.method === 'HEAD') return null;
          if (got.status === 200)
            return contentType(got) === 'image/gif' ? null : `a 200 of content-type ${contentType(got)}, not the pixel`;
          if (got.status === 302)
            return /^https?:\/\//.test(String(got.headers.location ?? ''))
              ? null
              : `a redirect to ${preview(got.headers.location)}`;
          if (got.status === 400) return badRequestProblem(got, ['e must be']);
          if (got.status === 403 || got.status === 204) return null;
          return `answered ${got.status}`;
        },
      },
      rtbEntry('rtb-bid', 500, '/rtb/bid/', () => ids.supplier!.uid, ortbSeeds),
      rtbEntry('rtb-channel', 200, '/rtb/', () => ids.rtbChannel!.uid, rtbChannelSeeds),
      {
        name: 'auction',
        runs: 550,
        make(r, i) {
          const what: string[] = [];
          const seed = auctionSeeds[i % auctionSeeds.length]!;
          const mutate = i >= auctionSeeds.length;
          const value = mutate ? mutatedJson(r, seed, what) : seed;
          const wire = wireBody(r, value, { gzipQuery: true, mutate });
          if (wire.what) what.push(wire.what);
          const chunked = mutate && r.chance(0.05);
          if (chunked) what.push('chunked');
          const headers = mutate
            ? withOddHeaders(r, { 'user-agent': UA, ...wire.headers }, what)
            : { 'user-agent': UA, ...wire.headers };
          return {
            method: 'POST',
            path: wire.query ? `/openrtb2/auction?${wire.query}` : '/openrtb2/auction',
            headers,
            body: wire.body,
            chunked,
            what,
          };
        },
        check(sent, got) {
          if (got.status === 200) {
            if (!contentType(got).startsWith('application/json')) return `content-type ${contentType(got)}`;
            const problem = bidResponseProblem(serverJson(sent), JSON.parse(got.text), true);
            if (problem) return problem;
            cacheIdsOf(got.text);
            return null;
          }
          if (got.status === 400)
            return /^Invalid request: \S.{4,}/.test(got.text)
              ? null
              : `the 400 does not say "Invalid request: <field> <reason>": ${got.text.slice(0, 200)}`;
          return `answered ${got.status}`;
        },
      },
      {
        name: 'amp',
        runs: 200,
        make(r, i) {
          const what: string[] = [];
          if (i === 0)
            return {
              method: 'GET',
              path: withQuery('/openrtb2/amp', ampSeed),
              headers: { 'user-agent': UA, origin: 'https://news-example-com.cdn.ampproject.org' },
              what,
            };
          let pairs = mutatedQuery(r, ampSeed, what);
          if (r.chance(0.3)) {
            // the JSON first-party data, mutated as a body is
            const targeting = mutatedJson(r, { section: 'sports', tags: ['a', 'b'], n: 1 }, what);
            pairs = [...pairs.filter((p) => p[0] !== 'targeting'), ['targeting', JSON.stringify(targeting) ?? '']];
          }
          return {
            method: 'GET',
            path: withQuery('/openrtb2/amp', pairs),
            headers: withOddHeaders(r, { 'user-agent': UA }, what),
            what,
          };
        },
        check(_sent, got) {
          if (got.status === 200) {
            const body = JSON.parse(got.text) as Obj;
            if (!isObj(body.targeting) || Object.values(body.targeting).some((v) => typeof v !== 'string'))
              return `targeting is not an object of strings: ${got.text.slice(0, 200)}`;
            if (typeof body.targeting.hb_cache_id === 'string' && cacheIds.length < 100)
              cacheIds.push(body.targeting.hb_cache_id);
            return null;
          }
          if (got.status === 400)
            return /^Invalid request: \S.{4,}/.test(got.text)
              ? null
              : `the 400 does not say "Invalid request: <field> <reason>": ${got.text.slice(0, 200)}`;
          return `answered ${got.status}`;
        },
      },
      {
        name: 'cookie_sync',
        runs: 200,
        make(r, i) {
          const what: string[] = [];
          const seed = cookieSyncSeeds[i % cookieSyncSeeds.length]!;
          const mutate = i >= cookieSyncSeeds.length;
          if (mutate && r.chance(0.04)) return { method: 'GET', path: '/cookie_sync', headers: {}, what: ['GET'] };
          const wire = wireBody(r, mutate ? mutatedJson(r, seed, what) : seed, { mutate });
          if (wire.what) what.push(wire.what);
          return {
            method: 'POST',
            path: '/cookie_sync',
            headers: mutate
              ? withOddHeaders(r, { 'user-agent': UA, ...wire.headers }, what)
              : { 'user-agent': UA, ...wire.headers },
            body: wire.body,
            what,
          };
        },
        check(sent, got) {
          if (sent.method === 'GET')
            return got.status === 404 || got.status === 405 ? null : `GET /cookie_sync answered ${got.status}`;
          if (got.status === 200) {
            const body = JSON.parse(got.text) as Obj;
            return typeof body.status === 'string' && Array.isArray(body.bidder_status)
              ? null
              : `not a cookie_sync answer: ${got.text.slice(0, 200)}`;
          }
          if (got.status === 400)
            return /^Invalid request: \S.{4,}/.test(got.text)
              ? null
              : `the 400 does not say "Invalid request: <field> <reason>": ${got.text.slice(0, 200)}`;
          if (got.status === 401) return null;
          return `answered ${got.status}`;
        },
      },
      {
        name: 'setuid',
        runs: 150,
        make(r, i) {
          const what: string[] = [];
          const seed = setuidSeeds[i % setuidSeeds.length]!;
          if (i < setuidSeeds.length) return { method: 'GET', path: withQuery('/setuid', seed), headers: {}, what };
          return {
            method: 'GET',
            path: withQuery('/setuid', mutatedQuery(r, seed, what)),
            headers: withOddHeaders(r, {}, what),
            what,
          };
        },
        check(_sent, got) {
          if (got.status === 200)
            return /^(image\/gif|text\/html)/.test(contentType(got)) ? null : `content-type ${contentType(got)}`;
          if (got.status === 400) return badRequestProblem(got, ['bidder', 'gdpr', ' f ', 'uid']);
          if (got.status === 401 || got.status === 451) return null;
          return `answered ${got.status}`;
        },
      },
      {
        name: 'supplier-sync',
        runs: 150,
        make(r, i) {
          const what: string[] = [];
          if (i === 0)
            return {
              method: 'GET',
              path: withQuery(`/rtb/sync/${ids.supplier!.uid}`, supplierSyncSeed),
              headers: {},
              what,
            };
          const uid = mutatedUid(r, ids.supplier!.uid, what);
          return {
            method: 'GET',
            path: withQuery(`/rtb/sync/${uid}`, mutatedQuery(r, supplierSyncSeed, what)),
            headers: withOddHeaders(r, {}, what),
            what,
          };
        },
        check(_sent, got) {
          if (got.status === 302) {
            const location = String(got.headers.location ?? '');
            try {
              return /^https?:$/.test(new URL(location).protocol) ? null : `a redirect to ${preview(location)}`;
            } catch {
              return `a redirect to ${preview(location)}, not a URL`;
            }
          }
          if (got.status === 200) return contentType(got) === 'image/gif' ? null : `content-type ${contentType(got)}`;
          if (got.status === 400) return badRequestProblem(got, ['gdpr']);
          if (got.status === 404) return null;
          return `answered ${got.status}`;
        },
      },
      {
        // past 30 writes in 10 s an address is refused (429): the cases stay under it
        name: 'cache-post',
        runs: 26,
        make(r, i) {
          const what: string[] = [];
          const seed = cachePutSeeds[i % cachePutSeeds.length]!;
          const mutate = i >= cachePutSeeds.length;
          const wire = wireBody(r, mutate ? mutatedJson(r, seed, what) : seed, { mutate });
          if (wire.what) what.push(wire.what);
          return { method: 'POST', path: '/cache', headers: { ...wire.headers }, body: wire.body, what };
        },
        check(sent, got) {
          if (got.status === 200) {
            const body = JSON.parse(got.text) as { responses?: { uuid?: unknown }[] };
            const puts = (serverJson(sent) as { puts?: unknown[] } | undefined)?.puts;
            if (!Array.isArray(body.responses) || body.responses.some((x) => typeof x.uuid !== 'string'))
              return `not a Prebid Cache answer: ${got.text.slice(0, 200)}`;
            if (Array.isArray(puts) && puts.length !== body.responses.length)
              return `${puts.length} puts, ${body.responses.length} uuids`;
            for (const x of body.responses) cacheIds.push(x.uuid as string);
            return null;
          }
          if (got.status === 400)
            return badRequestProblem(got, [
              'puts',
              'body',
              'value',
              'type',
              'key',
              'ttlseconds',
              'JSON',
              'gzip',
              'encoding',
              'KB',
              'cache',
            ]);
          if (got.status === 429) return null;
          return `answered ${got.status}`;
        },
      },
      {
        name: 'cache-get',
        runs: 80,
        make(r, i) {
          const what: string[] = [];
          const uuid = cacheIds.length ? cacheIds[i % cacheIds.length]! : 'none';
          if (i < Math.min(5, cacheIds.length))
            return { method: 'GET', path: `/cache?uuid=${encode(uuid)}`, headers: {}, what };
          return {
            method: 'GET',
            path: withQuery('/cache', mutatedQuery(r, [['uuid', uuid]], what)),
            headers: {},
            what,
          };
        },
        check(sent, got) {
          if (got.status === 200) {
            const uuid = new URLSearchParams(sent.path.split('?')[1] ?? '').get('uuid') ?? '';
            return contentType(got).startsWith('application/xml') && auctionCached.has(uuid)
              ? vastProblem(got.text)
              : null;
          }
          if (got.status === 404) return null;
          if (got.status === 400) return badRequestProblem(got, ['uuid']);
          return `answered ${got.status}`;
        },
      },
      {
        name: 'postback',
        runs: 80,
        make(r, i) {
          const what: string[] = [];
          const key = r.chance(0.1) ? mutatedUid(r, pbKey, what) : pbKey;
          if (i % 2 === 0) {
            const query: QueryPair[] = [
              ['id', 'not-an-impression-id'],
              ['ivt', '1'],
              ['reason', 'datacenter'],
            ];
            return {
              method: 'GET',
              path: withQuery(`/pb/${key}`, i ? mutatedQuery(r, query, what) : query),
              headers: {},
              what,
            };
          }
          const seed = [
            { id: 'x', ivt: 1, reason: 'bot' },
            { id: 'y', ivt: 0 },
          ];
          const wire = wireBody(r, i > 1 ? mutatedJson(r, seed, what) : seed, { mutate: i > 1 });
          if (wire.what) what.push(wire.what);
          return { method: 'POST', path: `/pb/${key}`, headers: wire.headers, body: wire.body, what };
        },
        check(_sent, got) {
          if (got.status === 400 || got.status === 403) return badRequestProblem(got, []);
          if (got.status === 200) return null;
          return `answered ${got.status}`;
        },
      },
      {
        name: 'misc',
        runs: 100,
        make(r) {
          const what: string[] = [];
          const odd = () => String(oddValue(r) ?? '');
          const preflightPath = r.pick([
            '/vast/x',
            '/ev',
            '/openrtb2/auction',
            '/cookie_sync',
            '/cache',
            '/vtrack',
            '/openrtb2/amp',
            '/pb/x',
          ]);
          const cases: (() => Sent)[] = [
            () => ({ method: 'GET', path: '/status', headers: {}, what }),
            () => ({
              method: 'GET',
              path: withQuery(
                '/info/bidders',
                mutatedQuery(
                  r,
                  [
                    ['enabledonly', 'true'],
                    ['baseadaptersonly', 'false'],
                  ],
                  what,
                ),
              ),
              headers: {},
              what,
            }),
            () => ({
              method: 'GET',
              path: `/info/bidders/${mutatedUid(r, r.pick(['adplane', 'all', 'ADPLANE', 'appnexus']), what)}`,
              headers: {},
              what,
            }),
            () => ({ method: 'GET', path: '/bidders/params', headers: {}, what }),
            () => ({
              method: 'GET',
              path: '/getuids',
              headers: withOddHeaders(
                r,
                {
                  cookie: `uids=${Buffer.from(JSON.stringify({ tempUIDs: { adplane: { uid: odd(), expires: odd() } } })).toString('base64url')}`,
                },
                what,
              ),
              what,
            }),
            () => ({ method: 'GET', path: '/optout', headers: withOddHeaders(r, {}, what), what }),
            () => ({
              method: 'POST',
              path: '/optout',
              headers: withOddHeaders(r, { 'content-type': 'application/x-www-form-urlencoded' }, what),
              body: Buffer.from(queryString(mutatedQuery(r, [['optout', '1']], what))),
              what,
            }),
            () => ({
              method: 'GET',
              path: withQuery(
                '/rtb/win',
                mutatedQuery(
                  r,
                  [
                    ['t', 'x'],
                    ['p', '1.5'],
                  ],
                  what,
                ),
              ),
              headers: {},
              what,
            }),
            () => ({
              method: 'OPTIONS',
              path: preflightPath,
              headers: withOddHeaders(
                r,
                {
                  origin: 'https://news.example.com',
                  'access-control-request-method': r.pick(['POST', 'GET', 'PUT', '']),
                },
                what,
              ),
              what,
            }),
            () => ({
              method: 'HEAD',
              path: withQuery(r.pick(['/vast/x', '/ev']), mutatedQuery(r, [['e', 'impression']], what)).slice(
                0,
                HEAD_MAX_TARGET,
              ),
              headers: {},
              what,
            }),
            // Prebid Server's event endpoint (prebidEvents.ts), its parameters mutated, the token forged
            () => ({
              method: r.pick(['GET', 'GET', 'HEAD']),
              path: withQuery(
                '/event',
                mutatedQuery(
                  r,
                  [
                    ['t', 'imp'],
                    ['b', 'bid-1'],
                    ['a', 'pub-1'],
                    ['bidder', 'adplane'],
                    ['f', 'i'],
                    ['ts', '1700000000000'],
                    ['tk', 'x.y'],
                  ],
                  what,
                ),
              ).slice(0, HEAD_MAX_TARGET),
              headers: {},
              what,
            }),
            // Prebid Server's VAST cache with its impression event (vtrack.ts): the query and the puts mutated
            () => {
              const seed = {
                puts: [
                  {
                    type: 'xml',
                    value:
                      '<VAST version="3.0"><Ad><InLine><Impression><![CDATA[https://ads.example.com/ev?e=impression&t=x.y]]></Impression></InLine></Ad></VAST>',
                    ttlseconds: 300,
                    bidder: 'adplane',
                    bidid: 'req-1',
                    aid: 'a-1',
                    timestamp: 1700000000000,
                  },
                ],
              };
              const mutate = r.chance(0.8);
              const wire = wireBody(r, mutate ? mutatedJson(r, seed, what) : seed, { mutate });
              if (wire.what) what.push(wire.what);
              return {
                method: 'POST',
                path: withQuery(
                  '/vtrack',
                  r.chance(0.5)
                    ? mutatedQuery(
                        r,
                        [
                          ['a', 'pub-1'],
                          ['int', 'pbjs'],
                        ],
                        what,
                      )
                    : [['a', 'pub-1']],
                ),
                headers: wire.headers,
                body: wire.body,
                what,
              };
            },
          ];
          return cases[r.int(cases.length)]!();
        },
        check(sent, got) {
          if (got.status === 400) {
            if (sent.path.startsWith('/info/bidders'))
              return badRequestProblem(got, ['enabledonly', 'baseadaptersonly']);
            if (sent.path.startsWith('/optout')) return badRequestProblem(got, ['optout']);
            if (sent.path.startsWith('/rtb/win')) return null; // a refused win notice: no body, as exchanges read none
            if (sent.path.startsWith('/event') && sent.method !== 'HEAD')
              return badRequestProblem(got, ['parameter', 't must be']);
            if (sent.path.startsWith('/vtrack'))
              return badRequestProblem(got, [
                'puts',
                'body',
                'JSON',
                'gzip',
                'encoding',
                'KB',
                "Account 'a'",
                'integration',
                'cache',
              ]);
          }
          if (sent.path.startsWith('/vtrack') && sent.method === 'POST') {
            if (got.status === 200) {
              const body = JSON.parse(got.text) as { responses?: { uuid?: unknown }[] };
              if (!Array.isArray(body.responses) || body.responses.some((x) => typeof x.uuid !== 'string'))
                return `not a Prebid Cache answer: ${got.text.slice(0, 200)}`;
              return null;
            }
            if (got.status !== 400 && got.status !== 429) return `answered ${got.status}`;
          }
          // a forged event token is refused, never counted
          if (
            sent.path.startsWith('/event') &&
            got.status < 300 &&
            !/[?&]x=0(&|$)/.test(sent.path) &&
            sent.method !== 'HEAD'
          )
            return `a forged event token was taken: ${got.status}`;
          return null;
        },
      },
    ];

    function cacheIdsOf(text: string): void {
      for (const m of text.matchAll(/"cacheId":"([^"]+)"/g)) {
        if (cacheIds.length >= 100) return;
        cacheIds.push(m[1]!);
        auctionCached.add(m[1]!);
      }
    }

    function rtbEntry(name: string, runs: number, prefix: string, uid: () => string, seeds: Obj[]): Entry {
      return {
        name,
        runs,
        make(r, i) {
          const what: string[] = [];
          const seed = seeds[i % seeds.length]!;
          const mutate = i >= seeds.length;
          const value = mutate ? mutatedJson(r, seed, what) : seed;
          const wire = wireBody(r, value, { mutate });
          if (wire.what) what.push(wire.what);
          const chunked = mutate && r.chance(0.05);
          if (chunked) what.push('chunked');
          const path = `${prefix}${mutate ? mutatedUid(r, uid(), what) : uid()}`;
          const headers = mutate
            ? withOddHeaders(r, { 'user-agent': UA, 'x-openrtb-version': '2.6', ...wire.headers }, what)
            : { 'user-agent': UA, 'x-openrtb-version': '2.6', ...wire.headers };
          return { method: 'POST', path, headers, body: wire.body, chunked, what };
        },
        check(sent, got) {
          if (got.status === 200) {
            if (contentType(got) !== 'application/json') return `content-type ${contentType(got)}`;
            return bidResponseProblem(serverJson(sent), JSON.parse(got.text), false);
          }
          if (got.status === 204) return got.body.length ? 'a 204 with a body' : null;
          if (got.status === 400) {
            const body = JSON.parse(got.text) as Obj;
            return body.error === 'invalid_request' &&
              typeof body.field === 'string' &&
              typeof body.reason === 'string' &&
              body.reason
              ? null
              : `the 400 names no field and reason: ${got.text.slice(0, 200)}`;
          }
          if (got.status === 404) return null;
          return `answered ${got.status}`;
        },
      };
    }

    // ---- the run ----
    const failures: string[] = [];
    const replay: unknown[] = [];
    const [onlyEntry, onlyIndex] = ONLY ? ONLY.split('#') : [];
    let sentCount = 0;
    const started = Date.now();
    for (const entry of entries) {
      const runs = Math.max(1, Math.round(entry.runs * SCALE));
      for (let i = 0; i < runs; i++) {
        // a replayed tracking case needs the tokens of the VAST seeds' answers first
        const wanted =
          !ONLY ||
          (entry.name === onlyEntry && String(i) === onlyIndex) ||
          (onlyEntry === 'ev' && entry.name === 'vast' && i < vastSeeds.length);
        if (!wanted) continue;
        const seed = caseSeed(RUN_SEED, entry.name, i);
        const sent = entry.make(new SeededRandom(seed), i);
        const { problem, got } = await tryCase(sent, (x, answer) => entry.check(x, answer));
        if (got) {
          sentCount++;
          const statuses = (seen[entry.name] ??= {});
          statuses[got.status] = (statuses[got.status] ?? 0) + 1;
        }
        if (!problem) continue;
        const bodyText = sent.body
          ? sent.body.toString('utf8').length > 600
            ? `${sent.body.toString('utf8').slice(0, 600)}... (${sent.body.length} bytes)`
            : sent.body.toString('utf8')
          : '';
        failures.push(
          `[${entry.name}#${i}] ${problem}\n    mutations: ${sent.what.join(' / ') || '(the seed as it is)'}\n    request: ${sent.method} ${sent.path.slice(0, 400)}${sent.path.length > 400 ? `... (${sent.path.length} chars)` : ''}\n    headers: ${JSON.stringify(sent.headers).slice(0, 300)}${bodyText ? `\n    body: ${bodyText}` : ''}\n    answer: ${got ? `${got.status} ${got.text.slice(0, 200)}` : '-'}`,
        );
        replay.push({
          entry: entry.name,
          case: i,
          seed: RUN_SEED,
          problem,
          method: sent.method,
          path: sent.path,
          headers: sent.headers,
          chunked: !!sent.chunked,
          bodyBase64: sent.body?.toString('base64') ?? null,
        });
        if (failures.length >= 30) break;
      }
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (failures.length) {
      const file = join(tmpdir(), `edge-fuzz-${RUN_SEED}-${process.pid}.json`);
      writeFileSync(file, JSON.stringify(replay, null, 1));
      console.error(
        `edge fuzzer: ${failures.length} failing case(s) of ${sentCount} requests in ${seconds} s, seed ${RUN_SEED} (EDGE_FUZZ_SEED=${RUN_SEED} EDGE_FUZZ_ONLY=<entry>#<case> replays one; every failing request in full: ${file})\n${failures.join('\n')}`,
      );
    }
    expect(failures, `seed ${RUN_SEED}: see the report above`).toEqual([]);
    if (ONLY) return;
    // the seeds reached the paths that answer with an ad, or the fuzzer only ever tested refusals
    expect(seen.vast?.[200], 'VAST answers').toBeGreaterThan(0);
    expect(evUrls.length, 'tracking URLs in the VAST answers').toBeGreaterThan(0);
    expect(seen.ev?.[200], 'counted tracking events').toBeGreaterThan(0);
    expect(seen['rtb-bid']?.[200], 'bids on supplier requests').toBeGreaterThan(0);
    expect(seen['rtb-channel']?.[200], 'bids on RTB channel requests').toBeGreaterThan(0);
    expect(seen.auction?.[200], 'Prebid auctions').toBeGreaterThan(0);
    expect(seen.amp?.[200], 'AMP auctions').toBeGreaterThan(0);
    expect(seen.setuid?.[200], 'setuid').toBeGreaterThan(0);
    expect(seen['supplier-sync']?.[302], 'supplier sync redirects').toBeGreaterThan(0);
    expect(seen['cache-get']?.[200], 'cache reads').toBeGreaterThan(0);
    expect(xsdChecked + versionsChecked.size, 'VAST answers checked against the XSD').toBeGreaterThan(5);
    if (process.env.EDGE_FUZZ_STATS)
      console.warn(`edge fuzzer: ${sentCount} requests in ${seconds} s; statuses ${JSON.stringify(seen)}`);
  }, 180_000);
});
