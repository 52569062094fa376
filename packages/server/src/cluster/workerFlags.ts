/**
 * The node options a cluster worker starts with: the primary's own, plus V8's collector on the
 * worker's own thread (`--single-threaded-gc`) when the workers fill the machine's cores.
 *
 * V8 gives each process helper threads for its collector (parallel scavenges, concurrent marking and
 * sweeping). They pay when the process has a spare core to run them on; with a worker on every core
 * there is none, and the helpers only take turns with the event loops, their own worker's and its
 * neighbours', adding their hand-offs to the work. Measured with the edge on one core
 * (docs/performance.md, "V8's collector on one core"): the VAST path served 12-60 % more requests a
 * second with the flag, its other threads' CPU halved, and two workers on two cores went from 1.45
 * to 1.70 times one worker's rate.
 *
 * The flag must be given when the process starts (V8 aborts when it is set later). An operator's own
 * setting of it, or of the helpers' count (`--v8-pool-size`), is left as it is.
 */
export const OWN_CORE_V8_FLAGS: readonly string[] = ['--single-threaded-gc'];

const OPERATORS_OWN = /^--(no-)?single[-_]threaded[-_]gc$|^--v8[-_]pool[-_]size(=|$)/;

export function workerExecArgv(primaryExecArgv: readonly string[], workers: number, cores: number): string[] {
  if (workers < cores || primaryExecArgv.some((arg) => OPERATORS_OWN.test(arg))) return [...primaryExecArgv];
  return [...primaryExecArgv, ...OWN_CORE_V8_FLAGS];
}
