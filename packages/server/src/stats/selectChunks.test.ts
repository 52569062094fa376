import { beforeAll, expect, it } from 'vitest';
import { forEachStatsEngineAndCurrent, statsRow } from '../../test/statsEngines.js';
import { selectInChunks, STATS_TABLE } from './statsStore.js';

/** A report file's rows come a chunk at a time (selectChunks): the same rows as one select, in bounded chunks, and a query left early ends. */
forEachStatsEngineAndCurrent((t) => {
  const ROWS = 5000;
  const sql = `SELECT channel_id, sum(imps) AS imps FROM ${STATS_TABLE} GROUP BY channel_id ORDER BY channel_id`;

  beforeAll(async () => {
    await t.stats.write(
      Array.from({ length: ROWS }, (_, i) =>
        statsRow({ hour: '2026-11-01 10:00:00', tenant_id: 1, channel_id: i + 1, imps: i }),
      ),
    );
  });

  it('answers the rows of one select, in chunks of a few thousand', async () => {
    const chunks: Record<string, unknown>[][] = [];
    for await (const chunk of selectInChunks(t.stats, sql)) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(4096);
    expect(chunks.flat()).toEqual(await t.stats.select(sql));
    expect(chunks.flat()[ROWS - 1]).toEqual({ channel_id: ROWS, imps: ROWS - 1 });
  });

  it('ends a query its reader left early, and the store answers the next', async () => {
    for await (const chunk of selectInChunks(t.stats, sql)) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    expect(await t.stats.select(`SELECT count(*) AS n FROM ${STATS_TABLE}`)).toEqual([{ n: ROWS }]);
  });
});
