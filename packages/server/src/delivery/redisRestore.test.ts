import { expect, it } from 'vitest';
import {
  admitThroughLease,
  describeWithOwnRedis,
  type OwnRedis,
  restartRedisAndRejoin,
  sleep,
  testClock,
  testLog,
  testRedisClient,
} from '../../test/deliveryEngines.js';
import { openDeliveryCounters } from './openDelivery.js';
import { RedisShared } from './redisShared.js';
import { type BudgetAsk, type HoursSeen, MemoryCounterStore, MemoryShared } from './sharedCounters.js';
import { DAY_MS, pacingState } from './pacing.js';
import { type Admission, type CampaignLimits, type DeliveryCounters, type TagLimits } from './types.js';

/**
 * A Redis that comes back empty (restarted without persistence, or flushed) is raised back to what
 * each process last saw, then gets what was counted meanwhile (docs/delivery.md, "Redis down",
 * "Reconcile"): two processes on one Redis of the test's own, an impression decided by one and counted
 * by the other before, one each way after. Every shared count must hold all three: a campaign's daily
 * spend with and without a budget, its total spend, a demand tag's daily impressions and calls, and a
 * viewer's frequency count. Found by test/rolesOnRedis.test.ts (the pre-outage impression was lost
 * when the process that had seen it had dropped its idle account, or never sent it again).
 */
const T0 = Date.UTC(2026, 10, 23, 12);
const DAY = Math.floor(T0 / DAY_MS);
const PRICE = 100_000;
const VIEWER = 'd:viewer-1';

const free: CampaignLimits = {
  id: 1,
  timezone: 0,
  dailyBudget: 'unlimited',
  totalBudget: 'unlimited',
  pacing: 'asap',
  frequencyCap: null,
};
// (a cap above the test's impressions: a count moved by another process's notice may run one ahead
// until the next fetch, docs/delivery.md "Frequency caps"; the third process checks a cap of 3)
const freeCapped: CampaignLimits = {
  id: 2,
  timezone: 0,
  dailyBudget: 'unlimited',
  totalBudget: 'unlimited',
  pacing: 'asap',
  frequencyCap: { count: 10, periodHours: 24 },
};
const budgeted: CampaignLimits = {
  id: 3,
  timezone: 0,
  dailyBudget: 1_000 * PRICE,
  totalBudget: 10_000 * PRICE,
  pacing: 'asap',
  frequencyCap: { count: 10, periodHours: 24 },
};
const capOf3 = (c: CampaignLimits): CampaignLimits => ({ ...c, frequencyCap: { count: 3, periodHours: 24 } });
const tag: TagLimits = { id: 4, timezone: 0, qpsLimit: 'unlimited', dailyRequestCap: 1_000, dailyImpCap: 1_000 };
const admissions: Admission[] = [
  { campaign: free, priceMicros: PRICE, viewer: VIEWER },
  { campaign: freeCapped, priceMicros: PRICE, viewer: VIEWER },
  { campaign: budgeted, priceMicros: PRICE, viewer: VIEWER },
  { tag, priceMicros: PRICE },
];

let ids = 0;

/**
 * The processes run their own timers (every 10 ms) on a simulated clock: `pass(ms)` moves it on in
 * steps of 100 ms, letting them tick between. Nothing calls flush(), which would send every account
 * at once: after the return, what is sent is what their own exchanges choose to send.
 */
async function pass(clock: { advance(ms: number): number }, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    clock.advance(100);
    await sleep(15);
  }
}

/** What `read()` gives once it is `want`, or as it is after 5 s (simulated) of exchanges. */
async function settled<T>(clock: { advance(ms: number): number }, read: () => Promise<T>, want: T): Promise<T> {
  let seen = await read();
  for (let i = 0; i < 50 && JSON.stringify(seen) !== JSON.stringify(want); i++) {
    await pass(clock, 100);
    seen = await read();
  }
  return seen;
}

/**
 * Two processes `a` and `b` on `redis` under `prefix`, on one simulated clock, and the test's own
 * connection to read and flush it (`client()`: opened again after a restart). `loseData` empties
 * Redis with `meanwhile` counted across it; `close` closes them all (and starts Redis again if a
 * failed test left it down, for the next case).
 */
async function twoProcesses(redis: OwnRedis, prefix: string) {
  const clock = testClock(T0);
  const options = () => ({ log: testLog(), prefix, clock: clock.now, tickMs: 10, connectTimeoutMs: 1_000 });
  const a = await openDeliveryCounters({ redisUrl: redis.url }, options());
  const b = await openDeliveryCounters({ redisUrl: redis.url }, options());
  let client = await testRedisClient(redis.url);
  let down = false;
  return {
    clock,
    a,
    b,
    client: () => client,
    /** A third process on the same Redis (the caller closes it). */
    third: () => openDeliveryCounters({ redisUrl: redis.url }, options()),
    /** Redis killed, `meanwhile` counted locally while it is down, then restarted empty; or Redis flushed, then `meanwhile`. */
    async loseData(how: 'restarted' | 'flushed', meanwhile: () => Promise<void>): Promise<void> {
      if (how === 'flushed') {
        await client.flushall();
        await meanwhile();
        return;
      }
      down = true;
      await redis.kill();
      client.disconnect();
      await meanwhile();
      // (a process with nothing to send finds Redis down at its exchange of the second)
      await pass(clock, 1_000);
      expect([a.health().redis, b.health().redis]).toEqual(['down', 'down']);
      const rejoined = await restartRedisAndRejoin(redis, [a, b], () => pass(clock, 100));
      down = false;
      expect(rejoined).toEqual(['ok', 'ok']);
      client = await testRedisClient(redis.url);
    },
    async close(): Promise<void> {
      client.disconnect();
      await a.close();
      await b.close();
      if (down) await redis.start();
    },
  };
}

/** One impression of each admission, decided by `decider` and counted by `counter` (as a beacon to another edge); one call to the tag on the decider. */
async function impressions(
  decider: DeliveryCounters,
  counter: DeliveryCounters,
  clock: { now(): number; advance(ms: number): number },
): Promise<void> {
  for (const admission of admissions) {
    const id = `r${ids++}`;
    // a lease, or the down state, on its way
    expect(
      await admitThroughLease(
        () => decider.admit(id, admission, clock.now()),
        () => pass(clock, 100),
      ),
    ).toBeNull();
    counter.commit(id, admission, clock.now());
  }
  expect(
    await admitThroughLease(
      () => decider.takeTagRequest(tag, clock.now()),
      () => pass(clock, 100),
    ),
  ).toBeNull();
}

describeWithOwnRedis('Redis back empty: each process raises it back to what it last saw', (redis) => {
  // how Redis lost its data; whether the processes had dropped their idle accounts before; whether
  // both processes count impressions after it, or only the one that had not counted the first
  const cases = [
    { how: 'restarted' as const, idle: false, after: 'both' as const },
    { how: 'restarted' as const, idle: true, after: 'both' as const },
    { how: 'restarted' as const, idle: false, after: 'one' as const },
    { how: 'restarted' as const, idle: true, after: 'one' as const },
    { how: 'flushed' as const, idle: false, after: 'both' as const },
    { how: 'flushed' as const, idle: true, after: 'both' as const },
    { how: 'flushed' as const, idle: false, after: 'one' as const },
  ];
  it.each(cases)(
    '$how; idle accounts dropped before: $idle; counted after by $after',
    { timeout: 30_000 },
    async ({ how, idle, after }) => {
      const prefix = `restore:${how}:${idle}:${after}:`;
      const processes = await twoProcesses(redis, prefix);
      const { clock, a, b, client } = processes;
      const spent = async (key: string) => Number((await client().get(`${prefix}b:${key}:s`)) ?? 0);
      const counts = async () => ({
        free: await spent(`c1:d${DAY}`),
        freeCapped: await spent(`c2:d${DAY}`),
        budgetedDay: await spent(`c3:d${DAY}`),
        budgetedTotal: await spent('c3:t'),
        tagImps: await spent(`ti4:d${DAY}`),
        tagCalls: await spent(`tr4:d${DAY}`),
        viewerFreeCapped: Number((await client().hget(`${prefix}f:2:${VIEWER}`, 'n')) ?? 0),
        viewerBudgeted: Number((await client().hget(`${prefix}f:3:${VIEWER}`, 'n')) ?? 0),
      });
      /** Two more impressions: one each way, or both decided and counted by `a` (`b` counted the first). */
      const meanwhile = async () => {
        await impressions(after === 'both' ? b : a, a, clock);
        await impressions(a, after === 'both' ? b : a, clock);
      };
      const times = (n: number) => ({
        free: n * PRICE,
        freeCapped: n * PRICE,
        budgetedDay: n * PRICE,
        budgetedTotal: n * PRICE,
        tagImps: n,
        tagCalls: n,
        viewerFreeCapped: n,
        viewerBudgeted: n,
      });
      /** The shared counts once they are `n` impressions each, or as they are after 5 s (simulated) of exchanges. */
      const countsAt = (n: number) => settled(clock, counts, times(n));
      try {
        await impressions(a, b, clock);
        expect(await countsAt(1)).toEqual(times(1));
        // nothing asked for a while: the processes return their leases and drop the accounts
        if (idle) await pass(clock, 8_000);

        await processes.loseData(how, meanwhile);
        expect(await countsAt(3)).toEqual(times(3));
        // and a third process reads it so: the viewer is at the cap of 3
        const c = await processes.third();
        try {
          // (the first asks ask for its leases, daily then total, and fetch the viewer)
          for (let i = 0; i < 3; i++) {
            for (const campaign of [freeCapped, budgeted])
              c.campaignRefusal(capOf3(campaign), PRICE, VIEWER, clock.now());
            await c.flush();
          }
          for (const campaign of [freeCapped, budgeted])
            expect(c.campaignRefusal(capOf3(campaign), PRICE, VIEWER, clock.now())).toBe('frequency_cap');
          expect(c.campaignRefusal(capOf3(budgeted), PRICE, 'd:viewer-2', clock.now())).toBeNull();
          const [spend] = await c.readCampaignSpend([budgeted], clock.now());
          expect(spend).toMatchObject({ spentToday: 3 * PRICE, totalSpent: 3 * PRICE });
        } finally {
          await c.close();
        }
      } finally {
        await processes.close();
      }
    },
  );
});

/**
 * The day's spend per hour (the `:h` keys: the console's `hourly`, pacing's projection from the last
 * hour) comes back the same way: each process sends back, per hour of the day, the spend it last
 * saw; Redis keeps the most seen per hour plus what is counted after. Two processes that both saw the
 * same hours must not count them twice.
 */
describeWithOwnRedis('Redis back empty: the spend per hour of the day comes back too', (redis) => {
  const HOUR = 3_600_000;
  // a daily budget in UTC, and no budget in a zone three hours east (its hours 15 and 16)
  const byBudget: CampaignLimits = {
    id: 11,
    timezone: 0,
    dailyBudget: 1_000 * PRICE,
    totalBudget: 'unlimited',
    pacing: 'asap',
    frequencyCap: null,
  };
  const eastFree: CampaignLimits = {
    id: 12,
    timezone: 3,
    dailyBudget: 'unlimited',
    totalBudget: 'unlimited',
    pacing: 'asap',
    frequencyCap: null,
  };
  const campaigns = [byBudget, eastFree];
  /** Per campaign, the day's spend per hour expected at the end: one impression at 12:00 UTC, one at 13:00 before the loss, two after. */
  const expected = (c: CampaignLimits) => {
    const hourly = new Array<number>(24).fill(0);
    hourly[12 + c.timezone] = PRICE;
    hourly[13 + c.timezone] = 3 * PRICE;
    return hourly;
  };

  /** One impression of each campaign, decided by `decider` and counted by `counter`. */
  async function spend(
    decider: DeliveryCounters,
    counter: DeliveryCounters,
    clock: { now(): number; advance(ms: number): number },
  ): Promise<void> {
    for (const campaign of campaigns) {
      const admission: Admission = { campaign, priceMicros: PRICE };
      const id = `h${ids++}`;
      expect(
        await admitThroughLease(
          () => decider.admit(id, admission, clock.now()),
          () => pass(clock, 100),
        ),
      ).toBeNull();
      counter.commit(id, admission, clock.now());
    }
  }

  it('the script and the in-process store raise each hour alike: the most sent back plus what is counted after', async () => {
    const ask = (hours: HoursSeen | undefined, used = 0): BudgetAsk => ({
      key: 'c1:d9',
      limit: -1,
      want: 0,
      min: 1,
      used,
      reserved: 0,
      floor: 0,
      floorGen: '',
      evenRate: 0,
      dayEnd: 0,
      hour: 5,
      ttlMs: DAY_MS,
      ...(hours ? { hours } : {}),
    });
    const redisShared = new RedisShared({
      url: redis.url,
      prefix: 'restore-hours:script:',
      pid: 'p1',
      leaseTtlMs: 5_000,
    });
    await redisShared.connect();
    const store = new MemoryCounterStore();
    const memory = new MemoryShared(store, 'p1', 5_000);
    try {
      for (const shared of [redisShared, memory]) {
        const x = (budgets: BudgetAsk[]) =>
          Promise.resolve(shared.exchange({ now: T0, budgets, frequencies: [], qps: [] }));
        // counted in the current generation, then hours seen in an earlier one from two processes
        // (one with spend of its own in the same ask), and some seen in the current one (not raised)
        const { generation } = await x([ask(undefined, 100)]);
        await x([
          ask({
            gen: 'old',
            spend: [
              [3, 50],
              [5, 30],
            ],
          }),
        ]);
        await x([
          ask(
            {
              gen: 'old',
              spend: [
                [3, 40],
                [4, 20],
                [5, 60],
              ],
            },
            10,
          ),
        ]);
        const [reply] = (await x([ask({ gen: generation, spend: [[1, 999]] }), ask({ gen: '', spend: [[2, 999]] })]))
          .budgets;
        expect(reply).toMatchObject({ hourNow: 100 + 30 + 30 + 10, hourBefore: 20 });
        const [read] = await shared.readSpend(['c1:d9']);
        expect(read!.hourly).toEqual(Array.from({ length: 24 }, (_, h) => ({ 3: 50, 4: 20, 5: 170 })[h] ?? 0));
        // (the day's spend itself only counts what was used)
        expect(read!.spent).toBe(110);
      }
    } finally {
      await redisShared.close();
    }
  });

  const cases = [
    { how: 'restarted' as const, idle: false },
    { how: 'restarted' as const, idle: true },
    { how: 'flushed' as const, idle: false },
    { how: 'flushed' as const, idle: true },
  ];
  it.each(cases)('$how; idle accounts dropped before: $idle', { timeout: 30_000 }, async ({ how, idle }) => {
    const prefix = `restore-hours:${how}:${idle}:`;
    const processes = await twoProcesses(redis, prefix);
    const { clock, a, b, client } = processes;
    /** Each campaign's spend per hour as Redis holds it. */
    const hours = async () => {
      const out: number[][] = [];
      for (const c of campaigns) {
        const hourly = new Array<number>(24).fill(0);
        const day = Math.floor((clock.now() + c.timezone * HOUR) / DAY_MS);
        for (const [h, v] of Object.entries(await client().hgetall(`${prefix}b:c${c.id}:d${day}:h`)))
          hourly[Number(h)] = Number(v);
        out.push(hourly);
      }
      return out;
    };
    /** The spend per hour once it is `want`, or as it is after 5 s (simulated) of exchanges. */
    const hoursAt = (want: number[][]) => settled(clock, hours, want);
    const first = campaigns.map((c) => expected(c).map((v, h) => (h === 12 + c.timezone ? v : 0)));
    const before = campaigns.map((c) => expected(c).map((v, h) => (h === 13 + c.timezone ? PRICE : v)));
    try {
      // 12:00 UTC: one impression decided by a, counted by b; an hour later, one the other way
      await spend(a, b, clock);
      expect(await hoursAt(first)).toEqual(first);
      clock.advance(HOUR);
      await spend(b, a, clock);
      expect(await hoursAt(before)).toEqual(before);
      // both processes exchange in 13:00 (so both have seen 12:00's hour whole, and 13:00's)
      await pass(clock, 1_500);
      if (idle) await pass(clock, 8_000);

      // one each way across the loss (counted locally while Redis is down)
      await processes.loseData(how, async () => {
        await spend(a, b, clock);
        await spend(b, a, clock);
      });
      const after = campaigns.map(expected);
      expect(await hoursAt(after)).toEqual(after);
      // and a third process reads it so: the console's spend per hour, pacing's projection from the last hour
      const c = await processes.third();
      try {
        const spends = await c.readCampaignSpend(campaigns, clock.now());
        expect(spends.map((s) => s.hourly)).toEqual(after);
        expect(spends.map((s) => s.spentToday)).toEqual([4 * PRICE, 4 * PRICE]);
        const states = await c.readPacing(campaigns, clock.now());
        expect(states).toEqual(
          campaigns.map((k, i) =>
            pacingState({
              campaignId: k.id,
              pacing: k.pacing,
              dailyBudget: k.dailyBudget,
              timezone: k.timezone,
              spentToday: 4 * PRICE,
              hourly: after[i]!,
              now: clock.now(),
            }),
          ),
        );
      } finally {
        await c.close();
      }
    } finally {
      await processes.close();
    }
  });
});
