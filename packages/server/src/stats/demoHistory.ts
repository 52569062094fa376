import { type Kysely } from 'kysely';
import { resolvePartner } from '@adplane/shared';
import { type Database } from '../store/schema.js';
import { type EntityTables } from '../store/entityTables.js';
import { parseJson } from '../store/json.js';
import { type HourlyRow, METRIC_COLUMNS } from './hourlyRow.js';
import { STATS_TABLE, type StatsStore } from './statsStore.js';

/**
 * Thirty days of believable history for the demo workspace, written through the same StatsSink the
 * edge uses (hourly rows, in batches), so the dashboard, reports, finance and the fill funnel have
 * something to show on first start. Deterministic (a seeded generator): the same workspace gets the
 * same numbers. Shapes: an evening peak, quieter weekends, programmatic tags carry marketplace
 * revenue, some no-fill and VAST-error rows per hour.
 */
const DEMO_HISTORY_DAYS = 30;

/** mulberry32: small, fast, good enough for demo numbers. */
function generator(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COUNTRIES: [string, string, string][] = [
  ['US', 'NAM', 'CA'],
  ['US', 'NAM', 'NY'],
  ['US', 'NAM', 'TX'],
  ['GB', 'EMEA', ''],
  ['DE', 'EMEA', ''],
  ['CA', 'NAM', ''],
];
const DEVICES: [string, string, string][] = [
  ['SmartTV', 'Roku', 'Roku'],
  ['SmartTV', 'Tizen', 'Samsung Internet'],
  ['Mobile', 'iOS', 'Safari'],
  ['Mobile', 'Android', 'Chrome'],
  ['Desktop', 'Windows', 'Chrome'],
  ['Desktop', 'macOS', 'Safari'],
];
const NOFILL_REASONS = ['no_bid', 'timeout', 'below_floor', 'targeting', 'pacing'];
const VAST_ERRORS = ['303', '402', '900'];
const BUNDLES = ['com.harbor.tv', 'com.lakeside.stream', 'tv.pinecrest.sports', ''];
const DOMAINS = ['harborvideo.test', 'pinecrestsports.test', 'dailyharbor.test', ''];

interface DemoTag {
  id: number;
  advId: number;
  integration: string;
  partner: string;
  name: string;
}
interface DemoChannel {
  id: number;
  subId: number;
  integration: string;
  tagIds: number[];
}

async function inventoryOf(db: Kysely<Database>, tenantId: number) {
  const t = db.withTables<EntityTables>();
  const channels = await t
    .selectFrom('supply_channels')
    .select(['id', 'sub_id', 'data'])
    .where('tenant_id', '=', tenantId)
    .where('archived', '=', 0)
    .execute();
  const tags = await t
    .selectFrom('demand_tags')
    .select(['id', 'adv_id', 'name', 'data'])
    .where('tenant_id', '=', tenantId)
    .where('archived', '=', 0)
    .execute();
  const campaigns = await t
    .selectFrom('campaigns')
    .select(['id', 'adv_id', 'data'])
    .where('tenant_id', '=', tenantId)
    .execute();
  const deals = await t.selectFrom('deals').select(['id', 'data']).where('tenant_id', '=', tenantId).execute();
  const dealIds = new Map(deals.map((d) => [Number(d.id), parseJson<{ dealId?: string }>(d.data, {}).dealId ?? '']));
  const exchanges = await t
    .selectFrom('ad_exchanges')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .execute();
  const demoTags: DemoTag[] = tags.map((r) => {
    const d = parseJson<{ integration?: string; partner?: string }>(r.data, {});
    return {
      id: Number(r.id),
      advId: Number(r.adv_id ?? 0),
      integration: d.integration ?? 'VAST',
      partner: d.partner ?? '',
      name: r.name,
    };
  });
  const demoChannels: DemoChannel[] = channels.map((r) => {
    const d = parseJson<{ integration?: string; demand?: { tagId: number }[] }>(r.data, {});
    const linked = (d.demand ?? []).map((x) => x.tagId).filter((id) => demoTags.some((tag) => tag.id === id));
    return {
      id: Number(r.id),
      subId: Number(r.sub_id ?? 0),
      integration: d.integration ?? 'VAST',
      tagIds: linked.length > 0 ? linked : demoTags.slice(0, 2).map((x) => x.id),
    };
  });
  // A campaign's wins carry its first creative, supplier and deal, so that those lists have numbers too.
  const demoCampaigns = campaigns.map((c) => {
    const d = parseJson<{ creativeIds?: number[]; supplierIds?: number[]; dealIds?: number[] }>(c.data, {});
    return {
      id: Number(c.id),
      advId: Number(c.adv_id ?? 0),
      creativeId: d.creativeIds?.[0] ?? 0,
      supplierId: d.supplierIds?.[0] ?? 0,
      dealId: dealIds.get(d.dealIds?.[0] ?? 0) ?? '',
    };
  });
  return {
    channels: demoChannels,
    tags: demoTags,
    campaigns: demoCampaigns,
    exchanges: exchanges.map((e) => ({ id: Number(e.id), name: e.name })),
  };
}

const blank = (hour: string, tenant: number): HourlyRow => ({
  hour,
  tenant_id: tenant,
  channel_id: 0,
  subpublisher_id: 0,
  tag_id: 0,
  partner: '',
  advertiser_id: 0,
  campaign_id: 0,
  creative_id: 0,
  supplier_id: 0,
  adexchange_id: 0,
  deal_id: '',
  marketplace_name: '',
  country: '',
  region: '',
  us_state: '',
  device: '',
  os: '',
  browser: '',
  app_bundle: '',
  domain: '',
  publisher_id: '',
  integration: '',
  vast_error: '',
  nofill_reason: '',
  reqs: 0,
  opps: 0,
  demand_calls: 0,
  responses: 0,
  timeouts: 0,
  bids: 0,
  wins: 0,
  imps: 0,
  starts: 0,
  first_quartiles: 0,
  midpoints: 0,
  third_quartiles: 0,
  completes: 0,
  clicks: 0,
  errors: 0,
  ivt: 0,
  postbid_imps: 0,
  revenue: 0,
  cost: 0,
  rev_m: 0,
  rev_md: 0,
  source_reqs: 0,
  source_opps: 0,
  postbid_ivt: 0,
});

const zeroCounts = Object.fromEntries(METRIC_COLUMNS.map((c) => [c, 0])) as Pick<
  HourlyRow,
  (typeof METRIC_COLUMNS)[number]
>;

/** Hourly rows of one tenant for the hours [from, from + hours). */
function demoRows(
  tenantId: number,
  inv: Awaited<ReturnType<typeof inventoryOf>>,
  from: number,
  hours: number,
): HourlyRow[] {
  const random = generator(tenantId * 7919 + Math.floor(from / 3_600_000));
  const int = (n: number) => Math.max(0, Math.round(n));
  const rows: HourlyRow[] = [];
  for (let h = 0; h < hours; h++) {
    const at = new Date(from + h * 3_600_000);
    const hour = at.toISOString().slice(0, 13).replace('T', ' ') + ':00:00';
    // US evening peak (UTC 00-04), weekends 30% lower.
    const curve = 0.45 + 0.55 * Math.sin(((at.getUTCHours() + 6) / 24) * Math.PI) ** 2;
    const weekday = at.getUTCDay() === 0 || at.getUTCDay() === 6 ? 0.7 : 1;
    for (const channel of inv.channels) {
      for (const tagId of channel.tagIds.slice(0, 3)) {
        const tag = inv.tags.find((x) => x.id === tagId)!;
        const [country, region, state] = COUNTRIES[Math.floor(random() * COUNTRIES.length)];
        const [device, os, browser] = DEVICES[Math.floor(random() * DEVICES.length)];
        const programmatic = tag.integration !== 'VAST';
        const reqs = int((900 + random() * 1600) * curve * weekday);
        const ivt = int(reqs * (0.01 + random() * 0.03));
        const opps = int((reqs - ivt) * (0.85 + random() * 0.1));
        const calls = opps;
        const responses = int(calls * (0.75 + random() * 0.2));
        const timeouts = int((calls - responses) * 0.5);
        const bids = int(responses * (0.35 + random() * 0.3));
        const wins = int(bids * (0.55 + random() * 0.3));
        const imps = int(wins * (0.88 + random() * 0.1));
        const cpm = (programmatic ? 6 : 11) + random() * 9;
        const revenue = int(imps * cpm * 1000);
        const campaign = inv.campaigns.find((c) => c.advId === tag.advId && tag.advId > 0);
        const exchange = programmatic && inv.exchanges.length > 0 ? inv.exchanges[tagId % inv.exchanges.length] : null;
        const dealShare = programmatic && random() < 0.4 ? 0.2 + random() * 0.3 : 0;
        const row: HourlyRow = {
          ...blank(hour, tenantId),
          channel_id: channel.id,
          subpublisher_id: channel.subId,
          tag_id: tag.id,
          partner: tag.partner,
          advertiser_id: tag.advId,
          campaign_id: campaign?.id ?? 0,
          creative_id: campaign?.creativeId ?? 0,
          supplier_id: campaign?.supplierId ?? 0,
          adexchange_id: exchange?.id ?? 0,
          deal_id: campaign?.dealId || (dealShare > 0 ? `deal-${tenantId}-${tag.id}` : ''),
          // as the edge names it: a Prebid partner by its name in the catalogue (not its id), an exchange, a tag
          marketplace_name: programmatic
            ? (tag.partner && (resolvePartner(tag.partner)?.partner.name ?? tag.partner)) || exchange?.name || tag.name
            : '',
          country,
          region,
          us_state: country === 'US' ? state : '',
          device,
          os,
          browser,
          app_bundle: device === 'Desktop' ? '' : BUNDLES[tag.id % BUNDLES.length],
          domain: device === 'Desktop' ? DOMAINS[channel.id % DOMAINS.length] : '',
          publisher_id: `pub-${channel.subId || channel.id}`,
          integration: tag.integration,
          // As the edge counts: each request lands on one row, '' when it filled, else its no-fill reason row below.
          // The tag was considered for each of this channel's requests (source_reqs, with the same reasons)
          // and offered each opportunity (source_opps, then called).
          reqs: imps,
          opps: imps,
          source_reqs: imps,
          source_opps: imps,
          demand_calls: calls,
          responses,
          timeouts,
          bids,
          wins,
          imps,
          starts: int(imps * 0.96),
          first_quartiles: int(imps * 0.9),
          midpoints: int(imps * 0.82),
          third_quartiles: int(imps * 0.76),
          completes: int(imps * 0.7),
          clicks: int(imps * (0.002 + random() * 0.008)),
          ivt,
          postbid_imps: int(imps * 0.1),
          // the vendors' verdicts on those: 2-8% flagged, varying by tag (no extra draw: the history stays as it was)
          postbid_ivt: int(imps * 0.1 * (0.02 + (tag.id % 7) / 100)),
          revenue,
          cost: int(revenue * (0.5 + random() * 0.15)),
          rev_m: programmatic ? revenue : 0,
          rev_md: int(programmatic ? revenue * dealShare : 0),
        };
        rows.push(row);
        // Why it did not fill (each unfilled request on one reason row), and the players' VAST errors.
        const unfilledReqs = reqs - imps;
        const unfilledOpps = opps - imps;
        const reason = NOFILL_REASONS[Math.floor(random() * NOFILL_REASONS.length)];
        // Same context as the served row (geo, device, app...), counts only what the reason row is about.
        const context = { ...row, ...zeroCounts };
        const reasonReqs = int(unfilledReqs * 0.6);
        const reasonOpps = int(unfilledOpps * 0.6);
        rows.push({
          ...context,
          nofill_reason: reason,
          reqs: reasonReqs,
          opps: reasonOpps,
          source_reqs: reasonReqs,
          source_opps: reasonOpps,
        });
        rows.push({
          ...context,
          nofill_reason: 'no_bid',
          reqs: unfilledReqs - reasonReqs,
          opps: unfilledOpps - reasonOpps,
          source_reqs: unfilledReqs - reasonReqs,
          source_opps: unfilledOpps - reasonOpps,
        });
        if (random() < 0.5)
          rows.push({
            ...context,
            vast_error: VAST_ERRORS[Math.floor(random() * VAST_ERRORS.length)],
            errors: int(1 + random() * imps * 0.02),
          });
      }
    }
  }
  return rows;
}

/** Write the demo history once: only into an empty stats store, up to the current hour. */
export async function writeDemoHistoryIfEmpty(stats: StatsStore, db: Kysely<Database>, now: number): Promise<number> {
  const [{ n }] = await stats.select(`SELECT count(*) AS n FROM ${STATS_TABLE}`);
  if (Number(n) > 0) return 0;
  const tenants = await db
    .selectFrom('users')
    .select('id')
    .where('type', '=', 'demand')
    .where('manager_id', 'is', null)
    .execute();
  const end = Math.floor(now / 3_600_000) * 3_600_000;
  const start = end - DEMO_HISTORY_DAYS * 24 * 3_600_000;
  let written = 0;
  for (const { id } of tenants) {
    const inv = await inventoryOf(db, Number(id));
    if (inv.channels.length === 0 || inv.tags.length === 0) continue;
    for (let from = start; from <= end; from += 24 * 3_600_000) {
      const rows = demoRows(Number(id), inv, from, Math.min(24, (end - from) / 3_600_000 + 1));
      await stats.write(rows);
      written += rows.length;
    }
  }
  return written;
}
