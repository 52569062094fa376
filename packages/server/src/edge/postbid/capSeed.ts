import { ROLLUP_TABLE } from '../../stats/rollup.js';
import { type StatsStore } from '../../stats/statsStore.js';
import { type PostbidCap } from './postbidCap.js';

/**
 * Starts the monthly cap's counts from the stats store when the edge starts: each account's post-bid
 * impressions of this calendar month (UTC) so far, so a restart mid-month does not hand an account a
 * new month's worth (counters not yet flushed before the restart are the margin). A store that
 * cannot answer leaves the counts at 0 and says so in the log: the edge starts anyway.
 */
export async function seedPostbidCap(cap: PostbidCap, stats: Pick<StatsStore, 'select'> | null, log: { warn(obj: object, msg: string): void }, now = Date.now()): Promise<number> {
  if (!stats) return 0;
  const month = new Date(now).toISOString().slice(0, 7);
  try {
    const rows = await stats.select(`SELECT tenant_id, sum(postbid_imps) AS n FROM ${ROLLUP_TABLE} WHERE hour >= '${month}-01 00:00:00' GROUP BY tenant_id`);
    for (const r of rows) cap.seed(Number(r.tenant_id), Number(r.n ?? 0), month, now);
    return rows.length;
  } catch (err) {
    log.warn({ err }, 'post-bid cap: the month so far could not be read from the stats store; counting from 0');
    return 0;
  }
}
