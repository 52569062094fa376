import { parseChannelRow, parseDemandTagRow } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { storedRow } from '../../../test/storedRows.js';
import { type Owners } from './accounts.js';
import { compileChannelSlices } from './channels.js';
import { type Sliced, SUPPLY_SLICE_ROWS } from './slices.js';
import { compileTagSlices } from './tags.js';

/**
 * The snapshot compiles demand tags and channels in slices of SUPPLY_SLICE_ROWS rows, handing the
 * event loop back between them (compileSnapshot.ts): each step pauses where it should, and what it
 * makes over its pauses is every row, whole.
 */
const owners: Owners = {
  tenants: new Map([[1, { id: 1, name: 'Tenant', timezone: 0, showDsp: true }]]),
  subpublishers: new Map(),
  advertisers: new Map(),
  sellerIds: new Map(),
};

/** Runs a step to its end, counting its pauses. */
function run<T>(step: Sliced<T>): { value: T; pauses: number } {
  let pauses = 0;
  for (;;) {
    const r = step.next();
    if (r.done) return { value: r.value, pauses };
    pauses++;
  }
}

const COUNT = 2 * SUPPLY_SLICE_ROWS + 10;
const tags = Array.from(
  { length: COUNT },
  (_, i) =>
    parseDemandTagRow(storedRow(1 + i, { integration: 'VAST', vastUrl: `https://ads.example.com/vast?t=${i}` }))!,
);
// every tenth tag paused: a channel naming it says so instead of calling it
tags.forEach((t, i) => {
  if (i % 10 === 0) t.status = 0;
});

describe('the supply steps in slices', () => {
  it('compiles the tags in three slices, every row live or idle', () => {
    const { value, pauses } = run(compileTagSlices(tags, owners, new Map()));
    expect(pauses).toBe(2);
    expect(value.live.size + value.idle.size).toBe(COUNT);
    expect(value.idle.get(1)).toBe('paused');
    expect(value.live.get(2)!.name).toBe('Row 2');
  });

  it('compiles the channels in three slices, each with its demand', () => {
    const { value: compiledTags } = run(compileTagSlices(tags, owners, new Map()));
    const channels = Array.from(
      { length: COUNT },
      (_, i) =>
        parseChannelRow(
          storedRow(1 + i, { integration: 'VAST', demand: [{ tagId: 1 + i, priority: 1 }] }, { uid: `ch${i}` }),
        )!,
    );
    const { value, pauses } = run(compileChannelSlices(channels, owners, compiledTags, new Map()));
    expect(pauses).toBe(2);
    expect(value.size).toBe(COUNT);
    expect(value.get(1)!.idleTags).toEqual([{ id: 1, reason: 'paused' }]);
    const last = value.get(COUNT)!;
    expect(last.serving).toBe(true);
    expect(last.demand.map((d) => d.tag.id)).toEqual([COUNT]);
  });
});
