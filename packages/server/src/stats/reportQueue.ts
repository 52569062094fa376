/**
 * The line report work waits in, per process: a few jobs run at once overall, fewer per user, and
 * each user may have only so many in line (running and waiting) before a new one is refused. Report
 * files and interactive runs each have a line of their own (docs/reports.md, "Limits").
 *
 * A report is DuckDB's threads and the event loop's time in the process that serves the edge: the
 * overall limit bounds what reports take from it however many users ask at once, and the per-user
 * limits keep one user's year of files from holding everyone else's back.
 */

export interface LineLimits {
  /** Jobs running at once in this process. */
  running: number;
  /** Jobs of one user running at once. */
  runningPerUser: number;
  /** Jobs of one user in line, running and waiting: one more is refused. */
  perUser: number;
  /** Jobs waiting overall: one more that cannot start at once is refused. */
  waiting: number;
}

/** Where a job is: being worked on, or waiting with `ahead` jobs before it. */
export type LineState = { state: 'running' } | { state: 'waiting'; ahead: number };

/** A job the line does not take: the user has `perUser` in line already, or the process is full. */
export class LineFull extends Error {
  constructor(
    readonly reason: 'user' | 'server',
    /** The user's jobs running and waiting (reason 'user'), or every job waiting (reason 'server'). */
    readonly running: number,
    readonly waiting: number,
  ) {
    super(reason === 'user' ? `${running + waiting} jobs of this user in line` : `${waiting} jobs waiting`);
    this.name = 'LineFull';
  }
}

interface Job {
  key: number;
  owner: number;
  work: (signal: AbortSignal) => Promise<void>;
  abort: AbortController;
  done?: Promise<void>;
}

export class WorkLine {
  private readonly waitingJobs: Job[] = [];
  private readonly runningJobs = new Map<number, Job>();
  private nextKey = -1;

  constructor(readonly limits: LineLimits) {}

  /** The user's jobs running and waiting. */
  countOf(owner: number): { running: number; waiting: number } {
    let running = 0;
    for (const job of this.runningJobs.values()) if (job.owner === owner) running++;
    return { running, waiting: this.waitingJobs.filter((j) => j.owner === owner).length };
  }

  /**
   * Puts `work` in line under `key` (a file's saved report id): it starts at once when there is room,
   * else when a job before it ends. Throws LineFull when the user or the process has no room left.
   * `work` gets a signal that is aborted when the job is cancelled while it runs.
   */
  add(owner: number, key: number, work: (signal: AbortSignal) => Promise<void>): LineState {
    const mine = this.countOf(owner);
    if (mine.running + mine.waiting >= this.limits.perUser) throw new LineFull('user', mine.running, mine.waiting);
    const job: Job = { key, owner, work, abort: new AbortController() };
    if (!this.startable(job) && this.waitingJobs.length >= this.limits.waiting)
      throw new LineFull('server', this.runningJobs.size, this.waitingJobs.length);
    this.waitingJobs.push(job);
    this.pump();
    return this.stateOf(key)!;
  }

  /** Runs `work` in its turn and answers what it answers (an interactive report: the caller waits). */
  run<T>(owner: number, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.add(owner, this.nextKey--, async () => {
        try {
          resolve(await work());
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** null when the line does not hold `key` (never did, or it ended). */
  stateOf(key: number): LineState | null {
    if (this.runningJobs.has(key)) return { state: 'running' };
    const at = this.waitingJobs.findIndex((j) => j.key === key);
    if (at < 0) return null;
    // what it waits for: the jobs queued before it, and its user's own jobs being worked on
    return { state: 'waiting', ahead: at + this.countOf(this.waitingJobs[at]!.owner).running };
  }

  /** Takes a waiting job out of line (true), or aborts a running one's signal (true); false when not held. */
  cancel(key: number): boolean {
    const at = this.waitingJobs.findIndex((j) => j.key === key);
    if (at >= 0) {
      this.waitingJobs.splice(at, 1);
      return true;
    }
    const job = this.runningJobs.get(key);
    job?.abort.abort();
    return Boolean(job);
  }

  /** Empties the line (answering the keys that were waiting, never started) and waits for the running jobs to end. */
  async close(): Promise<number[]> {
    const dropped = this.waitingJobs.splice(0).map((j) => j.key);
    await Promise.allSettled([...this.runningJobs.values()].map((j) => j.done));
    return dropped;
  }

  private startable(job: Job): boolean {
    return this.runningJobs.size < this.limits.running && this.countOf(job.owner).running < this.limits.runningPerUser;
  }

  private pump(): void {
    for (let i = 0; i < this.waitingJobs.length && this.runningJobs.size < this.limits.running; ) {
      const job = this.waitingJobs[i]!;
      if (!this.startable(job)) {
        i++;
        continue;
      }
      this.waitingJobs.splice(i, 1);
      this.runningJobs.set(job.key, job);
      // a job's own errors are its own to report; the line only needs to know it ended
      job.done = Promise.resolve()
        .then(() => job.work(job.abort.signal))
        .catch(() => undefined)
        .finally(() => {
          this.runningJobs.delete(job.key);
          this.pump();
        });
    }
  }
}

/** Report work's two lines in a process: files (in the background) and interactive runs (the caller waits). */
export interface ReportLines {
  files: WorkLine;
  runs: WorkLine;
}

/**
 * One file of a user written at a time, `filesAtOnce` overall, `filesPerUser` in line per user; at
 * most 50 files waiting in the process. Interactive runs: two of a user at a time (the console runs
 * a few at once: a report and its filter lists, the top bar's month to date), ten in line, four overall.
 */
export function createReportLines(o: { filesAtOnce: number; filesPerUser: number }): ReportLines {
  return {
    files: new WorkLine({ running: o.filesAtOnce, runningPerUser: 1, perUser: o.filesPerUser, waiting: 50 }),
    runs: new WorkLine({ running: 4, runningPerUser: 2, perUser: 10, waiting: 100 }),
  };
}
