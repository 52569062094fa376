/**
 * Impression and video events count once per decision (trackingEvents.ts). The guard remembers the
 * decision ids already counted for the token lifetime. With several processes (the workers of
 * `--workers N`, or edge nodes sharing Redis) a beacon replayed to another process must not count
 * again: `SharedReplayGuard` asks the memory they share (the cluster primary, or Redis SET NX).
 */
export interface ImpressionReplayGuard {
  /** True the first time an id is seen (within the lifetime), false on a replay; a promise when other processes are asked. */
  firstTime(id: string, nowMs: number): boolean | Promise<boolean>;
  /** Resolves once every check asked so far has its answer (and its event was counted): before the final flush. */
  drain?(): Promise<void>;
  close?(): Promise<void>;
}

/** How long a tracking token is honoured, and so how long a counted id is remembered. */
export const TRACKING_LIFETIME_HOURS = 25;

/**
 * One process's memory of counted ids, in hourly generations (a generation older than the lifetime
 * is dropped whole), so a replayed impression URL counts once without an ever-growing set.
 */
export class ReplayGuard implements ImpressionReplayGuard {
  private generations = new Map<number, Set<string>>();

  constructor(private readonly lifetimeHours = TRACKING_LIFETIME_HOURS) {}

  firstTime(id: string, nowMs: number): boolean {
    for (const seen of this.generations.values()) if (seen.has(id)) return false;
    const hour = Math.floor(nowMs / 3_600_000);
    let current = this.generations.get(hour);
    if (!current) {
      this.generations.set(hour, (current = new Set()));
      for (const h of this.generations.keys()) if (h <= hour - this.lifetimeHours) this.generations.delete(h);
    }
    current.add(id);
    return true;
  }
}

/** Asks the shared memory which ids are new (and marks them seen): one answer per id. */
export type FirstTimesCheck = (ids: string[], nowMs: number) => Promise<boolean[]>;

interface GuardLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * This process's guard first (a replay to the same process costs nothing), then the shared check,
 * one call for all the ids of a turn of the event loop. When the shared memory does not answer the
 * event is counted (this process's guard still holds): a beacon is never lost for a Redis outage,
 * and only a replay to another process during it could count twice. Logged once per outage.
 */
export class SharedReplayGuard implements ImpressionReplayGuard {
  private readonly local = new ReplayGuard();
  private pending: { id: string; resolve(first: boolean): void }[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private down = false;

  constructor(
    private readonly check: FirstTimesCheck,
    private readonly log: GuardLog,
    private readonly closeShared: () => Promise<void> = () => Promise.resolve(),
  ) {}

  firstTime(id: string, nowMs: number): boolean | Promise<boolean> {
    if (!this.local.firstTime(id, nowMs)) return false;
    return new Promise((resolve) => {
      this.pending.push({ id, resolve });
      if (this.pending.length === 1) setImmediate(() => this.ask(nowMs));
    });
  }

  private ask(nowMs: number): void {
    const batch = this.pending;
    if (!batch.length) return; // drained already
    this.pending = [];
    const answered = this.check(batch.map((p) => p.id), nowMs).then(
      (answers) => {
        if (this.down) this.log.info({}, 'impression replay guard: the shared memory answers again');
        this.down = false;
        batch.forEach((p, i) => p.resolve(answers[i] !== false));
      },
      (error: unknown) => {
        if (!this.down) this.log.warn({ err: error instanceof Error ? error.message : String(error) }, 'impression replay guard: shared memory unreachable, events are deduplicated per process until it is back');
        this.down = true;
        for (const p of batch) p.resolve(true);
      },
    );
    this.inFlight.add(answered);
    void answered.finally(() => this.inFlight.delete(answered));
  }

  /**
   * Every event asked about so far answered and counted: SIGTERM's final flush runs after this, or
   * the events whose shared check was still on its way would be lost (their count follows the answer).
   */
  async drain(): Promise<void> {
    while (this.pending.length || this.inFlight.size) {
      if (this.pending.length) this.ask(Date.now());
      await Promise.all([...this.inFlight]);
    }
    // the counts follow the answers in the microtasks queued with them
    await new Promise((resolve) => setImmediate(resolve));
  }

  close(): Promise<void> {
    return this.closeShared();
  }
}
