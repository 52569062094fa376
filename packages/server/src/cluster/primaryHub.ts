import { type Clock, systemClock } from '../clock.js';
import { type Worker } from 'node:cluster';
import { checkpointCounters, restoreCounters, saveCounters } from '../delivery/savedCounters.js';
import { type Checkpoint } from '../ops/savedFile.js';
import { MemoryCounterStore, MemoryShared } from '../delivery/sharedCounters.js';
import { type DeliveryLog } from '../delivery/types.js';
import { BidCache } from '../edge/doors/prebidServer/bidCache.js';
import { type ImpressionReplayGuard, ReplayGuard } from '../edge/tracking/replayGuard.js';
import { KeptReplayGuard } from '../edge/tracking/savedReplay.js';
import { type StatsStore } from '../stats/statsStore.js';
import { type Calls, CLUSTER_TAG, isClusterMessage, type Op, type ToPrimary, type ToWorker } from './protocol.js';

/**
 * What the primary of `--workers N` holds for its workers: the one stats store (DuckDB: one process
 * may open the file; null when each worker opens ClickHouse itself), the one in-memory delivery
 * counter store (unused when the workers share Redis), the impression replay guard, the Prebid cache
 * entries (unused with Redis too), and the relay
 * of delivery and config notices from one worker to the others.
 */
export class PrimaryHub {
  private readonly counters = new MemoryCounterStore();
  /** Reads spend for the workers' console (pacing); never exchanges. */
  private readonly reader = new MemoryShared(this.counters, 'primary', 0);
  /** Kept in its file and journal when `kept` says where (savedReplay.ts); else memory only. */
  private readonly replay: ImpressionReplayGuard & { firstTime(id: string, nowMs: number): boolean };
  /** Every worker's Prebid cache entries (a worker answers its own from memory, the others' from here). */
  private readonly cache = new BidCache({ maxEntries: 20_000, maxBytes: 128 * 1024 * 1024 });
  private readonly workers = new Set<Worker>();
  /** The delivery process ids a worker exchanged under: they leave the counters when it exits. */
  private readonly pids = new Map<Worker, Set<string>>();

  constructor(
    private readonly stats: StatsStore | null,
    /** Where the counters and the replay guard are kept across a restart (savedCounters.ts, savedReplay.ts); null when the workers share Redis. */
    private readonly kept: { counters: string; replay: string } | null = null,
    private readonly log: DeliveryLog = { info() {}, warn() {}, error() {} },
    private readonly clock: Clock = systemClock,
  ) {
    const now = () => clock.now();
    this.replay = kept ? new KeptReplayGuard(kept.replay, log, undefined, now) : new ReplayGuard();
    if (kept) {
      restoreCounters(this.counters, kept.counters, now(), log);
      this.checkpoints = [checkpointCounters(this.counters, kept.counters, log, undefined, now)];
    }
  }

  /** The state written every minute while the workers run (ops/savedFile.ts). */
  private checkpoints: Checkpoint[] = [];

  /** At stop, once every worker has drained. */
  async saveState(): Promise<void> {
    if (!this.kept) return;
    for (const c of this.checkpoints) void c.stop();
    saveCounters(this.counters, this.kept.counters, this.clock.now(), this.log);
    await this.replay.close?.();
  }

  attach(worker: Worker): void {
    this.workers.add(worker);
    worker.on('message', (m: unknown) => {
      if (isClusterMessage<ToPrimary>(m)) this.receive(worker, m);
    });
  }

  /** A worker exited: its leases and QPS demand go back at once (not after their lifetime). */
  detach(worker: Worker): void {
    this.workers.delete(worker);
    for (const pid of this.pids.get(worker) ?? []) this.counters.leave(pid);
    this.pids.delete(worker);
  }

  private receive(from: Worker, m: ToPrimary): void {
    if (m.kind === 'call') {
      this.answer(from, m.op, m.args).then(
        (value) => send(from, { tag: CLUSTER_TAG, kind: 'reply', id: m.id, ok: true, value }),
        (error: unknown) =>
          send(from, {
            tag: CLUSTER_TAG,
            kind: 'reply',
            id: m.id,
            ok: false,
            error: error instanceof Error ? error.message : String(error),
          }),
      );
      return;
    }
    for (const worker of this.workers)
      if (worker !== from)
        send(
          worker,
          m.kind === 'notices'
            ? { tag: CLUSTER_TAG, kind: 'notices', notices: m.notices }
            : { tag: CLUSTER_TAG, kind: 'config', version: m.version },
        );
  }

  private async answer(from: Worker, op: Op, args: Calls[Op]['args']): Promise<unknown> {
    switch (op) {
      case 'exchange': {
        const a = args as Calls['exchange']['args'];
        let seen = this.pids.get(from);
        if (!seen) this.pids.set(from, (seen = new Set()));
        seen.add(a.pid);
        return this.counters.exchange(a.pid, a.leaseTtlMs, a.x);
      }
      case 'readSpend':
        return this.reader.readSpend((args as Calls['readSpend']['args']).keys);
      case 'leave':
        this.counters.leave((args as Calls['leave']['args']).pid);
        return null;
      case 'cachePut': {
        const a = args as Calls['cachePut']['args'];
        this.cache.set(a.uuid, a.doc, a.ttlSeconds);
        return null;
      }
      case 'cacheGet':
        return this.cache.get((args as Calls['cacheGet']['args']).uuid) ?? null;
      case 'firstTimes': {
        const a = args as Calls['firstTimes']['args'];
        return a.keys.map((k) => this.replay.firstTime(k, a.now));
      }
      case 'persistReplay':
        await this.replay.persist?.();
        return null;
      default:
        return this.answerStats(op, args);
    }
  }

  private async answerStats(op: Op, args: Calls[Op]['args']): Promise<unknown> {
    const stats = this.stats;
    if (!stats) throw new Error(`stats call '${op}': this cluster's workers open the stats store themselves`);
    switch (op) {
      case 'statsWriteTable':
        if (!stats.writeTable) throw new Error(`stats call '${op}': the ${stats.engine} store takes rows, not arrays`);
        await stats.writeTable(args as Calls['statsWriteTable']['args']);
        return null;
      case 'statsWriteCsv':
        if (!stats.writeCsv) throw new Error(`stats call '${op}': the ${stats.engine} store takes rows, not CSV`);
        await stats.writeCsv((args as Calls['statsWriteCsv']['args']).csv);
        return null;
      case 'statsSelect':
        return stats.select((args as Calls['statsSelect']['args']).sql);
      case 'statsExec':
        await stats.exec((args as Calls['statsExec']['args']).sql);
        return null;
      case 'statsExport': {
        if (!stats.exportRows) throw new Error(`stats call '${op}': the ${stats.engine} store does not export rows`);
        const a = args as Calls['statsExport']['args'];
        await stats.exportRows(a.sql, a.path);
        return null;
      }
      case 'statsMigrations':
        return stats.migrations();
      default:
        throw new Error(`unknown cluster call '${op}'`);
    }
  }
}

function send(worker: Worker, message: ToWorker): void {
  // a worker that exits meanwhile: its caller is gone too
  if (worker.isConnected()) worker.send(message, undefined, () => {});
}
