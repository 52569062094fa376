import { z } from 'zod';

/**
 * User matching with a supplier (DSP mode): the supplier's own user-sync URL, where a browser is sent
 * with adplane's id for it, so that the supplier's bid requests carry that id back as `user.buyeruid`
 * (and frequency caps know the browser on `/rtb/bid/<uid>` too). Exchanges write the macro in one of
 * several ways; each is read:
 *
 * - the id: `${UID}`, `$UID` (Prebid Server's), `{UID}`, `[UID]`;
 * - the privacy signals of the call: `${GDPR}` (0, 1 or empty), `${GDPR_CONSENT}`, `${US_PRIVACY}`,
 *   `${GPP}`, `${GPP_SID}` (comma-separated), in the same four spellings.
 *
 * Every value is URL-encoded in place; a macro the URL does not carry is not added.
 */
export const SYNC_MACROS = ['UID', 'GDPR_CONSENT', 'GDPR', 'US_PRIVACY', 'GPP_SID', 'GPP'] as const;
export type SyncMacro = (typeof SYNC_MACROS)[number];

const NAMES = SYNC_MACROS.join('|');
/** The four spellings; the bare `$NAME` must not run on into a longer name (`$GDPR` in `$GDPR_CONSENT`). */
const MACRO = new RegExp(`\\$\\{(${NAMES})\\}|\\$(${NAMES})(?![A-Za-z0-9_])|\\{(${NAMES})\\}|\\[(${NAMES})\\]`, 'g');

/** The macros a URL carries, each once. */
export function syncMacrosIn(url: string): SyncMacro[] {
  const found = new Set<SyncMacro>();
  for (const m of url.matchAll(MACRO)) found.add((m[1] ?? m[2] ?? m[3] ?? m[4]) as SyncMacro);
  return [...found];
}

/** `url` with every macro replaced by its value, URL-encoded (an absent value leaves it empty). */
export function fillSyncUrl(url: string, values: Partial<Record<SyncMacro, string>>): string {
  return url.replace(MACRO, (_all, a?: string, b?: string, c?: string, d?: string) => encodeURIComponent(values[(a ?? b ?? c ?? d) as SyncMacro] ?? ''));
}

/**
 * A supplier's user-sync URL: empty (no matching), or an http(s) URL with a parsable host that
 * carries the id's macro (a URL without it would only tell the supplier that a browser passed by).
 */
export const userSyncUrl = z
  .string({ error: 'must be text' })
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .refine((v) => v === '' || (/^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v)), 'must be an http(s) URL')
  .refine((v) => v === '' || syncMacrosIn(v).includes('UID'), 'must carry the id macro ${UID} (or $UID, {UID}, [UID]) where the supplier reads our id')
  .default('');
