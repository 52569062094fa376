import { afterAll, describe, expect, it } from 'vitest';
import { statsRow } from '../../../test/statsEngines.js';
import { type HourlyRow } from '../hourlyRow.js';
import { batchCsv } from './csvBatch.js';
import { openDuckDbStore } from './duckdbStore.js';

describe('a stats batch as CSV (what a worker sends the primary)', () => {
  const rows = [
    statsRow({ hour: '2026-11-24 10:00:00', tenant_id: 1, channel_id: 7, country: 'US', domain: 'say "hi".example', nofill_reason: '', imps: 3, revenue: 4_500_000 }),
    statsRow({ hour: '2026-11-24 11:00:00', tenant_id: 1, channel_id: 7, app_bundle: 'com.a,b\nc', partner: "o'brien", reqs: 2 }),
  ];
  const stores: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close();
  });

  it('is read back by the DuckDB store as the same rows its own write stores: quotes, commas, new lines and empty text kept', async () => {
    const viaRows = await openDuckDbStore('', ':memory:');
    const viaCsv = await openDuckDbStore('', ':memory:');
    stores.push(viaRows, viaCsv);
    await viaRows.write(rows);
    await viaCsv.writeCsv!(batchCsv(rows));
    const read = (s: typeof viaRows) => s.select("SELECT strftime(hour, '%Y-%m-%d %H:00:00') AS hour, * EXCLUDE (hour) FROM hourly_stats ORDER BY hour");
    const stored = await read(viaCsv);
    expect(stored).toEqual(await read(viaRows));
    expect(stored.map((r) => [r.domain, r.app_bundle, r.partner, r.nofill_reason, r.revenue])).toEqual([
      ['say "hi".example', '', '', '', 4_500_000],
      ['', 'com.a,b\nc', "o'brien", '', 0],
    ]);
  });

  it('is empty for no rows, and refuses a bad row naming it and its column', () => {
    expect(batchCsv([])).toBe('');
    const bad = { ...rows[1]!, imps: 1.5 } as HourlyRow;
    expect(() => batchCsv([rows[0]!, bad])).toThrow(/stats row 1: imps must be a whole number/);
  });
});
