import { describe, expect, it } from 'vitest';
import { type HourlyRow, type HourlyRows, METRIC_COLUMNS, type StatsSink } from '../../stats/hourlyRow.js';
import { HourlyCounters, hourOf } from './hourlyCounters.js';

class MemorySink implements StatsSink {
  rows: HourlyRow[] = [];
  failNext = false;
  async write(rows: HourlyRows): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('stats store down');
    }
    this.rows.push(...Array.from(rows, (r) => ({ ...r })));
  }
}

const T = Date.UTC(2026, 10, 23, 1, 30);

describe('hourly counters', () => {
  it('sums by hour and dimensions and flushes rows in the HourlyRow shape', async () => {
    const sink = new MemorySink();
    const c = new HourlyCounters(() => sink);
    c.add({ tenant_id: 1, channel_id: 2 }, { reqs: 1, opps: 1 }, T);
    c.add({ tenant_id: 1, channel_id: 2 }, { reqs: 1 }, T + 60_000);
    c.add({ tenant_id: 1, channel_id: 2 }, { reqs: 1 }, T + 3_600_000);
    c.add({ tenant_id: 1, channel_id: 3, nofill_reason: 'timeout' }, { timeouts: 1 }, T);
    await c.flush();
    expect(sink.rows).toHaveLength(3);
    const first = sink.rows.find((r) => r.channel_id === 2 && r.hour === hourOf(T))!;
    expect(first).toMatchObject({ hour: '2026-11-23 01:00:00', reqs: 2, opps: 1, tag_id: 0, country: '', revenue: 0 });
    expect(c.pending).toBe(0);
  });

  it('keeps rows a failed write refused and sends them with the next flush', async () => {
    const sink = new MemorySink();
    const c = new HourlyCounters(() => sink);
    c.add({ tenant_id: 1 }, { imps: 2, revenue: 5000 }, T);
    sink.failNext = true;
    await expect(c.flush()).rejects.toThrow('stats store down');
    c.add({ tenant_id: 1 }, { imps: 1, revenue: 2500 }, T);
    await c.flush();
    expect(sink.rows).toHaveLength(1);
    expect(sink.rows[0]).toMatchObject({ imps: 3, revenue: 7500 });
  });

  it('writes nothing before the replay guard has made its events durable; a refusal keeps the rows', async () => {
    const sink = new MemorySink();
    const order: string[] = [];
    let guardDown = true;
    const c = new HourlyCounters(() => sink, {
      beforeWrite: async () => {
        order.push('persist');
        if (guardDown) throw new Error('journal not written');
      },
    });
    c.add({ tenant_id: 1 }, { imps: 2 }, T);
    await expect(c.flush()).rejects.toThrow('journal not written');
    expect(sink.rows).toEqual([]);
    guardDown = false;
    c.add({ tenant_id: 1 }, { imps: 1 }, T);
    await c.flush();
    expect(order).toEqual(['persist', 'persist']);
    expect(sink.rows).toHaveLength(1);
    expect(sink.rows[0]).toMatchObject({ imps: 3 });
  });

  it('hands a large flush over in batches without waiting for each, and takes back only the refused batch', async () => {
    const calls: number[] = [];
    let inFlight = 0;
    let most = 0;
    const stored: HourlyRow[] = [];
    const sink: StatsSink = {
      async write(rows) {
        const n = calls.push(rows.length);
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        if (n === 2) throw new Error('stats store down');
        stored.push(...rows);
      },
    };
    const c = new HourlyCounters(() => sink);
    for (let i = 0; i < 2500; i++) c.add({ tenant_id: 1, channel_id: i }, { reqs: 1 }, T);
    await expect(c.flush()).rejects.toThrow('stats store down');
    expect(calls).toEqual([1000, 1000, 500]);
    // the next batch went while the one before was being stored (the store joins them: stats/coalescedWrites.ts)
    expect(most).toBeGreaterThan(1);
    expect(stored).toHaveLength(1500);
    // the refused thousand are pending again, and the next flush sends them
    expect(c.pending).toBe(1000);
    await c.flush();
    expect(new Set(stored.map((r) => r.channel_id)).size).toBe(2500);
  });

  it("puts a request scope's rows and plain rows with the same dimensions on one row", async () => {
    const sink = new MemorySink();
    const c = new HourlyCounters(() => sink);
    const request = { tenant_id: 1, channel_id: 2, country: 'US', device: 'desktop' };
    const scope = c.scope(request);
    scope.add({ tag_id: 7, nofill_reason: 'timeout' }, { demand_calls: 1, timeouts: 1 }, T);
    c.add({ ...request, tag_id: 7, nofill_reason: 'timeout' }, { demand_calls: 1 }, T);
    scope.add({}, { reqs: 1 }, T);
    c.add(request, { reqs: 1 }, T);
    await c.flush();
    expect(sink.rows).toHaveLength(2);
    expect(sink.rows.find((r) => r.tag_id === 7)).toMatchObject({
      channel_id: 2,
      country: 'US',
      nofill_reason: 'timeout',
      demand_calls: 2,
      timeouts: 1,
    });
    expect(sink.rows.find((r) => r.tag_id === 0)).toMatchObject({ reqs: 2, nofill_reason: '' });
  });
  it("flushes a demand tag's requests and opportunities, and every metric from its own counter", async () => {
    const sink = new MemorySink();
    const c = new HourlyCounters(() => sink);
    const scope = c.scope({ tenant_id: 1, channel_id: 2 });
    scope.add({ tag_id: 7, nofill_reason: 'targeting.country' }, { source_reqs: 1 }, T);
    scope.add({ tag_id: 7, nofill_reason: 'targeting.country' }, { source_reqs: 1 }, T);
    scope.add({ tag_id: 8, nofill_reason: '' }, { source_reqs: 1, source_opps: 1, demand_calls: 1 }, T);
    await c.flush();
    expect(sink.rows.find((r) => r.tag_id === 7)).toMatchObject({
      channel_id: 2,
      nofill_reason: 'targeting.country',
      source_reqs: 2,
      source_opps: 0,
      demand_calls: 0,
    });
    expect(sink.rows.find((r) => r.tag_id === 8)).toMatchObject({ source_reqs: 1, source_opps: 1, demand_calls: 1 });
    // toHourlyRow lists each column by its index: a distinct value per column lands in its own column
    const distinct = Object.fromEntries(METRIC_COLUMNS.map((m, i) => [m, i + 1]));
    c.add({ tenant_id: 3 }, distinct, T);
    await c.flush();
    expect(sink.rows.at(-1)).toMatchObject(distinct);
  });

  it('keeps text right across a renewed list of text ids: a scope made before it, rows a failed write gave back', async () => {
    const sink = new MemorySink();
    const c = new HourlyCounters(() => sink, { renewTextAt: 2 });
    const waiting = c.scope({ tenant_id: 1, country: 'US', device: 'ctv', domain: 'a.example' });
    for (const domain of ['b.example', 'c.example', 'd.example'])
      c.add({ tenant_id: 1, country: 'FR', domain }, { reqs: 1 }, T);
    sink.failNext = true;
    // the flush renews the list; its rows come back under the new list's ids
    await expect(c.flush()).rejects.toThrow('stats store down');
    c.add({ tenant_id: 1, country: 'DE', domain: 'e.example' }, { reqs: 1 }, T);
    // the scope's request was read under the old list
    waiting.add({ tag_id: 4, nofill_reason: 'timeout' }, { timeouts: 1 }, T);
    await c.flush();
    const rows = sink.rows.map((r) => [r.country, r.domain, r.device, r.tag_id, r.nofill_reason, r.reqs + r.timeouts]);
    expect(rows.sort()).toEqual([
      ['DE', 'e.example', '', 0, '', 1],
      ['FR', 'b.example', '', 0, '', 1],
      ['FR', 'c.example', '', 0, '', 1],
      ['FR', 'd.example', '', 0, '', 1],
      ['US', 'a.example', 'ctv', 4, 'timeout', 1],
    ]);
  });
});
