/**
 * A compile step cut into slices: a generator that yields between slices and returns the step's
 * result. The snapshot compiler runs it with a turn of the event loop between slices (`withTurns`),
 * so requests wait behind one slice, not the whole step; tests and one-off compiles run it at once.
 */
export type Sliced<T> = Generator<void, T, void>;

/** Rows of a step compiled between two turns: a few milliseconds of a core at the bench's sizes. */
export const SLICE_ROWS = 4_000;

/**
 * Demand tags and channels compiled between two turns: a channel's row costs about five campaigns'
 * (its demand list, floor rules, split arms and layout), 10,000 channels about 50 ms at once.
 */
export const SUPPLY_SLICE_ROWS = 1_000;

/** Runs `step` to its end without a pause. */
export function atOnce<T>(step: Sliced<T>): T {
  for (;;) {
    const r = step.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs `loads` one after another, awaiting `between` (a loop turn) after each, and answers their
 * values in order. The embedded store answers a query on the serving thread, and promises settled
 * together run as one task: loads run side by side would hold the loop for all of their reads.
 */
export async function oneByOne<T extends readonly (() => Promise<unknown>)[]>(
  loads: T,
  between: () => Promise<void>,
): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
  const values: unknown[] = [];
  for (const load of loads) {
    values.push(await load());
    await between();
  }
  return values as { -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> };
}

/** Runs `step`, awaiting `between` (a loop turn) after each of its slices. */
export async function withTurns<T>(step: Sliced<T>, between: () => Promise<void>): Promise<T> {
  for (;;) {
    const r = step.next();
    if (r.done) return r.value;
    await between();
  }
}
