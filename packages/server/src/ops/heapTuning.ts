import { setFlagsFromString } from 'node:v8';

/**
 * How much V8 lets the old generation grow past what the last full collection found live, in
 * percent. V8's own default grows it up to 4 times when the heap is large: for a process holding a
 * big, long-lived snapshot (the edge's 100,000 campaigns are ~165 MB live) that is 100-150 MB of
 * resident memory held as headroom. 25 % keeps the heap near its live size for a few more full
 * collections (docs/performance.md, "Levers": the same request rate, 58 MB less resident).
 */
export const HEAP_GROWING_PERCENT = 25;

/**
 * The V8 flags the adplane command sets, each with the pattern of an operator's own setting of it.
 *
 * - The heap's growth, above.
 * - No allocation-site pretenuring: V8 allocates straight in the old generation from any site whose
 *   objects it saw survive a young collection. A full collection's marking (150-250 ms on one core)
 *   or a burst keeps a demand call's short-lived objects alive across one, and from then on every
 *   call's request objects went to the old generation and brought full collections sooner: in the
 *   edge bench's demand-tag case, 49 KB of each request outlived the young generation with it and
 *   20 KB without, the p99 fell from 71-81 to 61-67 ms added, the half-load p99 from 126-134 to
 *   110-115 ms, and a cold snapshot build from 3.4 s to 2.8 s (measured with bench/edge.bench.ts).
 */
const TUNED: readonly { flag: string; own: RegExp }[] = [
  { flag: `--heap-growing-percent=${HEAP_GROWING_PERCENT}`, own: /^--heap[-_]growing[-_]percent(=|$)/ },
  { flag: '--no-allocation-site-pretenuring', own: /^--(no[-_])?allocation[-_]site[-_]pretenuring$/ },
];

/**
 * Sets the tuned V8 flags of this process (and so of each cluster worker, which runs the same
 * entry), each unless node was started with its own setting of it. Called first by the adplane
 * command; answers the flags it set.
 */
export function tuneHeap(
  execArgv: readonly string[] = process.execArgv,
  set: (flags: string) => void = setFlagsFromString,
): string[] {
  const applied: string[] = [];
  for (const { flag, own } of TUNED) {
    if (execArgv.some((arg) => own.test(arg))) continue;
    set(flag);
    applied.push(flag);
  }
  return applied;
}
