import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type SavedStateLog } from '../../ops/savedFile.js';
import { KeptReplayGuard, REPLAY_FILE } from './savedReplay.js';
import { newDecisionId, unfilledDecisionId } from './trackingToken.js';

/**
 * The guard kept under DATA_DIR: what it answered as new and persisted is remembered by the next
 * start even when the process dies without a checkpoint or a stop (a crash right after a flush).
 */
const dirs: string[] = [];
const newFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'adplane-replay-'));
  dirs.push(dir);
  return join(dir, REPLAY_FILE);
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const log: SavedStateLog = { info() {}, warn() {} };
const HOUR = 3_600_000;
const t = Date.UTC(2026, 10, 28, 10);
/** A checkpoint interval no test reaches: only persist and close write. */
const NEVER = 3_600_000;

describe('KeptReplayGuard', () => {
  it('remembers every event persisted before a crash, with no checkpoint written', async () => {
    const file = newFile();
    const running = new KeptReplayGuard(file, log, NEVER, () => t);
    const filled = newDecisionId();
    const unfilled = unfilledDecisionId();
    const keys = [
      `${filled}:impression`,
      `${filled}:click`,
      `${filled}:error`,
      `${unfilled}:error`,
      'foreign-id:impression',
    ];
    for (const key of keys) expect(running.firstTime(key, t)).toBe(true);
    await running.persist();
    // noted after the last persist: its count has not been written either, so a new start may count it
    const late = `${newDecisionId()}:impression`;
    expect(running.firstTime(late, t)).toBe(true);
    expect(existsSync(file)).toBe(false);

    // the process dies here (no close): the next start reads the journal
    const next = new KeptReplayGuard(file, log, NEVER, () => t + 60_000);
    for (const key of keys) expect(next.firstTime(key, t + 60_000), key).toBe(false);
    expect(next.firstTime(late, t + 60_000)).toBe(true);
    await next.close();
  });

  it('a checkpoint takes over the journals it covers; a stop leaves the whole guard and no journal', async () => {
    const file = newFile();
    const dir = join(file, '..');
    const journals = () => readdirSync(dir).filter((n) => n.includes('.journal.'));
    const running = new KeptReplayGuard(file, log, NEVER, () => t);
    const first = `${newDecisionId()}:impression`;
    running.firstTime(first, t);
    await running.persist();
    expect(journals()).toHaveLength(1);
    // the checkpoint is in place: the journal it covers is gone
    await running.checkpointNow();
    expect(existsSync(file)).toBe(true);
    expect(journals()).toEqual([]);
    const second = `${newDecisionId()}:complete`;
    running.firstTime(second, t);
    await running.persist();
    expect(journals()).toHaveLength(1);

    const crashed = new KeptReplayGuard(file, log, NEVER, () => t);
    expect(crashed.firstTime(first, t)).toBe(false);
    expect(crashed.firstTime(second, t)).toBe(false);
    await running.close();
    await crashed.close();
    expect(journals()).toEqual([]);
    const after = new KeptReplayGuard(file, log, NEVER, () => t);
    expect(after.firstTime(first, t)).toBe(false);
    expect(after.firstTime(second, t)).toBe(false);
    await after.close();
  });

  it('skips a line cut by a crash and lines past the token lifetime', async () => {
    const file = newFile();
    const id = newDecisionId();
    writeFileSync(
      `${file}.journal.3`,
      `${JSON.stringify([t - 26 * HOUR, `${id}:start`])}\n${JSON.stringify([t, `${id}:impression`])}\n`,
    );
    appendFileSync(`${file}.journal.3`, '[17000');
    const next = new KeptReplayGuard(file, log, NEVER, () => t);
    expect(next.firstTime(`${id}:impression`, t)).toBe(false);
    expect(next.firstTime(`${id}:start`, t)).toBe(true);
    // new lines go to a later journal than any found
    await next.persist();
    expect(
      readdirSync(join(file, '..'))
        .filter((n) => n.includes('.journal.'))
        .sort(),
    ).toEqual([`${REPLAY_FILE}.journal.3`, `${REPLAY_FILE}.journal.4`]);
    await next.close();
  });
});
