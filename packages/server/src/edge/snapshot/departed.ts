import { MAX_AGE_S } from '../vast/adLifetime.js';
import { plainCampaign } from './campaignBook.js';
import { OverlayMap } from './overlayMap.js';
import { type Departed, type LeftAt, type SnapCampaign, type Snapshot, type SnapTag } from './types.js';

/**
 * How long an entity that left the snapshot is still known to the impression count: as long as a
 * tracking token lives (a VAST answer may be played hours after it was fetched), so an impression
 * of a campaign paused since can come that late.
 */
export const DEPARTED_MS = MAX_AGE_S * 1000;

/**
 * The campaigns and demand tags that left between builds, kept with the moment they left. A build
 * reads the previous snapshot's maps against the new ones (ids only: a few ms for a book of 100,000
 * campaigns), so nothing is read from the store for it.
 */
export class DepartedEntities {
  private readonly campaigns = new Map<number, LeftAt<SnapCampaign>>();
  private readonly tags = new Map<number, LeftAt<SnapTag>>();

  /** Notes what left from `previous` to `next` (and what came back), and gives `next` the current view. */
  swap(previous: Snapshot | null, next: Snapshot, now: number): void {
    if (previous) {
      // a campaign is kept as a plain object: the columns it was read from may go (campaignBook.ts)
      note(this.campaigns, previous.campaigns, next.campaigns, now, plainCampaign);
      note(this.tags, previous.tags, next.tags, now, (tag) => tag);
    }
    // a process's first build: what left before it started, read from the store (compileSnapshot.ts)
    const before = next.leftBeforeStart;
    if (before) {
      seed(this.campaigns, before.campaigns, next.campaigns);
      seed(this.tags, before.tags, next.tags);
      next.leftBeforeStart = undefined; // (not `delete`: the snapshot keeps its shape)
    }
    next.departed = this.view();
  }

  private view(): Departed {
    return { campaigns: values(this.campaigns), tags: values(this.tags) };
  }
}

function note<T>(
  left: Map<number, LeftAt<T>>,
  before: ReadonlyMap<number, T>,
  after: ReadonlyMap<number, T>,
  now: number,
  keep: (value: T) => T,
): void {
  for (const [id, entry] of left) if (after.has(id) || now - entry.at > DEPARTED_MS) left.delete(id);
  // a map laid over the other (overlayMap.ts) differs from it only in the keys it changed
  const changed = OverlayMap.changedBetween(before, after);
  if (changed) {
    for (const id of changed) {
      const value = before.get(id);
      if (value !== undefined && !after.has(id)) left.set(id, { value: keep(value), at: now });
    }
  } else for (const [id, value] of before) if (!after.has(id)) left.set(id, { value: keep(value), at: now });
}

function seed<T>(
  left: Map<number, LeftAt<T>>,
  before: ReadonlyMap<number, LeftAt<T>>,
  live: ReadonlyMap<number, T>,
): void {
  for (const [id, entry] of before) if (!live.has(id) && !left.has(id)) left.set(id, entry);
}

function values<T>(left: Map<number, LeftAt<T>>): ReadonlyMap<number, T> {
  return new Map([...left].map(([id, entry]) => [id, entry.value]));
}
