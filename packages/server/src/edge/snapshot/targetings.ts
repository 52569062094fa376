import { type AppListRow, type CreListRow, isLive, type PubListRow, type TargetingRow } from '@adplane/shared';
import { compileTargeting, type CompiledTargeting, type ListItems } from '../targeting/compiledTargeting.js';

/**
 * Targetings and the lists they reference, compiled once. A paused or archived list contributes no
 * items; a paused or archived targeting is treated as no targeting (it no longer restricts).
 */
function items(lists: readonly (AppListRow | PubListRow | CreListRow)[]): Map<number, readonly string[]> {
  const out = new Map<number, readonly string[]>();
  for (const list of lists) if (isLive(list)) out.set(list.id, list.items);
  return out;
}

export function compileTargetings(rows: {
  targetings: readonly TargetingRow[];
  applists: readonly AppListRow[];
  publists: readonly PubListRow[];
  crelists: readonly CreListRow[];
}): Map<number, CompiledTargeting> {
  const lists: ListItems = { apps: items(rows.applists), publishers: items(rows.publists), creatives: items(rows.crelists) };
  const out = new Map<number, CompiledTargeting>();
  for (const t of rows.targetings) if (isLive(t)) out.set(t.id, compileTargeting(t.id, t.rules, lists));
  return out;
}
