import { describe, expect, it } from 'vitest';
import { OverlayMap } from './overlayMap.js';

/**
 * A map laid over another (overlayMap.ts) answers as the plain map it stands for, through rounds
 * of changes (past the count at which it is made plain again), each round's map left as it was, and
 * names every key that differs between two rounds.
 */
describe('OverlayMap', () => {
  it('answers as a plain map through rounds of changes, and finds what differs between rounds', () => {
    let seed = 11;
    const rnd = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const plain = new Map<number, string>();
    for (let k = 0; k < 2_000; k++) plain.set(k, `v${k}`);
    let overlay = OverlayMap.of(new Map(plain));
    const rounds: { overlay: OverlayMap<string>; plain: Map<number, string> }[] = [];
    for (let round = 0; round < 40; round++) {
      const changes = new Map<number, string | null>();
      // one round changes more keys than an overlay keeps, so the map is made plain again on the way
      const n = round === 20 ? 25_000 : Math.floor(rnd() * 50);
      for (let i = 0; i < n; i++) {
        const key = Math.floor(rnd() * (round === 20 ? 30_000 : 2_500));
        changes.set(key, rnd() < 0.3 ? null : `r${round}.${i}`);
      }
      const before = overlay;
      overlay = overlay.with(changes);
      for (const [key, value] of changes) {
        if (value === null) plain.delete(key);
        else plain.set(key, value);
      }
      expect(overlay.size).toBe(plain.size);
      expect(new Map(overlay)).toEqual(plain);
      for (let key = -1; key < 2_600; key += 7) {
        expect(overlay.get(key)).toBe(plain.get(key));
        expect(overlay.has(key)).toBe(plain.has(key));
      }
      // what left between the two rounds, found among the keys changed
      const changed = OverlayMap.changedBetween(before, overlay);
      if (changed) {
        const left = [...changed].filter((key) => before.has(key) && !overlay.has(key)).sort((a, b) => a - b);
        const leftAll = [...before.keys()].filter((key) => !overlay.has(key)).sort((a, b) => a - b);
        expect(left).toEqual(leftAll);
      }
      rounds.push({ overlay, plain: new Map(plain) });
    }
    // every round's map still answers what it did
    for (const r of rounds) expect(new Map(r.overlay)).toEqual(r.plain);
    expect([...overlay.keys()].length).toBe(plain.size);
    expect([...overlay.values()].sort()).toEqual([...plain.values()].sort());
  });
});
