/**
 * Work a process does now and then (the api role's alert checks, report schedules, outbox and
 * housekeeping): a pass at start, then one every `everyMs`, and one whenever a caller asks (`run`,
 * e.g. right after it wrote what the pass reads). One pass at a time in a process: a call while a
 * pass runs asks for one more after it and gets that one's result, so what the caller wrote before
 * calling is seen; calls during the same pass share that one pass. Other processes are kept apart by
 * the work itself (a row claimed in the store), not here.
 */
export interface PeriodicPass<T> {
  /** A pass that starts after this call: at once, or after the one under way. After `stop`, `idle`. */
  run(): Promise<T>;
  /**
   * A pass now, then every `everyMs` (the timer does not hold the process open). Resolves when the
   * first pass has ended (its failure goes to `onError`), for a caller that starts serving after it.
   */
  start(everyMs: number): Promise<void>;
  /** No more passes; resolves when the one under way (if any) has ended. */
  stop(): Promise<void>;
}

/**
 * `pass` run as a PeriodicPass. `idle` is what `run` gives once stopped; `onError` hears a failed
 * pass the timer started (a caller of `run` gets its failure itself).
 */
export function periodicPass<T>(pass: () => Promise<T>, idle: T, onError: (error: unknown) => void): PeriodicPass<T> {
  let running: Promise<T> | null = null;
  let next: Promise<T> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const run = (): Promise<T> => {
    if (stopped) return Promise.resolve(idle);
    if (!running) {
      const current = pass().finally(() => {
        if (running === current) running = null;
      });
      running = current;
      return current;
    }
    // one pass after the one under way, shared by every call made meanwhile
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = null;
        return run();
      });
    return next;
  };
  const tick = () => void run().catch(onError);

  return {
    run,
    start(everyMs) {
      if (timer || stopped) return Promise.resolve();
      timer = setInterval(tick, everyMs).unref();
      return run().then(() => undefined, onError);
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
}
