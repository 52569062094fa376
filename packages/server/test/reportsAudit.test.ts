import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  DEMAND_DIMENSIONS,
  DIMENSION_BY_ID,
  DIMENSION_IDS,
  type DimensionId,
  METRIC_BY_ID,
  METRIC_IDS,
  type MetricId,
  NO_DEMAND_ID,
} from '@adplane/shared';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { as, freshAddress, login } from './helpers.js';
import { forEachStoreAndStatsEngine } from './statsEngines.js';
import { publisherTenant } from './tenantFixture.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Audit of the report engine against what the edge counted: real traffic through the real app (VAST
 * requests, impressions, quartiles, clicks and errors with VAST codes, on a simulated clock across an
 * hour and a UTC day boundary), flushed, then every number of POST /api/rrun, report files (CSV), the
 * dashboard, rowStats and finance checked against (1) what was sent and (2) a hand-written oracle over
 * the stored hourly rows (local days and hours computed here, ratios from the catalogue's formulas).
 */
const US = '8.8.8.8';
const GB = '81.2.69.160';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
const ROKU = 'Roku/DVP-12.0 (12.0.0.4182-88)';

type Ev = 'impression' | 'start' | 'firstQuartile' | 'midpoint' | 'thirdQuartile' | 'complete' | 'click';
interface Sent {
  at: string;
  channel: 'alpha' | 'beta' | 'gamma';
  ip: string;
  ua?: string;
  events?: Ev[];
  errors?: string[];
}
const FULL: Ev[] = ['impression', 'start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete'];
/** The traffic, on the simulated clock (UTC). gamma is targeted to Brazil: its requests never fill. */
const TRAFFIC: Sent[] = [
  { at: '2031-03-09T18:30:00Z', channel: 'alpha', ip: US, ua: IPHONE, events: [...FULL, 'click'] },
  {
    at: '2031-03-09T18:31:00Z',
    channel: 'alpha',
    ip: GB,
    ua: ROKU,
    events: ['impression', 'start', 'firstQuartile'],
    errors: ['405'],
  },
  { at: '2031-03-09T18:32:00Z', channel: 'beta', ip: US, events: FULL },
  { at: '2031-03-09T18:33:00Z', channel: 'gamma', ip: US, ua: IPHONE },
  {
    at: '2031-03-09T19:10:00Z',
    channel: 'alpha',
    ip: US,
    ua: IPHONE,
    events: ['impression', 'start', 'firstQuartile', 'midpoint'],
    errors: ['402'],
  },
  { at: '2031-03-09T19:11:00Z', channel: 'beta', ip: GB, ua: ROKU, events: ['impression', 'click', 'click'] },
  { at: '2031-03-09T19:12:00Z', channel: 'gamma', ip: GB },
  { at: '2031-03-09T19:13:00Z', channel: 'alpha', ip: US },
  { at: '2031-03-09T23:40:00Z', channel: 'beta', ip: US, ua: IPHONE, events: ['impression', 'complete'] },
  { at: '2031-03-09T23:41:00Z', channel: 'alpha', ip: GB, ua: ROKU, errors: ['303'] },
  { at: '2031-03-09T23:42:00Z', channel: 'gamma', ip: US, ua: ROKU },
  { at: '2031-03-10T00:20:00Z', channel: 'alpha', ip: US, ua: IPHONE, events: FULL },
  { at: '2031-03-10T00:21:00Z', channel: 'beta', ip: GB, events: ['impression'], errors: ['901'] },
  { at: '2031-03-10T00:22:00Z', channel: 'gamma', ip: GB, ua: IPHONE },
  { at: '2031-03-10T09:05:00Z', channel: 'beta', ip: US, ua: ROKU, events: [...FULL, 'click'] },
  { at: '2031-03-10T09:06:00Z', channel: 'alpha', ip: GB, ua: IPHONE, events: ['impression'], errors: ['402', '402'] },
];
/** What an impression earns and costs, micro-dollars: CPM 50 at 50% revshare, CPM 20 at 40%. */
const PRICE = {
  alpha: { revenue: 50_000, cost: 25_000 },
  beta: { revenue: 20_000, cost: 8_000 },
  gamma: { revenue: 0, cost: 0 },
};
/** "Now" while the reports are read: 07:00 in the demo tenant's UTC-5. */
const NOW = '2031-03-10T12:00:00Z';
const ALL = { startDate: '2031-03-01', endDate: '2031-03-20' };

const HOUR_MS = 3_600_000;
const pad = (n: number) => String(n).padStart(2, '0');
const localDay = (ms: number, tz: number) => new Date(ms + tz * HOUR_MS).toISOString().slice(0, 10);
const localHour = (ms: number, tz: number) => {
  const d = new Date(ms + tz * HOUR_MS);
  return `${d.toISOString().slice(0, 10)} ${pad(d.getUTCHours())}:00`;
};
const instant = (v: unknown) =>
  v instanceof Date ? v.getTime() : Date.parse(`${String(v).slice(0, 19).replace(' ', 'T')}Z`);

type Raw = Record<string, number | string> & { at: number };
type Row = Record<string, unknown>;
interface Prices {
  priceReq: number;
  priceImp: number;
  pricePostbid: number;
  priceDsp: number;
}

const SUM_COLUMNS = [
  'reqs',
  'opps',
  'demand_calls',
  'responses',
  'timeouts',
  'bids',
  'wins',
  'imps',
  'starts',
  'first_quartiles',
  'midpoints',
  'third_quartiles',
  'completes',
  'clicks',
  'errors',
  'ivt',
  'postbid_imps',
  'revenue',
  'cost',
  'rev_m',
  'rev_md',
  'source_reqs',
  'source_opps',
  'postbid_ivt',
  'deal_reqs',
] as const;

/** A metric from summed columns, written out from docs/reports.md's table (not the engine's code). */
function metricOf(id: MetricId, s: Record<string, number>): number {
  const ratio = (n: number, d: number, scale: number) => (d === 0 ? 0 : (n * scale) / d);
  switch (id) {
    case 'demandCalls':
      return s.demand_calls;
    case 'firstQuartiles':
      return s.first_quartiles;
    case 'midpoints':
      return s.midpoints;
    case 'thirdQuartiles':
      return s.third_quartiles;
    case 'postbidImps':
      return s.postbid_imps;
    case 'postbidIvt':
      return s.postbid_ivt;
    case 'postbidIvtRate':
      return ratio(s.postbid_ivt, s.postbid_imps, 100);
    case 'profit':
      return s.revenue - s.cost;
    case 'margin':
      return ratio(s.revenue - s.cost, s.revenue, 100);
    case 'ecpm':
      return Math.round(ratio(s.revenue, s.imps, 1000));
    case 'fill':
      return ratio(s.imps, s.opps, 100);
    case 'sourceFill':
      return ratio(s.imps, s.source_opps, 100);
    case 'vtr':
      return ratio(s.completes, s.imps, 100);
    case 'ctr':
      return ratio(s.clicks, s.imps, 100);
    case 'systemCost':
      return Math.round(s.system_cost);
    default:
      return s[id];
  }
}

const ADDITIVE = METRIC_IDS.filter((m) => ['sum', 'difference'].includes(METRIC_BY_ID[m].compute.kind));

forEachStoreAndStatsEngine(
  (t, s) => {
    const p = publisherTenant(
      t,
      async (p) => {
        await p.create('brazil', 'targetings', { name: 'Brazil only', rules: { countries: { values: ['BR'] } } });
        await p.vastTag('fifty', 'Fifty, "the big one"', { answer: 'inline?price=50', price: { cpm: 50 } });
        await p.vastTag('twenty', 'Twenty', { answer: 'inline?price=20', price: { cpm: 20 } });
        await p.vastChannel('alpha', 'Alpha, "Prime"\nNews', { demand: ['fifty'], revshare: 50 });
        await p.vastChannel('beta', 'Beta', { demand: ['twenty'], revshare: 40, subpublisherId: t.users.sub!.id });
        await p.vastChannel('gamma', '=Gamma', { demand: ['fifty'], revshare: 50, targeting: 'brazil' });
      },
      { listen: false, vastDemand: true, statsEngine: s, signInFrom: freshAddress() },
    );

    const cookies: Record<string, string> = {};
    let tenant = 0;
    let prices: Prices;
    let raw: Raw[] = [];

    beforeAll(async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      for (const sent of TRAFFIC) {
        vi.setSystemTime(new Date(sent.at));
        const res = await edgeRequest(p.app, {
          method: 'GET',
          url: `/vast/${p.ids[sent.channel]!.uid}?w=640&h=360&ip=${sent.ip}`,
          headers: sent.ua ? { 'user-agent': sent.ua } : {},
        });
        expect(res.statusCode).toBe(200);
        const url = (re: RegExp) => {
          const m = re.exec(res.body);
          expect(m, `${sent.channel} at ${sent.at}: ${re}`).not.toBeNull();
          const u = m![1]!;
          return u.slice(u.indexOf('/ev'));
        };
        for (const e of sent.events ?? []) {
          const path = url(new RegExp(`<!\\[CDATA\\[([^\\s<>]*?/ev\\?e=${e}&[^\\s<>]*?)\\]\\]>`));
          expect((await edgeRequest(p.app, { method: 'GET', url: path })).statusCode).toBeLessThan(400);
        }
        for (const code of sent.errors ?? []) {
          const path = url(/<Error><!\[CDATA\[([^\s<>]*?\/ev\?e=error&[^\s<>]*?)\]\]><\/Error>/).replace(
            '[ERRORCODE]',
            code,
          );
          expect((await edgeRequest(p.app, { method: 'GET', url: path })).statusCode).toBe(200);
        }
      }
      await p.app.edge.flush();
      vi.setSystemTime(new Date(NOW));
      // the sessions read the same clock: the one made at setup is years past its lifetime now
      await p.signInAgain();
      for (const user of ['demand', 'admin', 'sub'])
        cookies[user] = await login(p.app, user, undefined, freshAddress());
      tenant = t.users.demand.id;
      // prices that make fractions of a micro-dollar: the system cost is still answered in whole micro-dollars
      await t.store.db
        .updateTable('users')
        .set({ price_req: 1234, price_imp: 56_789, price_postbid: 777 })
        .where('id', '=', tenant)
        .execute();
      const u = await t.store.db
        .selectFrom('users')
        .select(['price_req', 'price_imp', 'price_postbid', 'price_dsp'])
        .where('id', '=', tenant)
        .executeTakeFirstOrThrow();
      prices = {
        priceReq: Number(u.price_req),
        priceImp: Number(u.price_imp),
        pricePostbid: Number(u.price_postbid),
        priceDsp: Number(u.price_dsp),
      };
      raw = (await p.app.stats.select(`SELECT * FROM ${STATS_TABLE} WHERE tenant_id = ${tenant}`)).map((r) => {
        const out: Raw = { at: instant(r.hour) };
        for (const [k, v] of Object.entries(r)) if (k !== 'hour') out[k] = typeof v === 'string' ? v : Number(v);
        return out;
      });
    });
    afterAll(() => {
      vi.useRealTimers();
    });

    const rrun = (body: Record<string, unknown>, user = 'demand') =>
      as(p.app, cookies[user]!, { method: 'POST', url: '/api/rrun', payload: { ...ALL, ...body } });
    const rows = async (body: Record<string, unknown>, user = 'demand') => {
      const res = await rrun(body, user);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<Row[]>();
    };

    /** The oracle: the stored rows of the tenant grouped by `dims` in zone `tz` over local days start..end, with `filters`. */
    function oracle(req: {
      dimensions?: DimensionId[];
      metrics: MetricId[];
      timezone?: number;
      startDate?: string;
      endDate?: string;
      filters?: Record<string, (string | number)[]>;
      /** A subpublisher's revenue is its payout: the stored cost. */
      payout?: boolean;
    }) {
      const tz = req.timezone ?? 0;
      const start = req.startDate ?? ALL.startDate;
      const end = req.endDate ?? ALL.endDate;
      const dims = req.dimensions ?? [];
      // a report by demand (docs/reports.md, "Requests and fill by scope"): a demand row's requests and
      // opportunities are its own, and a request offered to no demand is counted on "No demand called"
      const isDemand = (d: string) => (DEMAND_DIMENSIONS as readonly string[]).includes(d);
      const byDemand =
        dims.some(isDemand) || Object.entries(req.filters ?? {}).some(([d, vs]) => vs.length > 0 && isDemand(d));
      const groups = new Map<string, { key: Row; sums: Record<string, number> }>();
      const totals: Record<string, number> = {};
      for (const r of raw) {
        const day = localDay(r.at, tz);
        if (day < start || day > end) continue;
        const requestRow = Number(r.tag_id) === 0 && Number(r.campaign_id) === 0 && Number(r.adexchange_id) === 0;
        const offered = Number(r.opps) > 0;
        // (a request offered to demand is counted on that demand's rows; the system cost keeps its fee)
        if (byDemand && requestRow && offered && !req.metrics.includes('systemCost')) continue;
        if (
          Object.entries(req.filters ?? {}).some(
            ([d, vs]) => vs.length > 0 && !vs.map(String).includes(String(r[DIMENSION_BY_ID[d as DimensionId].column])),
          )
        )
          continue;
        const key: Row = {};
        for (const d of dims)
          key[d] =
            d === 'date'
              ? day
              : d === 'hour'
                ? localHour(r.at, tz)
                : byDemand && requestRow && DIMENSION_BY_ID[d].type === 'entity' && isDemand(d)
                  ? NO_DEMAND_ID
                  : r[DIMENSION_BY_ID[d].column];
        const k = JSON.stringify(key);
        const g = groups.get(k) ?? { key, sums: {} };
        groups.set(k, g);
        const systemCost =
          (Number(r.reqs) * prices.priceReq +
            Number(r.imps) * prices.priceImp +
            Number(r.postbid_imps) * prices.pricePostbid) /
            1000 +
          (Number(r.campaign_id) > 0 ? (Number(r.revenue) * prices.priceDsp) / 100 : 0);
        const counted: Record<string, number> = {};
        for (const c of SUM_COLUMNS) counted[c] = Number(r[c]);
        if (byDemand) {
          counted.reqs = Number(r.source_reqs) + (offered ? 0 : Number(r.reqs));
          counted.opps = Number(r.source_opps);
          counted.ivt = offered ? 0 : Number(r.ivt);
        }
        for (const into of [g.sums, totals]) {
          for (const c of SUM_COLUMNS) into[c] = (into[c] ?? 0) + counted[c]!;
          into.system_cost = (into.system_cost ?? 0) + systemCost;
        }
      }
      for (const c of [...SUM_COLUMNS, 'system_cost']) totals[c] ??= 0;
      const withMetrics = (base: Row, sums: Record<string, number>) => {
        for (const m of req.metrics) base[m] = metricOf(m, req.payout ? { ...sums, revenue: sums.cost } : sums);
        return base;
      };
      return {
        groups: [...groups.values()].map((g) => ({ row: withMetrics({ ...g.key }, g.sums), sums: g.sums })),
        totals: withMetrics({ total: true }, totals),
        totalSums: totals,
      };
    }

    /** Compares an answer with the oracle, group by group (order aside), and the totals row. */
    function expectAnswer(
      answer: Row[],
      expected: ReturnType<typeof oracle>,
      dims: DimensionId[],
      metrics: MetricId[],
      what: string,
    ) {
      const total = answer.at(-1)!;
      expect(total.total, what).toBe(true);
      for (const m of metrics) expect(total[m], `${what}: totals ${m}`).toBeCloseTo(expected.totals[m] as number, 6);
      const body = answer.slice(0, -1);
      const keyOf = (r: Row) => JSON.stringify(dims.map((d) => r[d]));
      // a report without dimensions is its totals row alone
      const want = new Map(dims.length === 0 ? [] : expected.groups.map((g) => [keyOf(g.row), g.row]));
      expect(body.map(keyOf).sort(), what).toEqual([...want.keys()].sort());
      for (const r of body) {
        const w = want.get(keyOf(r))!;
        for (const m of metrics) expect(r[m], `${what}: ${keyOf(r)} ${m}`).toBeCloseTo(w[m] as number, 6);
        for (const m of metrics)
          if (METRIC_BY_ID[m].format !== 'percent')
            expect(Number.isInteger(r[m]), `${what}: ${keyOf(r)} ${m} = ${String(r[m])} is whole`).toBe(true);
      }
      // the groups add up to the totals row
      for (const m of ADDITIVE.filter((x) => dims.length > 0 && metrics.includes(x))) {
        expect(
          body.reduce((sum, r) => sum + Number(r[m]), 0),
          `${what}: groups of ${m} add up`,
        ).toBe(total[m]);
      }
    }

    const demandMetrics = METRIC_IDS;

    describe('what the edge counted is what was sent', () => {
      it('stores every request, impression, quartile, click and error of the traffic', () => {
        const want = {
          reqs: 0,
          imps: 0,
          starts: 0,
          first_quartiles: 0,
          midpoints: 0,
          third_quartiles: 0,
          completes: 0,
          clicks: 0,
          errors: 0,
          revenue: 0,
          cost: 0,
        };
        const col: Record<Ev, keyof typeof want> = {
          impression: 'imps',
          start: 'starts',
          firstQuartile: 'first_quartiles',
          midpoint: 'midpoints',
          thirdQuartile: 'third_quartiles',
          complete: 'completes',
          click: 'clicks',
        };
        for (const sent of TRAFFIC) {
          want.reqs++;
          // every event counts once per decision: a second click or error of one ad adds nothing
          for (const e of new Set(sent.events ?? [])) want[col[e]]++;
          if (sent.events?.includes('impression')) {
            want.revenue += PRICE[sent.channel].revenue;
            want.cost += PRICE[sent.channel].cost;
          }
          want.errors += sent.errors?.length ? 1 : 0;
        }
        const got = oracle({ metrics: [] }).totalSums;
        expect(Object.fromEntries(Object.keys(want).map((k) => [k, got[k]]))).toEqual(want);
      });
    });

    describe('POST /api/rrun', () => {
      it('answers every metric right from what was sent: totals, per UTC hour, per channel, per VAST error', async () => {
        const totals = (
          await rows({
            metrics: [
              'reqs',
              'imps',
              'starts',
              'firstQuartiles',
              'midpoints',
              'thirdQuartiles',
              'completes',
              'clicks',
              'errors',
              'revenue',
              'cost',
              'profit',
            ],
          })
        ).at(-1);
        expect(totals).toEqual({
          total: true,
          reqs: 16,
          imps: 10,
          starts: 6,
          firstQuartiles: 6,
          midpoints: 5,
          thirdQuartiles: 4,
          completes: 5,
          clicks: 3,
          errors: 5,
          revenue: 5 * 50_000 + 5 * 20_000,
          cost: 5 * 25_000 + 5 * 8_000,
          profit: 5 * 25_000 + 5 * 12_000,
        });
        const byHour = await rows({ dimensions: ['hour'], metrics: ['reqs', 'imps', 'clicks', 'errors'] });
        expect(byHour).toEqual([
          { hour: '2031-03-09 18:00', reqs: 4, imps: 3, clicks: 1, errors: 1 },
          { hour: '2031-03-09 19:00', reqs: 4, imps: 2, clicks: 1, errors: 1 },
          { hour: '2031-03-09 23:00', reqs: 3, imps: 1, clicks: 0, errors: 1 },
          { hour: '2031-03-10 00:00', reqs: 3, imps: 2, clicks: 0, errors: 1 },
          { hour: '2031-03-10 09:00', reqs: 2, imps: 2, clicks: 1, errors: 1 },
          { total: true, reqs: 16, imps: 10, clicks: 3, errors: 5 },
        ]);
        const byError = await rows({
          dimensions: ['vast_error'],
          metrics: ['errors'],
          sort: { by: 'vast_error', order: 'asc' },
        });
        expect(byError.filter((r) => Number(r.errors) > 0)).toEqual([
          { vast_error: '303', errors: 1 },
          { vast_error: '402', errors: 2 },
          { vast_error: '405', errors: 1 },
          { vast_error: '901', errors: 1 },
          { total: true, errors: 5 },
        ]);
        const byChannel = await rows({
          dimensions: ['channel'],
          metrics: ['reqs', 'imps', 'fill', 'ecpm', 'vtr', 'ctr', 'margin'],
          sort: { by: 'reqs', order: 'desc' },
        });
        const alpha = byChannel.find((r) => r.channel === p.ids.alpha!.id);
        expect(alpha).toMatchObject({
          channel_name: 'Alpha, "Prime"\nNews',
          reqs: 7,
          imps: 5,
          ecpm: 50_000_000,
          vtr: 40,
          ctr: 20,
          margin: 50,
        });
        const gamma = byChannel.find((r) => r.channel === p.ids.gamma!.id);
        // never filled, never offered: every ratio over a zero is 0
        expect(gamma).toMatchObject({ reqs: 4, imps: 0, fill: 0, ecpm: 0, vtr: 0, ctr: 0, margin: 0 });
      });

      it('answers every metric of every dimension like the stored rows, the groups adding up to the totals', async () => {
        for (const d of DIMENSION_IDS.filter((id) => id !== 'tenant')) {
          const answer = await rows({ dimensions: [d], metrics: demandMetrics });
          expectAnswer(answer, oracle({ dimensions: [d], metrics: demandMetrics }), [d], demandMetrics, `by ${d}`);
        }
        const admin = await rows(
          { dimensions: ['tenant', 'channel'], metrics: demandMetrics, filters: { tenant: [tenant] } },
          'admin',
        );
        expectAnswer(
          admin,
          oracle({ dimensions: ['tenant', 'channel'], metrics: demandMetrics }),
          ['tenant', 'channel'],
          demandMetrics,
          'admin by tenant, channel',
        );
        const pairs: DimensionId[][] = [
          ['date', 'channel'],
          ['hour', 'tag'],
          ['country', 'device', 'os'],
          ['channel', 'vast_error'],
          ['tag', 'nofill_reason'],
          ['subpublisher', 'advertiser', 'campaign'],
        ];
        for (const dims of pairs) {
          expectAnswer(
            await rows({ dimensions: dims, metrics: demandMetrics }),
            oracle({ dimensions: dims, metrics: demandMetrics }),
            dims,
            demandMetrics,
            `by ${dims.join(', ')}`,
          );
        }
      });

      it('keeps the totals row whole when the answer is cut by its limit or hides errors-only rows', async () => {
        for (const dims of [['channel', 'country'], ['vast_error'], ['hour', 'tag']] as DimensionId[][]) {
          const full = oracle({ dimensions: dims, metrics: demandMetrics });
          for (const body of [{ limit: 2 }, { hideErrors: true }, { limit: 1, hideErrors: true }]) {
            const answer = await rows({ dimensions: dims, metrics: demandMetrics, ...body });
            const total = answer.at(-1)!;
            for (const m of demandMetrics)
              expect(total[m], `${dims.join()} ${JSON.stringify(body)} totals ${m}`).toBeCloseTo(
                full.totals[m] as number,
                6,
              );
            const hidden = (sums: Record<string, number>) =>
              ['reqs', 'opps', 'source_reqs', 'imps', 'revenue', 'bids'].every((c) => sums[c] === 0);
            const kept = full.groups.filter((g) => !(body.hideErrors && hidden(g.sums)));
            expect(answer.length - 1, `${dims.join()} ${JSON.stringify(body)}`).toBe(
              Math.min(kept.length, body.limit ?? Infinity),
            );
          }
        }
        // errors-only rows exist: by VAST error, every code is an errors-only group
        const hidden = await rows({ dimensions: ['vast_error'], metrics: ['errors', 'imps'], hideErrors: true });
        expect(hidden.slice(0, -1).map((r) => r.vast_error)).toEqual(['']);
        expect(hidden.at(-1)).toEqual({ total: true, errors: 5, imps: 10 });
      });

      it('puts each hour in its local day and labels hours in local time, date ends inclusive (UTC+5, UTC-8, UTC-5)', async () => {
        for (const tz of [5, -8, -5, 12, -12]) {
          for (const dims of [['date'], ['hour'], ['date', 'channel'], ['hour', 'country']] as DimensionId[][]) {
            for (const range of [
              ALL,
              { startDate: '2031-03-09', endDate: '2031-03-09' },
              { startDate: '2031-03-10', endDate: '2031-03-10' },
            ]) {
              const answer = await rows({ ...range, timezone: tz, dimensions: dims, metrics: demandMetrics });
              expectAnswer(
                answer,
                oracle({ ...range, timezone: tz, dimensions: dims, metrics: demandMetrics }),
                dims,
                demandMetrics,
                `tz ${tz} ${dims.join()} ${range.startDate}..${range.endDate}`,
              );
            }
          }
        }
        // time dimensions sort both ways in local time
        for (const tz of [5, -8]) {
          for (const by of ['date', 'hour'] as const) {
            const want = oracle({ timezone: tz, dimensions: [by], metrics: ['reqs'] })
              .groups.map((g) => String(g.row[by]))
              .sort();
            const asc = await rows({ timezone: tz, dimensions: [by], metrics: ['reqs'], sort: { by, order: 'asc' } });
            expect(asc.slice(0, -1).map((r) => r[by])).toEqual(want);
            const desc = await rows({
              timezone: tz,
              dimensions: [by],
              metrics: ['reqs'],
              sort: { by, order: 'desc' },
              limit: 2,
            });
            expect(desc.slice(0, -1).map((r) => r[by])).toEqual([...want].reverse().slice(0, 2));
          }
        }
        // by hand: UTC+5 starts 2031-03-10 at 19:00 UTC of the 9th; UTC-8 ends the 9th at 08:00 UTC of the 10th
        const east = await rows({
          startDate: '2031-03-10',
          endDate: '2031-03-10',
          timezone: 5,
          dimensions: ['hour'],
          metrics: ['reqs'],
        });
        expect(east.map((r) => r.hour ?? 'total')).toEqual([
          '2031-03-10 00:00',
          '2031-03-10 04:00',
          '2031-03-10 05:00',
          '2031-03-10 14:00',
          'total',
        ]);
        expect(east.at(-1)).toEqual({ total: true, reqs: 12 });
        const west = await rows({
          startDate: '2031-03-09',
          endDate: '2031-03-09',
          timezone: -8,
          dimensions: ['date'],
          metrics: ['reqs'],
        });
        expect(west).toEqual([
          { date: '2031-03-09', reqs: 14 },
          { total: true, reqs: 14 },
        ]);
        // the same traffic adds up to the same totals in every zone over a range wide enough
        for (const tz of [-12, -8, 0, 5, 12])
          expect((await rows({ timezone: tz, metrics: ['reqs', 'imps'] })).at(-1)).toEqual({
            total: true,
            reqs: 16,
            imps: 10,
          });
      });

      it('combines filters: values of one dimension OR, different dimensions AND', async () => {
        const a = p.ids.alpha!.id;
        const b = p.ids.beta!.id;
        const cases: Record<string, (string | number)[]>[] = [
          { channel: [a, b] },
          { channel: [a], country: ['US'] },
          { channel: [String(a), b], country: ['US', 'GB'], device: ['mobile'] },
          { vast_error: ['402', '901'] },
          { vast_error: [402] },
          { tag: [p.ids.fifty!.id], channel: [b] },
          { country: ['FR'] },
          { channel: [] },
        ];
        for (const filters of cases) {
          for (const dims of [[], ['channel'], ['country', 'device']] as DimensionId[][]) {
            const answer = await rows({ dimensions: dims, metrics: demandMetrics, filters });
            expectAnswer(
              answer,
              oracle({ dimensions: dims, metrics: demandMetrics, filters }),
              dims,
              demandMetrics,
              `filters ${JSON.stringify(filters)} by ${dims.join()}`,
            );
          }
        }
      });

      it('sorts by every metric and dimension both ways, ties in dimension order, and honours the limit', async () => {
        const dims: DimensionId[] = ['channel', 'country', 'device'];
        const expected = oracle({ dimensions: dims, metrics: demandMetrics }).groups.map((g) => g.row);
        const cmp = (x: unknown, y: unknown) =>
          x === y ? 0 : (x as number | string) < (y as number | string) ? -1 : 1;
        const keyOf = (r: Row) => JSON.stringify(dims.map((d) => r[d]));
        for (const by of [...demandMetrics, ...dims]) {
          for (const order of ['asc', 'desc'] as const) {
            const sorted = [...expected].sort((x, y) => {
              const primary = cmp(x[by], y[by]) * (order === 'asc' ? 1 : -1);
              if (primary !== 0) return primary;
              for (const d of dims) if (d !== by && cmp(x[d], y[d]) !== 0) return cmp(x[d], y[d]);
              return 0;
            });
            const answer = (await rows({ dimensions: dims, metrics: demandMetrics, sort: { by, order } })).slice(0, -1);
            expect(answer.map(keyOf), `sort ${by} ${order}`).toEqual(sorted.map(keyOf));
            const cut = (await rows({ dimensions: dims, metrics: demandMetrics, sort: { by, order }, limit: 3 })).slice(
              0,
              -1,
            );
            expect(cut.map(keyOf), `sort ${by} ${order} limit 3`).toEqual(sorted.slice(0, 3).map(keyOf));
          }
        }
      });

      it("shows a subpublisher its channels' numbers only, its revenue being its payout", async () => {
        const sub = t.users.sub!.id;
        // what a subpublisher may see (docs/reports.md, "Who sees which numbers")
        const subMetrics: MetricId[] = [
          'reqs',
          'opps',
          'ivt',
          'imps',
          'starts',
          'firstQuartiles',
          'midpoints',
          'thirdQuartiles',
          'completes',
          'vtr',
          'clicks',
          'ctr',
          'errors',
          'postbidImps',
          'postbidIvt',
          'postbidIvtRate',
          'revenue',
          'ecpm',
          'fill',
        ];
        for (const dims of [[], ['channel'], ['hour', 'country']] as DimensionId[][]) {
          const answer = await rows({ dimensions: dims, metrics: subMetrics, timezone: -5 }, 'sub');
          const want = oracle({
            dimensions: dims,
            metrics: subMetrics,
            timezone: -5,
            filters: { subpublisher: [sub] },
            payout: true,
          });
          expectAnswer(answer, want, dims, subMetrics, `sub by ${dims.join()}`);
        }
        expect((await rows({ metrics: ['reqs'] }, 'sub')).at(-1)).toEqual({ total: true, reqs: 5 });
      });

      it('answers the system cost in whole micro-dollars, the groups and totals rounded from their sums', async () => {
        // 16 reqs x 1,234 / 1,000 + 10 imps x 56,789 / 1,000 = 587.634 micro-dollars
        const answer = await rows({ dimensions: ['channel'], metrics: ['systemCost'] });
        expect(answer.at(-1)).toEqual({ total: true, systemCost: 588 });
        for (const r of answer) expect(Number.isInteger(r.systemCost), String(r.systemCost)).toBe(true);
      });

      it('follows renames, and keeps the numbers of deleted entities', async () => {
        const edited = await p.edit('beta', { name: 'Beta, renamed' });
        expect(edited.statusCode, edited.body).toBe(200);
        const renamed = await rows({
          dimensions: ['channel'],
          metrics: ['reqs'],
          filters: { channel: [p.ids.beta!.id] },
        });
        expect(renamed[0]).toMatchObject({ channel: p.ids.beta!.id, channel_name: 'Beta, renamed', reqs: 5 });
        const deleted = await p.request({ method: 'DELETE', url: `/api/demand/channels/${p.ids.gamma!.id}` });
        expect(deleted.statusCode, deleted.body).toBeLessThan(300);
        const after = await rows({ dimensions: ['channel'], metrics: demandMetrics });
        expectAnswer(
          after,
          oracle({ dimensions: ['channel'], metrics: demandMetrics }),
          ['channel'],
          demandMetrics,
          'after a delete',
        );
        expect(after.find((r) => r.channel === p.ids.gamma!.id)).toMatchObject({ reqs: 4 });
      });
    });

    describe('CSV, dashboard, rowStats and finance', () => {
      // text that a spreadsheet would read as a formula gets a leading ' and quotes; numbers are written as they are
      const csvText = (v: unknown) => {
        if (typeof v === 'number') return String(v);
        const text = String(v ?? '');
        const formula = /^[=+\-@\t\r\0]/.test(text);
        const safe = formula ? `'${text}` : text;
        return formula || /[",;\t\n\r]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
      };
      const csvValue = (m: MetricId, v: number) => {
        const f = METRIC_BY_ID[m].format;
        return f === 'usd' ? (v / 1_000_000).toFixed(2) : f === 'percent' ? v.toFixed(2) : String(v);
      };
      const expectedCsv = (dims: DimensionId[], metrics: MetricId[], answer: Row[]) => {
        const header: string[] = [];
        for (const d of dims) {
          const def = DIMENSION_BY_ID[d];
          if (def.type === 'entity') header.push(`${def.label} Id`, def.label);
          else header.push(def.label);
        }
        header.push(...metrics.map((m) => METRIC_BY_ID[m].label));
        const lines = [header.map(csvText).join(',')];
        for (const r of answer) {
          const cells: string[] = [];
          for (const d of dims) {
            const entity = DIMENSION_BY_ID[d].type === 'entity';
            if (r.total) cells.push(cells.length === 0 ? 'Total' : '', ...(entity ? [''] : []));
            else cells.push(csvText(r[d]), ...(entity ? [csvText(r[`${d}_name`])] : []));
          }
          lines.push([...cells, ...metrics.map((m) => csvValue(m, r[m] as number))].join(','));
        }
        return `${lines.join('\n')}\n`;
      };
      const runFile = async (request: Record<string, unknown>) => {
        const started = await as(p.app, cookies.demand!, {
          method: 'POST',
          url: '/api/rfile',
          payload: { name: 'Audit file', request: { ...ALL, ...request } },
        });
        expect(started.statusCode, started.body).toBe(202);
        const { id } = started.json<{ id: number }>();
        let status = '';
        for (let i = 0; i < 200 && status !== 'ready' && status !== 'failed'; i++) {
          status = (await as(p.app, cookies.demand!, { method: 'GET', url: `/api/savedReport/${id}` })).json<{
            status: string;
          }>().status;
          if (status !== 'ready') await new Promise((r) => setTimeout(r, 25));
        }
        expect(status).toBe('ready');
        return (await as(p.app, cookies.demand!, { method: 'GET', url: `/api/savedFile/${id}` })).body;
      };

      it('writes report files with the numbers of the JSON, names quoted, totals last', async () => {
        const metrics: MetricId[] = [
          'reqs',
          'imps',
          'revenue',
          'cost',
          'profit',
          'margin',
          'ecpm',
          'fill',
          'vtr',
          'ctr',
          'errors',
          'systemCost',
        ];
        const requests: Record<string, unknown>[] = [
          { dimensions: ['channel', 'tag'], metrics },
          { dimensions: ['date', 'channel'], metrics, timezone: 5 },
          { dimensions: ['hour', 'country'], metrics, timezone: -8 },
          { dimensions: ['vast_error'], metrics, hideErrors: true },
          { dimensions: ['channel'], metrics, sort: { by: 'revenue', order: 'asc' }, limit: 2 },
          { dimensions: ['date'], metrics, sort: { by: 'date', order: 'asc' }, limit: 1 },
          { dimensions: [], metrics },
        ];
        for (const request of requests) {
          const json = await rows(request);
          const file = await runFile(request);
          expect(file, JSON.stringify(request)).toBe(expectedCsv(request.dimensions as DimensionId[], metrics, json));
        }
        const byChannel = await runFile({
          dimensions: ['channel'],
          metrics: ['reqs'],
          filters: { channel: [p.ids.alpha!.id] },
        });
        expect(byChannel).toBe(
          `Channel Id,Channel,Requests\n${p.ids.alpha!.id},"Alpha, ""Prime""\nNews",7\nTotal,,7\n`,
        );
      });

      it("keeps a request's limit in its file, as on screen", async () => {
        const request = { dimensions: ['channel'], metrics: ['reqs'], sort: { by: 'reqs', order: 'desc' }, limit: 1 };
        expect(await runFile(request)).toBe(
          `Channel Id,Channel,Requests\n${p.ids.alpha!.id},"Alpha, ""Prime""\nNews",7\nTotal,,16\n`,
        );
        const byDay = await runFile({ dimensions: ['date'], metrics: ['reqs'], limit: 1 });
        expect(byDay).toBe('Date,Requests\n2031-03-09,11\nTotal,16\n');
      });

      it('shows on the dashboard what a report of the same days shows', async () => {
        const d = (await as(p.app, cookies.demand!, { method: 'GET', url: '/api/dashboard' })).json<{
          today: string;
          yesterday: string;
          totals: Record<string, Row>;
          hours: Row[];
          days: Row[];
          topChannels: Row[];
        }>();
        expect([d.today, d.yesterday]).toEqual(['2031-03-10', '2031-03-09']);
        const metrics: MetricId[] = ['revenue', 'cost', 'profit', 'imps', 'fill', 'reqs', 'ecpm'];
        const day = (date: string) => oracle({ timezone: -5, startDate: date, endDate: date, metrics }).totals;
        const { total: _t1, ...today } = day('2031-03-10');
        const { total: _t2, ...yesterday } = day('2031-03-09');
        const { total: _t3, ...week } = oracle({
          timezone: -5,
          startDate: '2031-03-04',
          endDate: '2031-03-10',
          metrics,
        }).totals;
        expect(d.totals.today).toEqual({ total: true, ...today });
        expect(d.totals.yesterday).toEqual({ total: true, ...yesterday });
        expect(d.totals.last7).toEqual({ total: true, ...week });
        // 07:00 local: yesterday's 00:00..07:59 (UTC 05:00..12:59 of the 9th) holds none of the traffic
        const soFar = oracle({
          timezone: -5,
          startDate: '2031-03-09',
          endDate: '2031-03-09',
          metrics,
          dimensions: ['hour'],
        }).groups.filter((g) => String(g.row.hour).slice(11, 13) <= '07');
        expect(d.totals.yesterdaySoFar).toMatchObject({ imps: soFar.reduce((n, g) => n + g.sums.imps, 0) });
        const top = oracle({
          timezone: -5,
          startDate: '2031-03-04',
          endDate: '2031-03-10',
          dimensions: ['channel'],
          metrics: ['revenue', 'imps', 'fill'],
        })
          .groups.map((g) => g.row)
          .filter((r) => Number(r.channel) > 0)
          .sort((x, y) => Number(y.revenue) - Number(x.revenue) || Number(x.channel) - Number(y.channel));
        const hours = oracle({
          timezone: -5,
          startDate: '2031-03-09',
          endDate: '2031-03-10',
          dimensions: ['hour'],
          metrics: ['revenue', 'imps'],
        })
          .groups.map((g) => g.row)
          .sort((x, y) => String(x.hour).localeCompare(String(y.hour)));
        expect(d.hours).toEqual(hours);
        const days = oracle({
          timezone: -5,
          startDate: '2031-03-04',
          endDate: '2031-03-10',
          dimensions: ['date'],
          metrics: ['revenue', 'cost', 'profit', 'imps'],
        })
          .groups.map((g) => g.row)
          .sort((x, y) => String(x.date).localeCompare(String(y.date)));
        expect(d.days).toEqual(days);
        expect(d.topChannels.map((r) => [r.channel, r.revenue, r.imps, r.fill])).toEqual(
          top.slice(0, 5).map((r) => [r.channel, r.revenue, r.imps, r.fill]),
        );
      });

      it('answers rowStats as a report of the same local days', async () => {
        for (const [kind, dimension] of [
          ['channels', 'channel'],
          ['tags', 'tag'],
        ] as const) {
          for (const period of ['today', 'yesterday', 'last7'] as const) {
            const res = await as(p.app, cookies.demand!, {
              method: 'GET',
              url: `/api/rowStats?kind=${kind}&period=${period}`,
            });
            expect(res.statusCode, res.body).toBe(200);
            const answer = res.json<{
              startDate: string;
              endDate: string;
              timezone: number;
              metrics: MetricId[];
              rows: Record<string, Row>;
            }>();
            expect(answer.timezone).toBe(-5);
            const want: Record<string, Row> = {};
            for (const g of oracle({
              timezone: -5,
              startDate: answer.startDate,
              endDate: answer.endDate,
              dimensions: [dimension],
              metrics: answer.metrics,
            }).groups) {
              if (Number(g.row[dimension]) > 0)
                want[String(g.row[dimension])] = Object.fromEntries(answer.metrics.map((m) => [m, g.row[m]]));
            }
            expect(answer.rows, `${kind} ${period}`).toEqual(want);
            const some = Object.keys(want).slice(0, 1);
            const picked = await as(p.app, cookies.demand!, {
              method: 'GET',
              url: `/api/rowStats?kind=${kind}&period=${period}&ids=${[...some, '999999'].join(',')}`,
            });
            expect(picked.json<{ rows: Record<string, Row> }>().rows, `${kind} ${period} ids`).toEqual(
              Object.fromEntries(some.map((id) => [id, want[id]])),
            );
          }
        }
      });

      it('bills the month in the tenant zone, equal to the report of it', async () => {
        const res = await as(p.app, cookies.admin!, { method: 'GET', url: '/api/finance?month=2031-03' });
        expect(res.statusCode, res.body).toBe(200);
        const row = res.json<{ rows: Row[] }>().rows.find((r) => r.tenantId === tenant)!;
        const want = oracle({
          timezone: -5,
          startDate: '2031-03-01',
          endDate: '2031-03-10',
          metrics: ['reqs', 'imps', 'postbidImps', 'revenue', 'systemCost'],
        }).totals;
        expect(row).toMatchObject({
          reqs: want.reqs,
          imps: want.imps,
          postbidImps: want.postbidImps,
          revenue: want.revenue,
          systemCost: want.systemCost,
        });
      });
    });
  },
  { current: true },
);
