import { type Kysely } from 'kysely';
import { flightWindow, inFlight, resolvePartner } from '@adplane/shared';
import { type Database } from '../store/schema.js';
import { type EntityTables } from '../store/entityTables.js';
import { parseJson } from '../store/json.js';
import { type HourlyRow } from './hourlyRow.js';
import { STATS_TABLE, type StatsStore } from './statsStore.js';

/**
 * Thirty days of believable history for the demo workspace, written through the same StatsSink the
 * edge uses (hourly rows, in batches), so the dashboard, reports, finance and the fill funnel have
 * something to show on first start. Deterministic (a seeded generator): the same workspace gets the
 * same numbers. Shapes: an evening peak, quieter weekends, programmatic tags carry marketplace
 * revenue, some no-fill and VAST-error rows per hour. Rows as the edge writes them: each request on
 * its channel's row of its outcome, each demand tag's fate on rows of its own, impressions on the
 * rows of the demand that served them (adDecision.ts, trackingEvents.ts). History respects what the seeded
 * rows say today: a paused or archived channel, tag, campaign, creative, supplier, exchange or deal has
 * none (the demo never says when it was paused, so it is taken as never having served), a campaign or
 * deal delivers only inside its flight, and a creative waiting for approval never served.
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
/** Why a demand tag was not called: its own rules and caps, or a waterfall that filled before it. */
const NOFILL_REASONS = ['targeting.country', 'targeting.device', 'qps_limit', 'daily_request_cap', 'filled_earlier'];
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
  // only rows that are active now: a paused or archived row is taken as never having served
  const channels = await t
    .selectFrom('supply_channels')
    .select(['id', 'sub_id', 'data'])
    .where('tenant_id', '=', tenantId)
    .where('archived', '=', 0)
    .where('status', '<>', 0)
    .execute();
  const tags = await t
    .selectFrom('demand_tags')
    .select(['id', 'adv_id', 'name', 'data'])
    .where('tenant_id', '=', tenantId)
    .where('archived', '=', 0)
    .where('status', '<>', 0)
    .execute();
  const campaigns = await t
    .selectFrom('campaigns')
    .select(['id', 'adv_id', 'data'])
    .where('tenant_id', '=', tenantId)
    .where('archived', '=', 0)
    .where('status', '<>', 0)
    .execute();
  const active = (table: 'creatives' | 'suppliers' | 'deals' | 'ad_exchanges') =>
    t
      .selectFrom(table)
      .select(['id', 'name', 'data'])
      .where('tenant_id', '=', tenantId)
      .where('archived', '=', 0)
      .where('status', '<>', 0)
      .execute();
  const tenant = await db.selectFrom('users').select('timezone').where('id', '=', tenantId).executeTakeFirst();
  const timezone = Number(tenant?.timezone ?? 0);
  // a creative serves once approved
  const servable = new Set(
    (await active('creatives'))
      .filter((c) => parseJson<{ approval?: string }>(c.data, {}).approval === 'approved')
      .map((c) => Number(c.id)),
  );
  const suppliers = new Set((await active('suppliers')).map((s) => Number(s.id)));
  // deal dates are whole UTC days, as the edge reads them (edge/snapshot/programmatic.ts)
  const deals = new Map(
    (await active('deals')).map((d) => {
      const data = parseJson<{ dealId?: string; startDate?: string | null; endDate?: string | null }>(d.data, {});
      return [
        Number(d.id),
        { dealId: data.dealId ?? '', flight: flightWindow(data.startDate ?? null, data.endDate ?? null, 0) },
      ];
    }),
  );
  const exchanges = await active('ad_exchanges');
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
  // A campaign's wins carry its first approved creative and active deal, its requests its first active supplier, so
  // that those lists have numbers too; a campaign with no approved creative never served, and it serves only in its
  // flight (whole days in the tenant's time zone, as the edge reads them).
  const demoCampaigns = campaigns.flatMap((c) => {
    const d = parseJson<{
      creativeIds?: number[];
      supplierIds?: number[];
      dealIds?: number[];
      startDate?: string;
      endDate?: string | null;
    }>(c.data, {});
    const creativeId = (d.creativeIds ?? []).find((id) => servable.has(id));
    if (creativeId === undefined || !d.startDate) return [];
    const deal = (d.dealIds ?? []).map((id) => deals.get(id)).find((x) => x !== undefined);
    return [
      {
        id: Number(c.id),
        advId: Number(c.adv_id ?? 0),
        creativeId,
        supplierId: (d.supplierIds ?? []).find((id) => suppliers.has(id)) ?? 0,
        deal,
        flight: flightWindow(d.startDate, d.endDate ?? null, timezone),
      },
    ];
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
  arm: '',
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
  deal_reqs: 0,
});

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
      const tags = channel.tagIds.slice(0, 3).map((id) => inv.tags.find((x) => x.id === id)!);
      const [country, region, state] = COUNTRIES[Math.floor(random() * COUNTRIES.length)];
      const [device, os, browser] = DEVICES[Math.floor(random() * DEVICES.length)];
      // The request's own columns, on every row of this channel's hour (as one decision's rows share them).
      const request: HourlyRow = {
        ...blank(hour, tenantId),
        channel_id: channel.id,
        subpublisher_id: channel.subId,
        country,
        region,
        us_state: country === 'US' ? state : '',
        device,
        os,
        browser,
        app_bundle: device === 'Desktop' ? '' : BUNDLES[channel.id % BUNDLES.length],
        domain: device === 'Desktop' ? DOMAINS[channel.id % DOMAINS.length] : '',
        publisher_id: `pub-${channel.subId || channel.id}`,
        integration: channel.integration,
      };
      // Requests: each counted once, on the channel's row of its outcome (as the edge counts them): filled
      // (''), offered to demand without a fill (no_bid), or offered to none (no_demand).
      const reqs = int((2000 + random() * 3000) * curve * weekday);
      const ivt = int(reqs * (0.01 + random() * 0.03));
      const offered = int((reqs - ivt) * (0.85 + random() * 0.1));
      // The requests that filled: the auction's winners, most of them a demand tag's, some our campaigns'.
      const filled = int(offered * (0.2 + random() * 0.25));
      const live = inv.campaigns.filter((c) => inFlight(c.flight, at.getTime()));
      const campaign = live.length > 0 ? live[(channel.id + h) % live.length]! : undefined;
      const campaignWins = campaign ? int(filled * (0.1 + random() * 0.1)) : 0;
      // the requests our campaign won came from its supplier (an OpenRTB bid request): a request row of their own
      const supplied: HourlyRow | null =
        campaign && campaignWins > 0 ? { ...request, supplier_id: campaign.supplierId, integration: 'RTB' } : null;
      if (supplied) rows.push({ ...supplied, reqs: campaignWins, opps: campaignWins });
      rows.push(
        { ...request, reqs: filled - campaignWins, opps: filled - campaignWins, ivt: int(ivt * 0.3) },
        { ...request, nofill_reason: 'no_bid', reqs: offered - filled, opps: offered - filled },
        { ...request, nofill_reason: 'no_demand', reqs: reqs - offered, ivt: ivt - int(ivt * 0.3) },
      );
      // Each demand tag: considered for every request offered to demand, its fate on its own rows.
      let tagWinsLeft = filled - campaignWins;
      tags.forEach((tag, i) => {
        const programmatic = tag.integration !== 'VAST';
        const dealShare = programmatic && random() < 0.4 ? 0.2 + random() * 0.3 : 0;
        // the ids a tag's rows carry, as the edge names them: a Prebid partner by its name in the catalogue (not its id)
        const demand: HourlyRow = {
          ...request,
          tag_id: tag.id,
          partner: tag.partner ? (resolvePartner(tag.partner)?.partner.id ?? tag.partner) : '',
          advertiser_id: tag.advId,
          marketplace_name: programmatic
            ? (tag.partner && (resolvePartner(tag.partner)?.partner.name ?? tag.partner)) || tag.name
            : '',
        };
        const refused = int(offered * (0.05 + random() * 0.1));
        const called = offered - refused;
        const timeouts = int(called * (0.03 + random() * 0.07));
        const answered = called - timeouts;
        const wins = i === tags.length - 1 ? tagWinsLeft : Math.min(tagWinsLeft, int(filled * (0.3 + random() * 0.2)));
        tagWinsLeft -= wins;
        const bids = Math.min(answered, wins + int((answered - wins) * (0.2 + random() * 0.3)));
        const imps = int(wins * (0.88 + random() * 0.1));
        const cpm = (programmatic ? 6 : 11) + random() * 9;
        const revenue = int(imps * cpm * 1000);
        const deal = dealShare > 0 ? `deal-${tenantId}-${tag.id}` : '';
        rows.push(
          // won or lost the auction (''), answered without a bid, timed out, refused by its own rules
          { ...demand, source_reqs: bids, source_opps: bids, demand_calls: bids, responses: bids, bids, wins },
          {
            ...demand,
            nofill_reason: 'no_bid',
            source_reqs: Math.max(0, answered - bids),
            source_opps: Math.max(0, answered - bids),
            demand_calls: Math.max(0, answered - bids),
            responses: Math.max(0, answered - bids),
          },
          {
            ...demand,
            nofill_reason: 'timeout',
            source_reqs: timeouts,
            source_opps: timeouts,
            demand_calls: timeouts,
            timeouts,
          },
          {
            ...demand,
            nofill_reason: NOFILL_REASONS[Math.floor(random() * NOFILL_REASONS.length)],
            source_reqs: refused,
          },
          // its impressions and the player's events, on the rows of the demand that served them
          {
            ...demand,
            deal_id: deal,
            imps,
            starts: int(imps * 0.96),
            first_quartiles: int(imps * 0.9),
            midpoints: int(imps * 0.82),
            third_quartiles: int(imps * 0.76),
            completes: int(imps * 0.7),
            clicks: int(imps * (0.002 + random() * 0.008)),
            postbid_imps: int(imps * 0.1),
            // the vendors' verdicts on those: 2-8% flagged, varying by tag
            postbid_ivt: int(imps * 0.1 * (0.02 + (tag.id % 7) / 100)),
            revenue,
            cost: int(revenue * (0.5 + random() * 0.15)),
            rev_m: programmatic ? revenue : 0,
            rev_md: int(programmatic ? revenue * dealShare : 0),
            // the calls whose bid request offered the deal: each call of the tag, in the demo
            deal_reqs: deal ? called : 0,
          },
        );
        if (random() < 0.5)
          rows.push({
            ...demand,
            vast_error: VAST_ERRORS[Math.floor(random() * VAST_ERRORS.length)],
            errors: int(1 + random() * imps * 0.02),
          });
      });
      // Our campaign's wins (with the creative it served) and its impressions, on its own rows; an ad
      // exchange considered for the same requests bids on some of them and loses.
      if (campaign && supplied) {
        const exchange = inv.exchanges.length > 0 ? inv.exchanges[(channel.id + h) % inv.exchanges.length]! : null;
        if (exchange) {
          const bids = int(campaignWins * (0.3 + random() * 0.3));
          rows.push({
            ...supplied,
            adexchange_id: exchange.id,
            marketplace_name: exchange.name,
            source_reqs: campaignWins,
            source_opps: campaignWins,
            demand_calls: campaignWins,
            responses: campaignWins,
            bids,
          });
        }
        const bought: HourlyRow = {
          ...supplied,
          campaign_id: campaign.id,
          creative_id: campaign.creativeId,
          advertiser_id: campaign.advId,
          deal_id: campaign.deal && inFlight(campaign.deal.flight, at.getTime()) ? campaign.deal.dealId : '',
        };
        const imps = int(campaignWins * (0.9 + random() * 0.08));
        const revenue = int(imps * (9 + random() * 8) * 1000);
        rows.push(
          { ...bought, bids: campaignWins, wins: campaignWins },
          {
            ...bought,
            imps,
            starts: int(imps * 0.95),
            first_quartiles: int(imps * 0.9),
            midpoints: int(imps * 0.84),
            third_quartiles: int(imps * 0.78),
            completes: int(imps * 0.72),
            clicks: int(imps * (0.003 + random() * 0.008)),
            revenue,
            cost: int(revenue * (0.55 + random() * 0.1)),
          },
        );
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
