import { type ChannelScope } from '@adplane/shared';

/**
 * A campaign's assignment to its tenant's channels, compiled (shared kinds/campaigns.ts
 * `channelScope`): it runs only on the channels `ids` (`include`), or on every channel but those.
 * A campaign of every channel ('all', or an exclude of none) has none: `null`.
 */
export interface ChannelAssignment {
  include: boolean;
  ids: readonly number[];
}

/**
 * One object per distinct assignment met (a book repeats a few over many campaigns), so that
 * campaigns assigned alike share it and compare by identity. Cleared when it grows past any book's variety.
 */
const assignments = new Map<string, ChannelAssignment>();

/** The compiled assignment of a campaign's `channelScope` and `channelIds`; null: every channel. */
export function channelAssignment(scope: ChannelScope, ids: readonly number[]): ChannelAssignment | null {
  if (scope === 'all' || (scope === 'exclude' && !ids.length)) return null;
  const key = `${scope}:${ids.join(',')}`;
  let made = assignments.get(key);
  if (!made) {
    if (assignments.size > 100_000) assignments.clear();
    assignments.set(key, (made = { include: scope === 'include', ids: [...ids] }));
  }
  return made;
}

/**
 * Whether an assignment lets its campaign run on channel `channelId` (0: a request from no channel, a
 * supplier's): shared `campaignRunsOn` on the compiled assignment (campaignIndex.test.ts holds them to one answer).
 */
export const runsOn = (assignment: ChannelAssignment | null | undefined, channelId: number): boolean =>
  !assignment || assignment.ids.includes(channelId) === assignment.include;
