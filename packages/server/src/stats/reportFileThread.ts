import { type Worker } from 'node:worker_threads';
import { type DimensionId, type ReportRequest, type ReportRow } from '@adplane/shared';
import { type FromThread, type JobOp, type RowSource, type ToThread } from './reportFileProtocol.js';
import { startWorkerThread } from './workerThread.js';

/** How long the thread stays up with no file to write: then it ends and hands its memory back. */
const IDLE_MS = 30_000;

/** The error a job's call fails with when the job was cancelled. */
export class JobCancelled extends Error {}

/** Names of a dimension's entity ids (the serving thread's config store). */
export type Namer = (dimension: DimensionId, ids: number[]) => Promise<Map<number, string>>;

/**
 * The report-file thread of a process (reportFileWorker.ts), started with its first file and ended
 * after IDLE_MS without one. The serving thread keeps the line, the saved reports' rows and the
 * config store's names; the thread writes the files' CSV.
 */
export class ReportFileThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private nextJob = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly jobs = new Map<number, Namer | null>();
  private idle: NodeJS.Timeout | null = null;

  /** A job for one file; `namer` null leaves entity names out (a context without a config store). */
  job(namer: Namer | null): ReportFileJob {
    const job = this.nextJob++;
    this.jobs.set(job, namer);
    return new ReportFileJob(this, job, namer !== null);
  }

  call(job: number, op: JobOp): Promise<unknown> {
    const worker = this.running();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post(worker, { t: 'call', id, job, op });
    });
  }

  cancel(job: number): void {
    if (this.worker) this.post(this.worker, { t: 'cancel', job });
  }

  /** The job ended: the thread ends once no job is left for IDLE_MS. */
  done(job: number): void {
    this.jobs.delete(job);
    if (this.jobs.size === 0 && this.pending.size === 0 && this.worker) {
      if (this.idle) clearTimeout(this.idle);
      this.idle = setTimeout(() => void this.close(), IDLE_MS);
      this.idle.unref();
    }
  }

  /** Ends the thread (after the files being written were finished: the line's close). */
  async close(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private post(worker: Worker, message: ToThread): void {
    worker.postMessage(message);
  }

  private running(): Worker {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    if (this.worker) return this.worker;
    const worker = startWorkerThread('reportFileWorker');
    // the thread never holds the process open: the file line's close ends it
    worker.unref();
    worker.on('message', (message: FromThread) => this.heard(worker, message));
    const failAll = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the report file thread ended (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private heard(worker: Worker, message: FromThread): void {
    if (message.t === 'names') {
      const namer = this.jobs.get(message.job);
      const answer = (names: [number, string][]) => this.post(worker, { t: 'names', ask: message.ask, names });
      if (!namer) return answer([]);
      namer(message.dimension, message.ids).then(
        (names) => answer([...names]),
        // the file names those ids `#id`, as a report does an entity it cannot name
        () => answer([]),
      );
      return;
    }
    const p = this.pending.get(message.id);
    this.pending.delete(message.id);
    if (!p) return;
    if (message.ok) p.resolve(message.value);
    else p.reject(message.cancelled ? new JobCancelled() : new Error(message.error));
  }
}

/** One file's calls to the thread, in turn: open (the header), rows part by part, close (the totals). */
export class ReportFileJob {
  constructor(
    private readonly thread: ReportFileThread,
    private readonly id: number,
    private readonly named: boolean,
  ) {}

  open(path: string, request: ReportRequest): Promise<void> {
    return this.thread.call(this.id, { kind: 'open', path, request, named: this.named }).then(() => undefined);
  }

  /** Writes the rows of `source`; `signal` stops it at its next chunk (JobCancelled). Answers how many. */
  async rows(source: RowSource, signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) throw new JobCancelled();
    const stop = () => this.thread.cancel(this.id);
    signal?.addEventListener('abort', stop, { once: true });
    try {
      return (await this.thread.call(this.id, { kind: 'rows', source })) as number;
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  close(totals: ReportRow | null): Promise<void> {
    return this.thread.call(this.id, { kind: 'close', totals }).then(() => undefined);
  }

  /** Drops the job (its file's stream closed, nothing more written) and lets the thread go idle. */
  end(cancelled: boolean): void {
    if (cancelled) this.thread.cancel(this.id);
    this.thread.done(this.id);
  }
}
