import { ROLLUP_TABLE } from '../../stats/rollup.js';
import { type StatsStore } from '../../stats/statsStore.js';
import { type PostbidCap } from '../postbid/postbidCap.js';

/**
 * Raises the monthly cap's counts to the stats store's: each account's post-bid impressions of this
 * calendar month (UTC) so far, when the edge starts (so a restart mid-month does not hand an account
 * a new month's worth; counters not yet flushed before the restart are the margin) and every minute
 * after (edge processes that share no counters, nodes without Redis, see each other's impressions
 * through the store). Never lowers a count. A store that cannot answer leaves the counts as they are
 * and says so in the log: the edge starts anyway.
 */
export async function seedPostbidCap(
  cap: PostbidCap,
  stats: Pick<StatsStore, 'select'> | null,
  log: { warn(obj: object, msg: string): void },
  now: number,
): Promise<number> {
  if (!stats) return 0;
  const month = new Date(now).toISOString().slice(0, 7);
  try {
    const rows = await stats.select(
      `SELECT tenant_id, sum(postbid_imps) AS n FROM ${ROLLUP_TABLE} WHERE hour >= '${month}-01 00:00:00' GROUP BY tenant_id`,
    );
    const postbid = rows
      .map((r) => ({ tenantId: Number(r.tenant_id), count: Number(r.n ?? 0) }))
      .filter((p) => p.count > 0);
    await cap.delivery.raiseCounts({ campaigns: [], tags: [], postbid }, now);
    return rows.length;
  } catch (err) {
    log.warn(
      { err },
      'post-bid cap: the month so far could not be read from the stats store (or raised in the delivery counters); counting from what they hold',
    );
    return 0;
  }
}
