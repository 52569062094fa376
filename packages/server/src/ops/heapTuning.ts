import { setFlagsFromString } from 'node:v8';

/**
 * How much V8 lets the old generation grow past what the last full collection found live, in
 * percent. V8's own default grows it up to 4 times when the heap is large: for a process holding a
 * big, long-lived snapshot (the edge's 100,000 campaigns are ~165 MB live) that is 100-150 MB of
 * resident memory held as headroom. 25 % keeps the heap near its live size for a few more full
 * collections (measured in docs/performance.md: the same request rate, 60 MB less resident).
 */
export const HEAP_GROWING_PERCENT = 25;

const FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * Sets the heap growth of this process (and so of each cluster worker, which runs the same entry)
 * unless node was started with its own `--heap-growing-percent`. Called first by the adplane
 * command; true when it set the flag.
 */
export function tuneHeap(execArgv: readonly string[] = process.execArgv, set: (flags: string) => void = setFlagsFromString): boolean {
  if (execArgv.some((arg) => FLAG.test(arg))) return false;
  set(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
