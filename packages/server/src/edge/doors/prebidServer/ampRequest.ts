import { randomUUID } from 'node:crypto';

/**
 * `GET /openrtb2/amp` as Prebid Server answers AMP pages' Real Time Config calls: one amp-ad's
 * query turned into a Prebid Server auction request for one banner impression, the channel named by
 * `tag_id` standing in for the stored request (the channel uid from the console, as for Prebid.js).
 *
 * The query, as the AMP runtime fills the RTC URL's macros (Prebid Server's AMP endpoint):
 * - `tag_id` (required): the channel's uid;
 * - the sizes, as Prebid Server makes them (ampSizes): the slot's size (`ow`/`oh` over `w`/`h`), then
 *   every size of `ms` (data-multi-size, "970x90,728x90");
 * - `curl` (the canonical page: site.page), `slot` (imp.tagid), `timeout` (tmax, at most 1000 ms,
 *   AMP's own limit), `targeting` (JSON first-party data: imp.ext.data);
 * - consent: `gdpr_consent` (or `consent_string`) read by `consent_type` (2 or absent: a TCF v2
 *   string, user.ext.consent; 3: a US Privacy string, regs.ext.us_privacy; 4: a GPP string, regs.gpp
 *   with `gpp_sid`; another type: not passed on), `gdpr_applies`
 *   ("true"/"false": regs.ext.gdpr 1/0), `addtl_consent` (Google's additional consent).
 * The impression is secure (AMP pages are https), the bids are cached (an AMP page renders the
 * winner through the Prebid Universal Creative, which loads it by hb_cache_id), and the targeting
 * keys come at the medium price granularity.
 */
const AMP_MAX_TIMEOUT_MS = 1000;

export type AmpRead = { ok: true; body: Record<string, unknown> } | { ok: false; message: string };

const dim = (v: string | null): number => {
  const n = Number(v);
  return v && Number.isInteger(n) && n > 0 && n <= 10_000 ? n : 0;
};

/**
 * The banner sizes of an amp-ad, as Prebid Server makes them: the slot's own size first (the
 * data-override size, `ow`x`oh`, either side of it standing in for `w` or `h`), then every size of
 * `ms` (data-multi-size) not already listed; none: the channel's own.
 */
export function ampSizes(q: URLSearchParams): { w: number; h: number }[] {
  const w = dim(q.get('ow')) || dim(q.get('w'));
  const h = dim(q.get('oh')) || dim(q.get('h'));
  const out = w && h ? [{ w, h }] : [];
  for (const part of (q.get('ms') ?? '').split(',')) {
    const m = /^\s*(\d+)x(\d+)\s*$/i.exec(part);
    const size = m ? { w: dim(m[1]!), h: dim(m[2]!) } : null;
    if (size?.w && size.h && !out.some((s) => s.w === size.w && s.h === size.h) && out.length < 20) out.push(size);
  }
  return out;
}

export function readAmpRequest(q: URLSearchParams): AmpRead {
  const tagId = (q.get('tag_id') ?? '').trim();
  if (!tagId) return { ok: false, message: 'AMP requests require an AMP tag_id' };
  if (tagId.length > 64) return { ok: false, message: 'tag_id is not a channel uid' };
  const sizes = ampSizes(q);
  const imp: Record<string, unknown> = {
    id: 'amp',
    banner: sizes.length ? { format: sizes } : {},
    secure: 1,
    ext: { prebid: { storedrequest: { id: tagId } } },
  };
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
    if (!data || typeof data !== 'object' || Array.isArray(data))
      return { ok: false, message: 'targeting must be a JSON object' };
    (imp.ext as Record<string, unknown>).data = data;
  }
  const body: Record<string, unknown> = {
    id: randomUUID(),
    imp: [imp],
    ext: {
      prebid: {
        storedrequest: { id: tagId },
        cache: { bids: {} },
        targeting: { pricegranularity: 'medium', includewinners: true, includebidderkeys: true },
      },
    },
  };
  const page = q.get('curl');
  if (page && /^https?:\/\//i.test(page)) body.site = { page: page.slice(0, 2048), ext: { amp: 1 } };
  const timeout = Number(q.get('timeout'));
  body.tmax =
    Number.isFinite(timeout) && timeout > 0 ? Math.min(Math.round(timeout), AMP_MAX_TIMEOUT_MS) : AMP_MAX_TIMEOUT_MS;
  const consent = q.get('gdpr_consent') ?? q.get('consent_string') ?? '';
  const consentType = q.get('consent_type');
  const regsExt: Record<string, unknown> = {};
  const userExt: Record<string, unknown> = {};
  const regs: Record<string, unknown> = {};
  // AMP's consent string types: 2 TCF v2 (also when unsaid), 3 US Privacy, 4 GPP; any other is not passed on
  if (consent && (consentType === '2' || consentType === null || consentType === '')) userExt.consent = consent;
  else if (consent && consentType === '3') regsExt.us_privacy = consent;
  else if (consent && consentType === '4') {
    regs.gpp = consent;
    const sids = (q.get('gpp_sid') ?? '')
      .split(/[,_]/)
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0 && n < 1000);
    if (sids.length) regs.gpp_sid = sids;
  }
  const applies = q.get('gdpr_applies');
  if (applies === 'true') regsExt.gdpr = 1;
  else if (applies === 'false') regsExt.gdpr = 0;
  const additional = q.get('addtl_consent');
  if (additional) userExt.ConsentedProvidersSettings = { consented_providers: additional };
  if (Object.keys(regsExt).length) regs.ext = regsExt;
  if (Object.keys(regs).length) body.regs = regs;
  if (Object.keys(userExt).length) body.user = { ext: userExt };
  return { ok: true, body };
}
