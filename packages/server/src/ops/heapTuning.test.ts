import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, tuneHeap } from './heapTuning.js';

describe('tuneHeap', () => {
  it('sets the heap growth and turns allocation-site pretenuring off when node was started without them', () => {
    const set: string[] = [];
    const flags = [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`, '--no-allocation-site-pretenuring'];
    expect(tuneHeap(['--enable-source-maps'], (f) => set.push(f))).toEqual(flags);
    expect(set).toEqual(flags);
  });

  it("leaves an operator's own setting of either flag alone, in either spelling", () => {
    for (const argv of [
      ['--heap-growing-percent=50'],
      ['--heap_growing_percent=10'],
      ['--heap-growing-percent', '40'],
    ]) {
      const set: string[] = [];
      expect(tuneHeap(argv, (f) => set.push(f))).toEqual(['--no-allocation-site-pretenuring']);
      expect(set).toEqual(['--no-allocation-site-pretenuring']);
    }
    for (const argv of [
      ['--allocation-site-pretenuring'],
      ['--no-allocation-site-pretenuring'],
      ['--no_allocation_site_pretenuring'],
    ]) {
      const set: string[] = [];
      expect(tuneHeap(argv, (f) => set.push(f))).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
      expect(set).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
    }
  });

  it('keeps the old generation near its live size in a real process', () => {
    // ~140 MB of long-lived objects, then garbage: with V8's default growth the heap reserves about
    // three times what stays live (455 MB here); tuned, about 1.6 times (230 MB)
    const script = `
      if (process.argv[1] === 'tuned') require('node:v8').setFlagsFromString('--heap-growing-percent=${HEAP_GROWING_PERCENT}');
      globalThis.keep = [];
      for (let i = 0; i < 1_000_000; i++) keep.push({ a: i, b: 'x' + i, c: [i] });
      const churn = () => { for (let r = 0; r < 20; r++) { const g = []; for (let i = 0; i < 200_000; i++) g.push({ i, s: 'y' + i }); globalThis.last = g; } };
      churn();
      globalThis.gc();
      const live = process.memoryUsage().heapUsed;
      churn();
      process.stdout.write(JSON.stringify({ live, total: process.memoryUsage().heapTotal }));
    `;
    const run = (mode: string) =>
      JSON.parse(execFileSync(process.execPath, ['--expose-gc', '-e', script, mode], { encoding: 'utf8' })) as {
        live: number;
        total: number;
      };
    const tuned = run('tuned');
    const plain = run('plain');
    expect(tuned.live).toBeGreaterThan(100_000_000);
    expect(tuned.total).toBeLessThan(plain.total * 0.8);
  }, 60_000);
});
