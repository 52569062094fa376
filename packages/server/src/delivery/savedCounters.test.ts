import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testClock, testLog } from '../../test/deliveryEngines.js';
import { openDeliveryCounters } from './openDelivery.js';
import { HOUR_MS } from './pacing.js';
import { COUNTERS_FILE } from './savedCounters.js';
import { MemoryCounterStore } from './sharedCounters.js';
import { type Admission, type CampaignLimits, type DeliveryCounters } from './types.js';

/**
 * Without Redis the counters that decide delivery live in the process: they are saved under
 * DATA_DIR when it stops and read back when it starts (savedCounters.ts), so that a restart neither
 * shows a viewer an ad again past its frequency cap nor forgets the day's spend per hour.
 */
const T0 = Date.parse('2026-03-10T05:00:00Z'); // 00:00 on 2026-03-10 in UTC-5
const PRICE = 10_000;
const dirs: string[] = [];
const newFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'adplane-counters-'));
  dirs.push(dir);
  return join(dir, COUNTERS_FILE);
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const campaign: CampaignLimits = {
  id: 9,
  timezone: -5,
  dailyBudget: 5 * PRICE,
  totalBudget: 'unlimited',
  pacing: 'asap',
  frequencyCap: { count: 2, periodHours: 4 },
};

let ids = 0;
function serve(counters: DeliveryCounters, viewer: string, now: number) {
  const id = `s${ids++}`;
  const admission: Admission = { campaign, tag: null, priceMicros: PRICE, viewer };
  const refusal = counters.admit(id, admission, now);
  if (!refusal) counters.commit(id, admission, now);
  return refusal;
}

/** Waits until `file` exists (a checkpoint was written). */
async function written(file: string): Promise<void> {
  for (let i = 0; i < 200 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 10));
  expect(existsSync(file), `${file} written`).toBe(true);
}

describe('the saved counters in parts', () => {
  it('read back as the whole JSON does, made a slice at a time', () => {
    const store = new MemoryCounterStore();
    const now = T0;
    for (let i = 0; i < 5_000; i++)
      store.frequency.set(`f:9:d:viewer-${i}`, { n: (i % 3) + 1, end: i % 10 === 0 ? now - 1 : now + HOUR_MS });
    store.spent.set('spent:9:2026-03-10', 123_456);
    store.hourly.set('hourly:9:2026-03-10', [0, 5, 10]);
    const parts = [...store.savedParts(now)];
    expect(parts.length).toBeGreaterThan(3);
    expect(JSON.parse(parts.join(''))).toEqual(store.saved(now));
    expect(JSON.parse([...new MemoryCounterStore().savedParts(now)].join(''))).toEqual(
      new MemoryCounterStore().saved(now),
    );
  });
});

describe('the embedded delivery counters across a crash', () => {
  it('are written every checkpoint while the process runs, so that a crash keeps what the last one held', async () => {
    const file = newFile();
    const clock = testClock(T0 + 10 * HOUR_MS);
    const log = testLog();
    const running = await openDeliveryCounters(
      { redisUrl: null },
      { log, clock: clock.now, timers: false, countersFile: file, checkpointMs: 20 },
    );
    expect(serve(running, 'd:viewer-1', clock.now())).toBeNull();
    expect(serve(running, 'd:viewer-1', clock.now())).toBeNull();
    await running.flush();
    await written(file);
    // the process dies without closing; the next start reads the last checkpoint
    const next = await openDeliveryCounters(
      { redisUrl: null },
      { log, clock: clock.now, timers: false, countersFile: file, checkpointMs: 60_000 },
    );
    expect(next.campaignRefusal(campaign, PRICE, 'd:viewer-1', clock.now())).toBe('frequency_cap');
    expect(next.campaignRefusal(campaign, PRICE, 'd:viewer-2', clock.now())).toBeNull();
    await next.close();
    await running.close();
  });
});

describe('the embedded delivery counters across a restart', () => {
  it("keep open frequency windows and the day's spend, by the hour", async () => {
    const file = newFile();
    const clock = testClock(T0 + 10 * HOUR_MS);
    const log = testLog();
    const first = await openDeliveryCounters(
      { redisUrl: null },
      { log, clock: clock.now, timers: false, countersFile: file },
    );
    expect(serve(first, 'd:viewer-1', clock.now())).toBeNull();
    expect(serve(first, 'd:viewer-1', clock.now())).toBeNull();
    expect(serve(first, 'd:viewer-1', clock.now())).toBe('frequency_cap');
    expect(serve(first, 'd:viewer-2', clock.now())).toBeNull();
    await first.close();

    // the next start, an hour later: viewer 1 is still capped, the day has spent 3 of its 5
    clock.set(T0 + 11 * HOUR_MS);
    const next = await openDeliveryCounters(
      { redisUrl: null },
      { log, clock: clock.now, timers: false, countersFile: file },
    );
    expect(log.lines.some((l) => l.level === 'info' && /restored/.test(l.msg))).toBe(true);
    expect(next.campaignRefusal(campaign, PRICE, 'd:viewer-1', clock.now())).toBe('frequency_cap');
    expect(serve(next, 'd:viewer-2', clock.now())).toBeNull();
    expect(serve(next, 'd:viewer-2', clock.now())).toBe('frequency_cap');
    expect(serve(next, 'd:viewer-3', clock.now())).toBeNull();
    expect(serve(next, 'd:viewer-4', clock.now())).toBe('daily_budget');
    await next.flush();
    const [state] = await next.readPacing([campaign], clock.now());
    expect(state).toMatchObject({ spentToday: 5 * PRICE });
    await next.close();

    // past the frequency window: viewer 1 sees it again (a new day's budget too)
    clock.set(T0 + 24 * HOUR_MS + 60_000);
    const later = await openDeliveryCounters(
      { redisUrl: null },
      { log, clock: clock.now, timers: false, countersFile: file },
    );
    expect(later.campaignRefusal(campaign, PRICE, 'd:viewer-1', clock.now())).toBeNull();
    await later.close();
  });

  it('start empty, with a warning, from a damaged file or one of another version', async () => {
    for (const text of [
      '{"version": 1, "spent": [',
      JSON.stringify({ version: 99, spent: [], hourly: [], expiry: [], frequency: [] }),
    ]) {
      const file = newFile();
      writeFileSync(file, text);
      const log = testLog();
      const counters = await openDeliveryCounters({ redisUrl: null }, { log, timers: false, countersFile: file });
      expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
      expect(counters.campaignRefusal(campaign, PRICE, 'd:viewer-1', Date.now())).toBeNull();
      await counters.close();
    }
  });

  it('leave out, on restore, the days and windows that ended meanwhile, and keep the keys that never end', () => {
    const store = new MemoryCounterStore();
    const now = T0;
    store.restore(
      {
        version: 1,
        savedAt: now - HOUR_MS,
        spent: [
          ['c1:d10', 100],
          ['c1:d9', 90],
          ['c1:t', 500],
        ],
        hourly: [
          ['c1:d10', [0, 100]],
          ['c1:d9', [90]],
        ],
        expiry: [
          ['c1:d10', now + HOUR_MS],
          ['c1:d9', now - 1],
        ],
        frequency: [
          ['1:d:a', 2, now + 60_000],
          ['1:d:b', 1, now],
        ],
      },
      now,
    );
    expect([...store.spent]).toEqual([
      ['c1:d10', 100],
      ['c1:t', 500],
    ]);
    expect([...store.hourly.keys()]).toEqual(['c1:d10']);
    expect([...store.frequency]).toEqual([['1:d:a', { n: 2, end: now + 60_000 }]]);
    // and saves what it holds, open windows only
    const saved = store.saved(now + 120_000);
    expect(saved.frequency).toEqual([]);
    expect(saved.spent).toEqual([
      ['c1:d10', 100],
      ['c1:t', 500],
    ]);
  });
});
