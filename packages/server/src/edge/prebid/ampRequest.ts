import { randomUUID } from 'node:crypto';

/**
 * `GET /openrtb2/amp` as Prebid Server answers AMP pages' Real Time Config calls: one amp-ad's
 * query turned into a Prebid Server auction request for one banner impression, the channel named by
 * `tag_id` standing in for the stored request (the channel uid from the console, as for Prebid.js).
 *
 * The query, as the AMP runtime fills the RTC URL's macros (Prebid Server's AMP endpoint):
 * - `tag_id` (required): the channel's uid;
 * - the sizes, resolved as Prebid Server resolves them: `ow`x`oh` (the data-override sizes), else
 *   `ow`x`h` or `w`x`oh`, else every size of `ms` (data-multi-size, "970x90,728x90"), else `w`x`h`;
 * - `curl` (the canonical page: site.page), `slot` (imp.tagid), `timeout` (tmax, at most 1000 ms,
 *   AMP's own limit), `targeting` (JSON first-party data: imp.ext.data);
 * - consent: `gdpr_consent` (or `consent_string`) read by `consent_type` (2: a TCF v2 string,
 *   user.ext.consent; 3: a US Privacy string, regs.ext.us_privacy; absent: TCF v2), `gdpr_applies`
 *   ("true"/"false": regs.ext.gdpr 1/0), `addtl_consent` (Google's additional consent).
 * The impression is secure (AMP pages are https), the bids are cached (an AMP page renders the
 * winner through the Prebid Universal Creative, which loads it by hb_cache_id), and the targeting
 * keys come at the medium price granularity.
 */
export const AMP_MAX_TIMEOUT_MS = 1000;

export type AmpRead = { ok: true; body: Record<string, unknown> } | { ok: false; message: string };

const dim = (v: string | null): number => {
  const n = Number(v);
  return v && Number.isInteger(n) && n > 0 && n <= 10_000 ? n : 0;
};

/** The banner sizes of an amp-ad, in Prebid Server's order of precedence (none: the channel's own). */
export function ampSizes(q: URLSearchParams): { w: number; h: number }[] {
  const w = dim(q.get('w'));
  const h = dim(q.get('h'));
  const ow = dim(q.get('ow'));
  const oh = dim(q.get('oh'));
  if (ow && oh) return [{ w: ow, h: oh }];
  if (ow && h) return [{ w: ow, h }];
  if (w && oh) return [{ w, h: oh }];
  const multi = (q.get('ms') ?? '')
    .split(',')
    .map((s) => /^\s*(\d+)x(\d+)\s*$/i.exec(s))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ w: dim(m[1]!), h: dim(m[2]!) }))
    .filter((s) => s.w && s.h);
  if (multi.length) return multi.slice(0, 20);
  return w && h ? [{ w, h }] : [];
}

export function readAmpRequest(q: URLSearchParams): AmpRead {
  const tagId = (q.get('tag_id') ?? '').trim();
  if (!tagId) return { ok: false, message: 'AMP requests require an AMP tag_id' };
  if (tagId.length > 64) return { ok: false, message: 'tag_id is not a channel uid' };
  const sizes = ampSizes(q);
  const imp: Record<string, unknown> = { id: 'amp', banner: sizes.length ? { format: sizes } : {}, secure: 1, ext: { prebid: { storedrequest: { id: tagId } } } };
  const slot = q.get('slot');
  if (slot) imp.tagid = slot.slice(0, 256);
  const targeting = q.get('targeting');
  if (targeting) {
    let data: unknown;
    try {
      data = JSON.parse(targeting);
    } catch {
      return { ok: false, message: 'targeting must be a JSON object' };
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) return { ok: false, message: 'targeting must be a JSON object' };
    (imp.ext as Record<string, unknown>).data = data;
  }
  const body: Record<string, unknown> = {
    id: randomUUID(),
    imp: [imp],
    ext: { prebid: { storedrequest: { id: tagId }, cache: { bids: {} }, targeting: { pricegranularity: 'medium', includewinners: true, includebidderkeys: true } } },
  };
  const page = q.get('curl');
  if (page && /^https?:\/\//i.test(page)) body.site = { page: page.slice(0, 2048), ext: { amp: 1 } };
  const timeout = Number(q.get('timeout'));
  body.tmax = Number.isFinite(timeout) && timeout > 0 ? Math.min(Math.round(timeout), AMP_MAX_TIMEOUT_MS) : AMP_MAX_TIMEOUT_MS;
  const consent = q.get('gdpr_consent') ?? q.get('consent_string') ?? '';
  const consentType = q.get('consent_type');
  const regsExt: Record<string, unknown> = {};
  const userExt: Record<string, unknown> = {};
  if (consent && consentType === '3') regsExt.us_privacy = consent;
  else if (consent && consentType !== '1') userExt.consent = consent;
  const applies = q.get('gdpr_applies');
  if (applies === 'true') regsExt.gdpr = 1;
  else if (applies === 'false') regsExt.gdpr = 0;
  const additional = q.get('addtl_consent');
  if (additional) userExt.ConsentedProvidersSettings = { consented_providers: additional };
  if (Object.keys(regsExt).length) body.regs = { ext: regsExt };
  if (Object.keys(userExt).length) body.user = { ext: userExt };
  return { ok: true, body };
}
