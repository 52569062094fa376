import { describe, expect, it } from 'vitest';
import { coalescedWrites } from './coalescedWrites.js';

describe('coalescedWrites', () => {
  it('writes the first batch at once and joins those that arrive while it runs', async () => {
    const writes: number[][] = [];
    let release: () => void = () => undefined;
    const write = coalescedWrites<number>(async (parts) => {
      writes.push(parts);
      if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = write(1);
    const later = [write(2), write(3), write(4)];
    expect(writes).toEqual([[1]]);
    release();
    await Promise.all([first, ...later]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
    // idle again: the next batch goes at once, alone
    await write(5);
    expect(writes).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('refuses every batch of a refused write, and only those', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const write = coalescedWrites<string>(async (parts) => {
      calls++;
      if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
      if (parts.includes('bad')) throw new Error('store down');
    });
    const ok = write('a');
    const joined = [write('bad'), write('b')];
    release();
    await expect(ok).resolves.toBeUndefined();
    await expect(joined[0]).rejects.toThrow('store down');
    await expect(joined[1]).rejects.toThrow('store down');
    await expect(write('c')).resolves.toBeUndefined();
  });
});
