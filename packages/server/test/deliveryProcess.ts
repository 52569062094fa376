import { createInterface } from 'node:readline';
import { openConfigChangeBus, openDeliveryCounters } from '../src/delivery/openDelivery.js';
import { type Admission, type CampaignLimits } from '../src/delivery/types.js';

/**
 * One edge process of deliveryProcesses.test.ts: delivery counters on Redis, driven line by line
 * over stdin (JSON), answering on stdout. The parent plays the load balancer: it sends decisions to
 * one process and their impression events to any.
 */
export const PRICE = 10_000;
export const BUDGET_CAMPAIGN: CampaignLimits = {
  id: 1,
  timezone: -5,
  dailyBudget: 100 * PRICE,
  totalBudget: 'unlimited',
  pacing: 'asap',
  frequencyCap: null,
};
export const CAPPED_CAMPAIGN: CampaignLimits = {
  id: 2,
  timezone: -5,
  dailyBudget: 'unlimited',
  totalBudget: 'unlimited',
  pacing: 'asap',
  frequencyCap: { count: 3, periodHours: 1 },
};
export const SUPPLIER_QPS = 20;

export type Command =
  | { op: 'admit' | 'commit'; seq: number; id: string; kind: 'budget' | 'frequency' }
  | { op: 'qps'; seq: number }
  | { op: 'flush' | 'close'; seq: number };
/** A command as the parent writes it (the sequence number is added on the way). */
type Unsequenced<C> = C extends unknown ? Omit<C, 'seq'> : never;
export type Request = Unsequenced<Command>;

const admissionOf = (kind: 'budget' | 'frequency'): Admission =>
  kind === 'budget'
    ? { campaign: BUDGET_CAMPAIGN, priceMicros: PRICE }
    : { campaign: CAPPED_CAMPAIGN, priceMicros: PRICE, viewer: 'd:one-viewer' };

/** The processes' one time: the machine's clock moved by CLOCK_OFFSET_MS, which the parent sets for them all (clear of a day's turn). */
export const offsetClock = (offsetMs: number) => () => Date.now() + offsetMs;

async function main(): Promise<void> {
  const now = offsetClock(Number(process.env.CLOCK_OFFSET_MS ?? 0));
  const settings = { redisUrl: process.env.REDIS_URL ?? null };
  const prefix = process.env.DELIVERY_PREFIX ?? 'adplane-proc:';
  const log = {
    info: () => {},
    warn: (o: object, m: string) => console.error(m, o),
    error: (o: object, m: string) => console.error(m, o),
  };
  const counters = await openDeliveryCounters(settings, {
    log,
    prefix,
    holdMs: Number(process.env.HOLD_MS ?? 60_000),
    clock: now,
  });
  const bus = await openConfigChangeBus(settings, { log, prefix });
  const send = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
  bus.subscribe((version) => send({ op: 'config', version }));
  send({ op: 'ready', pid: process.pid });
  for await (const line of createInterface({ input: process.stdin })) {
    const c = JSON.parse(line) as Command;
    switch (c.op) {
      case 'admit':
        send({ seq: c.seq, refusal: counters.admit(c.id, admissionOf(c.kind), now()) });
        break;
      case 'commit':
        counters.commit(c.id, admissionOf(c.kind), now());
        send({ seq: c.seq });
        break;
      case 'qps':
        send({ seq: c.seq, allowed: counters.takeQps('supplier', 1, SUPPLIER_QPS, now()) });
        break;
      case 'flush':
        await counters.flush();
        send({ seq: c.seq, stats: counters.stats() });
        break;
      case 'close':
        await counters.close();
        await bus.close();
        send({ seq: c.seq });
        process.exit(0);
    }
  }
}

if (process.argv[1]?.endsWith('deliveryProcess.ts')) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
