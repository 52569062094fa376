import { describe, expect, it } from 'vitest';
import { workerExecArgv } from './workerFlags.js';

describe("a cluster worker's node options", () => {
  it("adds V8's single-threaded collector when the workers fill the cores, and only then", () => {
    expect(workerExecArgv(['--enable-source-maps'], 2, 2)).toEqual(['--enable-source-maps', '--single-threaded-gc']);
    expect(workerExecArgv([], 4, 2)).toEqual(['--single-threaded-gc']);
    // a spare core: the helpers run beside the event loops
    expect(workerExecArgv(['--enable-source-maps'], 2, 4)).toEqual(['--enable-source-maps']);
  });

  it("leaves an operator's own setting of the collector's threads as it is", () => {
    expect(workerExecArgv(['--no-single-threaded-gc'], 2, 2)).toEqual(['--no-single-threaded-gc']);
    expect(workerExecArgv(['--single_threaded_gc'], 2, 2)).toEqual(['--single_threaded_gc']);
    expect(workerExecArgv(['--v8-pool-size=2'], 2, 2)).toEqual(['--v8-pool-size=2']);
  });
});
