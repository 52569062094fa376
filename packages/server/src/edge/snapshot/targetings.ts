import { type AppListRow, type CreListRow, isLive, type PubListRow, type TargetingRow } from '@adplane/shared';
import { compileTargeting, type CompiledTargeting, type ListItems } from '../targeting/compiledTargeting.js';
import { Kept, sameElements } from './kept.js';

/**
 * Targetings and the lists they reference, compiled once. A paused or archived list contributes no
 * items; a paused or archived targeting is treated as no targeting (it no longer restricts).
 */
function items(lists: readonly (AppListRow | PubListRow | CreListRow)[]): Map<number, readonly string[]> {
  const out = new Map<number, readonly string[]>();
  for (const list of lists) if (isLive(list)) out.set(list.id, list.items);
  return out;
}

/**
 * Live targetings, compiled. `kept` (the snapshot compiler's, across builds) keeps the compiled
 * object of a targeting whose row did not change, when the items of the lists it names did not
 * either (each list's items are the same array while its row is unchanged).
 */
export function compileTargetings(
  rows: {
    targetings: readonly TargetingRow[];
    applists: readonly AppListRow[];
    publists: readonly PubListRow[];
    crelists: readonly CreListRow[];
  },
  kept: TargetingsKept = new Kept(),
): Map<number, CompiledTargeting> {
  const lists: ListItems = {
    apps: items(rows.applists),
    publishers: items(rows.publists),
    creatives: items(rows.crelists),
  };
  const out = new Map<number, CompiledTargeting>();
  for (const t of rows.targetings) {
    if (!isLive(t)) continue;
    const named = [
      ...listsNamed(t.rules.appLists, lists.apps),
      ...listsNamed(t.rules.pubLists, lists.publishers),
      ...listsNamed(t.rules.creLists, lists.creatives),
    ];
    const made = kept.take(
      t,
      (last) => sameElements(last.lists, named),
      () => ({ compiled: compileTargeting(t.id, t.rules, lists), lists: named }),
    );
    out.set(t.id, made.compiled);
  }
  return out;
}

/** A compiled targeting, with the items of the lists it was compiled from. */
export type TargetingsKept = Kept<
  TargetingRow,
  { compiled: CompiledTargeting; lists: readonly (readonly string[] | undefined)[] }
>;

/** The items of each list a rule names (undefined for a list that is not live), in the rule's order. */
function listsNamed(
  rule: { ids: readonly number[] } | null | undefined,
  lists: ReadonlyMap<number, readonly string[]>,
): (readonly string[] | undefined)[] {
  return rule ? rule.ids.map((id) => lists.get(id)) : [];
}
