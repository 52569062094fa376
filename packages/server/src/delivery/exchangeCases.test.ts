import { EventEmitter } from 'node:events';
import { type Worker } from 'node:cluster';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { forEachDeliveryEngine, memoryLeases, type TestDeployment } from '../../test/deliveryEngines.js';
import { IpcShared } from '../cluster/ipcShared.js';
import { PrimaryHub } from '../cluster/primaryHub.js';
import { type ToPrimary, type ToWorker } from '../cluster/protocol.js';
import { WorkerLink } from '../cluster/workerLink.js';
import { DAY_MS, HOUR_MS } from './pacing.js';
import {
  type BudgetAsk,
  type BudgetGrant,
  type ExchangeReply,
  type FrequencyAsk,
  type FrequencyCount,
  type MemoryCounterStore,
  type QpsShare,
  type SharedCounters,
} from './sharedCounters.js';

/**
 * The rules of the shared counters, once, as a table of cases (exchangeCases.json) that every
 * engine runs: the Lua script on Redis (exchangeScript.ts), the in-process store
 * (sharedCounters.ts MemoryCounterStore) and the cluster's IPC transport to the primary's store
 * (IpcShared over a WorkerLink to a PrimaryHub, with the messages cloned as node:cluster's advanced
 * serialization does). A case that passes on one engine and fails on another is a drift between the
 * two languages. docs/delivery.md, "The exchange's cases", has the format.
 */

/** 12:00 UTC: a budget's hour is the UTC hour of its step; its day ends 12 hours after T0. */
const T0 = Date.UTC(2026, 10, 23, 12);
const DAY_END = T0 + 12 * HOUR_MS;
const LEASE_TTL_MS = 5_000;

interface BudgetTerms {
  limit: number;
  price: number;
  pacing?: 'even';
  /** A total budget: no hour, kept without expiry. */
  total?: boolean;
}
interface BudgetRow {
  key: string;
  want?: number;
  used?: number;
  reserved?: number;
  floor?: number;
  /** '' (the stats store's count), 'seen' (the generation this process last saw) or another, older one. */
  floorGen?: string;
  /** The budget's limit changed for this step. */
  limit?: number;
  hours?: { gen: string; spend: [number, number][] };
}
interface FrequencyRow {
  key: string;
  incr?: number;
  floor?: number;
  floorEnd?: number;
  floorGen?: string;
}
interface ExchangeStep {
  at: number;
  process: string;
  note?: string;
  budgets?: BudgetRow[];
  frequencies?: FrequencyRow[];
  qps?: { key: string; demand: number }[];
  expect?: {
    processes?: number;
    /** Against the generation this process last saw (a process's first exchange: against the last any saw). */
    generation?: 'same' | 'changed';
    budgets?: Partial<BudgetGrant>[];
    /** `windowEnd` in ms after T0; null: no window open. */
    frequencies?: { count: number; windowEnd: number | null }[];
    qps?: Partial<QpsShare>[];
  };
  leases?: Record<string, Record<string, number>>;
}
type Step =
  | ExchangeStep
  | { at: number; lose: true; note?: string; leases?: Record<string, Record<string, number>> }
  | { at: number; leave: string; note?: string; leases?: Record<string, Record<string, number>> }
  | { at: number; read: string[]; expect: { spent: number; hourly?: Record<string, number> }[] };
interface ExchangeCase {
  name: string;
  budgets?: Record<string, BudgetTerms>;
  frequencies?: Record<string, { periodMs: number }>;
  qps?: Record<string, { limit: number }>;
  steps: Step[];
}

const { cases } = JSON.parse(readFileSync(new URL('./exchangeCases.json', import.meta.url), 'utf8')) as {
  cases: ExchangeCase[];
};

/** One deployment of an engine, as the cases need it. */
interface CaseEngine {
  open(pid: string): Promise<SharedCounters>;
  /** The shared data is lost; the processes' views are opened again afterwards. */
  lose(): Promise<void>;
  leases(key: string, now: number): Promise<Record<string, number>>;
}

function budgetAsk(c: ExchangeCase, row: BudgetRow, now: number, gen: (g: string) => string): BudgetAsk {
  const terms = c.budgets?.[row.key];
  if (!terms) throw new Error(`budget '${row.key}' is not in the case's budgets`);
  const limit = row.limit ?? terms.limit;
  const paceStart = DAY_END - DAY_MS;
  const ask: BudgetAsk = {
    key: row.key,
    limit,
    want: row.want ?? 0,
    min: terms.price,
    used: row.used ?? 0,
    reserved: row.reserved ?? 0,
    floor: row.floor ?? 0,
    floorGen: gen(row.floorGen ?? ''),
    evenRate: terms.pacing === 'even' ? limit / (DAY_END - paceStart) : 0,
    paceStart,
    dayEnd: DAY_END,
    hour: terms.total ? -1 : new Date(now).getUTCHours(),
    ttlMs: terms.total ? 0 : DAY_MS,
  };
  if (row.hours) ask.hours = { gen: gen(row.hours.gen), spend: row.hours.spend };
  return ask;
}

function frequencyAsk(c: ExchangeCase, row: FrequencyRow, gen: (g: string) => string): FrequencyAsk {
  const terms = c.frequencies?.[row.key];
  if (!terms) throw new Error(`frequency '${row.key}' is not in the case's frequencies`);
  return {
    key: row.key,
    incr: row.incr ?? 0,
    periodMs: terms.periodMs,
    floor: row.floor ?? 0,
    floorEnd: row.floorEnd === undefined ? 0 : T0 + row.floorEnd,
    floorGen: gen(row.floorGen ?? ''),
  };
}

async function runCase(c: ExchangeCase, engine: CaseEngine): Promise<void> {
  const views = new Map<string, SharedCounters>();
  const seen = new Map<string, string>();
  let lastGeneration = '';
  const view = async (pid: string) => {
    let shared = views.get(pid);
    if (!shared) views.set(pid, (shared = await engine.open(pid)));
    return shared;
  };
  try {
    for (const [i, step] of c.steps.entries()) {
      const now = T0 + step.at;
      const where = `step ${i + 1} at ${step.at}${'note' in step && step.note ? ` (${step.note})` : ''}`;
      if ('read' in step) {
        const reads = await (await view('reader')).readSpend(step.read);
        expect(reads, where).toEqual(
          step.expect.map((e, j) => ({
            spent: e.spent,
            hourly: e.hourly ? Array.from({ length: 24 }, (_, h) => e.hourly?.[String(h)] ?? 0) : reads[j]!.hourly,
          })),
        );
        continue;
      }
      if ('lose' in step) {
        await engine.lose();
        for (const shared of views.values()) await shared.close();
        views.clear();
      } else if ('leave' in step) {
        await (await view(step.leave)).leave();
      } else {
        const own = seen.get(step.process) ?? lastGeneration;
        const gen = (g: string) => (g === 'seen' ? own : g);
        const reply: ExchangeReply = await (await view(step.process)).exchange({
          now,
          budgets: (step.budgets ?? []).map((row) => budgetAsk(c, row, now, gen)),
          frequencies: (step.frequencies ?? []).map((row) => frequencyAsk(c, row, gen)),
          qps: (step.qps ?? []).map((row) => ({
            key: row.key,
            limit: c.qps?.[row.key]?.limit ?? 0,
            demand: row.demand,
          })),
        });
        seen.set(step.process, reply.generation);
        lastGeneration = reply.generation;
        const want = step.expect ?? {};
        if (want.processes !== undefined) expect(reply.processes, `${where}: processes`).toBe(want.processes);
        if (want.generation)
          expect(reply.generation === own ? 'same' : 'changed', `${where}: generation`).toBe(want.generation);
        want.budgets?.forEach((b, j) =>
          expect(reply.budgets[j], `${where}: budget ${step.budgets?.[j]?.key}`).toMatchObject(b),
        );
        want.frequencies?.forEach((f, j) =>
          expect(reply.frequencies[j], `${where}: frequency ${step.frequencies?.[j]?.key}`).toEqual<FrequencyCount>({
            count: f.count,
            windowEnd: f.windowEnd === null ? 0 : T0 + f.windowEnd,
          }),
        );
        want.qps?.forEach((q, j) => expect(reply.qps[j], `${where}: qps ${step.qps?.[j]?.key}`).toMatchObject(q));
      }
      for (const [key, leases] of Object.entries(step.leases ?? {}))
        expect(await engine.leases(key, now), `${where}: leases of ${key}`).toEqual(leases);
    }
  } finally {
    for (const shared of views.values()) await shared.close();
  }
}

forEachDeliveryEngine((t) => {
  const engine = (deployment: TestDeployment): CaseEngine => ({
    open: (pid) => deployment.openShared(pid),
    lose: () => deployment.loseShared(),
    leases: (key, now) => deployment.leases(key, now),
  });
  it.each(cases)('$name', async (c) => runCase(c, engine(t.deployment())));
});

/**
 * A worker's IPC channel to a primary, in one process: what each side sends reaches the other a turn
 * of the event loop later, cloned as node:cluster's advanced serialization clones it.
 */
class FakeChannel {
  readonly proc = new EventEmitter() as EventEmitter & {
    connected: boolean;
    send: (m: ToPrimary, h: undefined, o: undefined, cb: (e: Error | null) => void) => boolean;
  };
  private worker: EventEmitter = new EventEmitter();

  constructor() {
    this.proc.connected = true;
    this.proc.send = (m, _h, _o, cb) => {
      const to = this.worker;
      setImmediate(() => {
        to.emit('message', structuredClone(m));
        cb(null);
      });
      return true;
    };
  }

  /** The primary side, attached to `hub` (a new primary: the last one's side is left unheard). */
  attach(hub: PrimaryHub): void {
    const worker = new EventEmitter() as EventEmitter & {
      send: (m: ToWorker, h: undefined, cb: () => void) => boolean;
      isConnected: () => boolean;
    };
    worker.isConnected = () => true;
    worker.send = (m, _h, cb) => {
      setImmediate(() => {
        this.proc.emit('message', structuredClone(m));
        cb();
      });
      return true;
    };
    this.worker = worker;
    hub.attach(worker as unknown as Worker);
  }
}

describe('ipc', () => {
  const engine = (): CaseEngine => {
    let hub = new PrimaryHub(null);
    const channels: FakeChannel[] = [];
    // the primary's store, read directly for the leases (as the other engines' stores are)
    const store = () => (hub as unknown as { counters: MemoryCounterStore }).counters;
    return {
      open(pid) {
        const channel = new FakeChannel();
        channel.attach(hub);
        channels.push(channel);
        return Promise.resolve(
          new IpcShared(new WorkerLink(channel.proc as unknown as NodeJS.Process), pid, LEASE_TTL_MS),
        );
      },
      lose() {
        // the primary restarted without its counters file: a new store, a new generation
        hub = new PrimaryHub(null);
        return Promise.resolve();
      },
      leases: (key, now) => Promise.resolve(memoryLeases(store(), key, now)),
    };
  };
  it.each(cases)('$name', async (c) => runCase(c, engine()));
});
