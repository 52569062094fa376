import { afterAll, describe, expect, it } from 'vitest';
import { statsRow } from '../../../test/statsEngines.js';
import { type HourlyRow } from '../hourlyRow.js';
import { checkRow } from '../statsStore.js';
import { batchCsv } from './csvBatch.js';
import { openDuckDbStore } from './duckdbStore.js';

describe('a stats batch as CSV (what a worker sends the primary)', () => {
  const rows = [
    statsRow({
      hour: '2026-11-24 10:00:00',
      tenant_id: 1,
      channel_id: 7,
      country: 'US',
      domain: 'say "hi".example',
      nofill_reason: '',
      imps: 3,
      revenue: 4_500_000,
    }),
    statsRow({
      hour: '2026-11-24 11:00:00',
      tenant_id: 1,
      channel_id: 7,
      app_bundle: 'com.a,b\nc',
      partner: "o'brien",
      reqs: 2,
    }),
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
    const read = (s: typeof viaRows) =>
      s.select("SELECT strftime(hour, '%Y-%m-%d %H:00:00') AS hour, * EXCLUDE (hour) FROM hourly_stats ORDER BY hour");
    const stored = await read(viaCsv);
    expect(stored).toEqual(await read(viaRows));
    expect(stored.map((r) => [r.domain, r.app_bundle, r.partner, r.nofill_reason, r.revenue])).toEqual([
      ['say "hi".example', '', '', '', 4_500_000],
      ['', 'com.a,b\nc', "o'brien", '', 0],
    ]);
  });

  it('is empty for no rows, and refuses a bad row as checkRow does, naming the row and its column', () => {
    expect(batchCsv([])).toBe('');
    const good = rows[0]!;
    const bad: Partial<Record<keyof HourlyRow, unknown>>[] = [
      { hour: '2026-11-24 10:30:00' },
      { hour: '' },
      { hour: null },
      { hour: 7 },
      { tenant_id: -1 },
      { channel_id: 1.5 },
      { tag_id: '3' },
      { campaign_id: undefined },
      { country: 5 },
      { domain: null },
      { nofill_reason: undefined },
      { imps: 1.5 },
      { revenue: Number.NaN },
      { reqs: '1' },
      { postbid_ivt: 2 ** 53 },
    ];
    for (const change of bad) {
      const row = { ...good, ...change } as HourlyRow;
      let expected = '';
      try {
        checkRow(row, 1);
      } catch (error) {
        expected = (error as Error).message;
      }
      expect(expected, JSON.stringify(change)).toMatch(/^stats row 1: /);
      expect(() => batchCsv([good, row]), JSON.stringify(change)).toThrow(expected);
      // a third row: the good hour and texts were seen (and kept) by then
      expect(() => batchCsv([good, good, row]), JSON.stringify(change)).toThrow(
        expected.replace('stats row 1:', 'stats row 2:'),
      );
    }
    // a negative metric (a correction) is a whole number the tables take; an id is not
    expect(batchCsv([{ ...good, cost: -5 }])).toContain(',-5,');
  });
});
