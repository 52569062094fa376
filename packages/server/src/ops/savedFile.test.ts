import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeptReplayGuard } from '../edge/tracking/savedReplay.js';
import { Checkpoint, type SavedStateLog } from './savedFile.js';

/**
 * State kept across restarts is also written while the process runs (Checkpoint), so that a crash
 * loses at most a checkpoint's interval of it.
 */
const dirs: string[] = [];
const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'adplane-saved-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const logOf = () => {
  const warnings: string[] = [];
  const log: SavedStateLog = { info() {}, warn: (_o, msg) => void warnings.push(msg) };
  return { log, warnings };
};
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe('Checkpoint', () => {
  it('writes the state every interval, whole, through a part file of its own', async () => {
    const dir = newDir();
    const file = join(dir, 'state.json');
    let state = 1;
    const checkpoint = new Checkpoint(file, 'test state', logOf().log, () => [JSON.stringify({ state })], 20);
    await until(() => existsSync(file) && readFileSync(file, 'utf8') === '{"state":1}');
    state = 2;
    await until(() => readFileSync(file, 'utf8') === '{"state":2}');
    await checkpoint.stop();
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('writes nothing after stop, not even a write under way (the stop writes the newer state itself)', async () => {
    const dir = newDir();
    const file = join(dir, 'state.json');
    const checkpoint = new Checkpoint(
      file,
      'test state',
      logOf().log,
      () => ['x'.repeat(1_000_000), 'y'.repeat(1_000_000)],
      60_000,
    );
    const underWay = checkpoint.write();
    void checkpoint.stop();
    await underWay;
    await checkpoint.write();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('logs a checkpoint it cannot write, and keeps trying', async () => {
    const { log, warnings } = logOf();
    const checkpoint = new Checkpoint(join(newDir(), 'missing-dir', 'state.json'), 'test state', log, () => ['x'], 20);
    await until(() => warnings.length >= 2);
    await checkpoint.stop();
    expect(warnings[0]).toBe('test state: could not write a checkpoint');
  });
});

describe('the impression replay guard across a crash', () => {
  it('remembers, at the next start, the impressions counted before the last checkpoint', async () => {
    const file = join(newDir(), 'replay-guard.bin');
    const { log } = logOf();
    const running = new KeptReplayGuard(file, log, 20);
    const now = Date.now();
    expect(running.firstTime('decision-1:impression', now)).toBe(true);
    await until(() => existsSync(file));
    // the process dies without closing: the next start reads the checkpoint
    const next = new KeptReplayGuard(file, log, 60_000);
    expect(next.firstTime('decision-1:impression', now)).toBe(false);
    expect(next.firstTime('decision-2:impression', now)).toBe(true);
    await next.close?.();
    await running.close?.();
  });
});
