import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * In a process of its own (the test runner's threads are not the ones to lower): after
 * lowerOtherThreads, a worker thread started before runs at the background nice value; one started
 * after takes its starter's (the main thread's) until the next look lowers it; the main thread keeps
 * its own.
 */
const SCRIPT = `
import { Worker } from 'node:worker_threads';
import { getPriority } from 'node:os';
import { lowerOtherThreads, BACKGROUND_NICE } from ${JSON.stringify(new URL('./threadPriority.ts', import.meta.url).pathname)};
const niceOfWorker = (worker) => new Promise((resolve) => worker.once('message', resolve));
const code = "Promise.all([import('node:worker_threads'), import('node:fs'), import('node:os')]).then(([{ parentPort }, { readlinkSync }, { getPriority }]) => { parentPort.on('message', () => parentPort.postMessage(getPriority(Number(readlinkSync('/proc/thread-self').split('/').pop())))); parentPort.postMessage('up'); });";
const start = async () => { const w = new Worker(code, { eval: true }); await niceOfWorker(w); return w; };
const ask = (w) => { const answer = niceOfWorker(w); w.postMessage('nice?'); return answer; };
const before = await start();
const changed = lowerOtherThreads();
const after = await start();
const out = { changed, main: getPriority(process.pid), before: await ask(before), afterStarted: await ask(after) };
lowerOtherThreads();
out.afterLook = await ask(after);
out.background = BACKGROUND_NICE;
console.log(JSON.stringify(out));
process.exit(0);
`;

describe.runIf(existsSync('/proc/self/task'))('the serving thread first', () => {
  it('lowers every other thread, keeps the main one, and lowers a thread started since at the next look', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    expect(out.changed).toBeGreaterThan(0);
    expect(out.main).toBe(0);
    expect(out.before).toBe(out.background);
    // started by the main thread, it takes the main thread's priority until the next look
    expect(out.afterStarted).toBe(0);
    expect(out.afterLook).toBe(out.background);
  });
});
