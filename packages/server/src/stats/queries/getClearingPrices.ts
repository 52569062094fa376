import { type ClearingPriceCell } from '@adplane/shared';
import { STATS_TABLE, type StatsStore } from '../statsStore.js';

const HOUR_MS = 3_600_000;

/** The stats table's hour bucket of an instant, 'YYYY-MM-DD HH:00:00' (UTC). */
const hourText = (ms: number): string => `${new Date(ms).toISOString().slice(0, 13).replace('T', ' ')}:00:00`;

/**
 * The clearing prices of channels' impressions over the `windowHours` whole hours before the hour of
 * `now`, per country and device (docs/ad-server.md, "Dynamic floors"). The stats store keeps sums,
 * not each impression's price: a group here is one demand's impressions in one hour (a demand tag,
 * campaign, ad exchange or deal, on one channel, country and device), at their average price
 * (revenue / impressions), so a percentile over the groups weighted by their impressions is exact
 * where each demand cleared at one price in an hour and close where it varied.
 */
export async function getClearingPrices(
  stats: Pick<StatsStore, 'select'>,
  channelIds: readonly number[],
  windowHours: number,
  now: number,
): Promise<Map<number, ClearingPriceCell[]>> {
  const out = new Map<number, ClearingPriceCell[]>(channelIds.map((id) => [id, []]));
  const ids = channelIds.filter((id) => Number.isSafeInteger(id) && id > 0);
  if (!ids.length) return out;
  const to = Math.floor(now / HOUR_MS) * HOUR_MS;
  const from = to - windowHours * HOUR_MS;
  const rows = await stats.select(
    // aliases differ from the columns: ClickHouse would read an alias named as a column in WHERE
    `SELECT channel_id, country, device, sum(imps) AS won, sum(revenue) AS paid FROM ${STATS_TABLE}` +
      ` WHERE channel_id IN (${ids.join(', ')}) AND hour >= '${hourText(from)}' AND hour < '${hourText(to)}' AND imps > 0` +
      ' GROUP BY channel_id, country, device, hour, tag_id, campaign_id, adexchange_id, deal_id',
  );
  for (const r of rows) {
    const impressions = Number(r.won);
    if (!(impressions > 0)) continue;
    out.get(Number(r.channel_id))?.push({
      country: String(r.country ?? ''),
      device: String(r.device ?? ''),
      impressions,
      // revenue is micro-dollars per impression summed: times 1,000 over the impressions is the CPM
      cpm: (Number(r.paid) * 1000) / impressions,
    });
  }
  return out;
}
