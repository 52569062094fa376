import {
  type AppListRow,
  type CreListRow,
  type IpListRow,
  isLive,
  type PubListRow,
  type TargetingRow,
} from '@adplane/shared';
import { compileTargeting, type CompiledTargeting, type ListItems } from '../targeting/compiledTargeting.js';
import { compileIpList, type IpList } from '../targeting/ipLists.js';
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

/** Each IP list compiled once while its row is unchanged (a row is the same parsed object until it changes: parsedRows.ts). */
const compiledIpLists = new WeakMap<IpListRow, IpList>();

/** The live IP lists, compiled for the checks every request makes (targeting/ipLists.ts). */
function ipLists(rows: readonly IpListRow[]): Map<number, IpList> {
  const out = new Map<number, IpList>();
  for (const row of rows) {
    if (!isLive(row)) continue;
    let list = compiledIpLists.get(row);
    if (!list) compiledIpLists.set(row, (list = compileIpList(row.id, row.name, row.items)));
    out.set(row.id, list);
  }
  return out;
}

/**
 * Live targetings, compiled. `kept` (the snapshot compiler's, across builds) keeps the compiled
 * object of a targeting whose row did not change, when the lists it names did not either (each
 * list's items are the same array, and an IP list the same compiled object, while its row is unchanged).
 */
export function compileTargetings(
  rows: {
    targetings: readonly TargetingRow[];
    applists: readonly AppListRow[];
    publists: readonly PubListRow[];
    crelists: readonly CreListRow[];
    /** Absent: none. */
    iplists?: readonly IpListRow[];
  },
  kept: TargetingsKept = new Kept(),
): Map<number, CompiledTargeting> {
  const ips = ipLists(rows.iplists ?? []);
  const lists: ListItems = {
    apps: items(rows.applists),
    publishers: items(rows.publists),
    creatives: items(rows.crelists),
    ips,
  };
  const out = new Map<number, CompiledTargeting>();
  for (const t of rows.targetings) {
    if (!isLive(t)) continue;
    const named = [
      ...listsNamed(t.rules.appLists, lists.apps),
      ...listsNamed(t.rules.pubLists, lists.publishers),
      ...listsNamed(t.rules.creLists, lists.creatives),
      ...listsNamed(t.rules.ipLists, ips),
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

/** A compiled targeting, with what it was compiled from of the lists it names. */
export type TargetingsKept = Kept<
  TargetingRow,
  { compiled: CompiledTargeting; lists: readonly (readonly string[] | IpList | undefined)[] }
>;

/** What each list a rule names holds (undefined for a list that is not live), in the rule's order. */
function listsNamed<T>(
  rule: { ids: readonly number[] } | null | undefined,
  lists: ReadonlyMap<number, T>,
): (T | undefined)[] {
  return rule ? rule.ids.map((id) => lists.get(id)) : [];
}
