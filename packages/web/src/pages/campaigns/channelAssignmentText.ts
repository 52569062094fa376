import { nameOf } from '../dsp/names.js';

/** A campaign's channel assignment in words: "All my channels", "Only: Demo CTV, Web", "All but: Web" (`#id` while names load). */
export function channelAssignmentText(scope: unknown, ids: unknown, names: Map<number, string>): string {
  const list = Array.isArray(ids) ? ids.map((id) => nameOf(names, id)).join(', ') : '';
  if (scope === 'include') return `Only: ${list}`;
  if (scope === 'exclude' && list) return `All but: ${list}`;
  return 'All my channels';
}
