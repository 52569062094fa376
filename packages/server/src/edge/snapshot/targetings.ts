import { isLive, parseAppListRow, parseCreListRow, parsePubListRow, parseTargetingRow, type SkipSink, type StoredRow } from '@adplane/shared';
import { compileTargeting, type CompiledTargeting, type ListItems } from '../targeting/compiledTargeting.js';

/**
 * Targetings and the lists they reference, compiled once. A paused or archived list contributes no
 * items; a paused or archived targeting is treated as no targeting (it no longer restricts).
 */
function items(rows: readonly StoredRow[], parse: typeof parseAppListRow, sink: SkipSink): Map<number, readonly string[]> {
  const out = new Map<number, readonly string[]>();
  for (const row of rows) {
    const list = parse(row, sink);
    if (list && isLive(list)) out.set(list.id, list.items);
  }
  return out;
}

export function compileTargetings(
  rows: { targetings: readonly StoredRow[]; applists: readonly StoredRow[]; publists: readonly StoredRow[]; crelists: readonly StoredRow[] },
  sink: SkipSink,
): Map<number, CompiledTargeting> {
  const lists: ListItems = {
    apps: items(rows.applists, parseAppListRow, sink),
    publishers: items(rows.publists, parsePubListRow, sink),
    creatives: items(rows.crelists, parseCreListRow, sink),
  };
  const out = new Map<number, CompiledTargeting>();
  for (const row of rows.targetings) {
    const t = parseTargetingRow(row, sink);
    if (t && isLive(t)) out.set(t.id, compileTargeting(t.id, t.rules, lists));
  }
  return out;
}
