import { z } from 'zod';
import { edgeUrl, PREBID_SETUID_PATH } from './paths.js';

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
const SYNC_MACROS = ['UID', 'REDIRECT', 'GDPR_CONSENT', 'GDPR', 'US_PRIVACY', 'GPP_SID', 'GPP'] as const;
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

/**
 * `url` with each macro `values` names replaced by its value, URL-encoded ('' empties it); a macro it
 * does not name is left as written (a partner's own `$UID` in a URL of ours it carries, say).
 */
export function fillSyncUrl(url: string, values: Partial<Record<SyncMacro, string>>): string {
  return url.replace(MACRO, (all, a?: string, b?: string, c?: string, d?: string) => {
    const value = values[(a ?? b ?? c ?? d) as SyncMacro];
    return value === undefined ? all : encodeURIComponent(value);
  });
}

/** The scheme and host of a URL (up to its path, query or fragment). */
const originPart = (v: string): string => /^[a-z]+:\/\/[^/?#]*/i.exec(v)?.[0] ?? v;

/**
 * A user-sync URL: empty, or an http(s) URL with a parsable host and no macro in its scheme or host
 * (a value a browser's call fills must never decide where adplane's host sends it).
 */
const syncUrl = z
  .string({ error: 'must be text' })
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .refine((v) => v === '' || (/^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v)), 'must be an http(s) URL')
  .refine((v) => v === '' || syncMacrosIn(originPart(v)).length === 0, 'must not carry a macro in its host');

/**
 * A supplier's user-sync URL: empty (no matching), or a sync URL that carries the id's macro (a URL
 * without it would only tell the supplier that a browser passed by).
 */
export const userSyncUrl = syncUrl
  .refine(
    (v) => v === '' || syncMacrosIn(v).includes('UID'),
    'must carry the id macro ${UID} (or $UID, {UID}, [UID]) where the supplier reads our id',
  )
  .default('');

/**
 * User sync with a demand partner (SSP mode: an RTB demand tag's DSP). The partner keeps its own id
 * for a browser and hands it to adplane's `/setuid?bidder=<partnerSyncBidder(tag id)>&uid=<its id>`,
 * which keeps it in the browser's `uids` cookie; the tag's bid requests then carry it as
 * `user.buyeruid`. The tag's user-sync URL is the partner's own sync URL; `${REDIRECT}` (any of the
 * four spellings) in it is filled with adplane's setuid URL for the tag, URL-encoded, where the
 * partner writes its id in place of `$UID` (Prebid Server's convention). A URL without it is called
 * as it is: the partner must then redirect to the setuid URL the console shows. The privacy macros
 * are filled as for a supplier.
 */
export const partnerSyncBidder = (tagId: number): string => `adplane_tag_${tagId}`;
/** The tag id of a partner's bidder code, or null when the code is not one. */
export function tagOfSyncBidder(bidder: string): number | null {
  const m = /^adplane_tag_([1-9]\d{0,14})$/.exec(bidder);
  return m ? Number(m[1]) : null;
}
/** The setuid URL a demand partner redirects a browser to, its id in place of `$UID`. */
export const partnerSetuidUrl = (host: string, tagId: number): string =>
  `${edgeUrl(host, PREBID_SETUID_PATH)}?bidder=${partnerSyncBidder(tagId)}&uid=$UID`;

/** A demand tag's user-sync URL: empty (no sync), or the partner's sync URL. */
export const demandSyncUrl = syncUrl.default('');
