/**
 * The privacy signals of a request, read one way for every part of the edge that acts on them (the
 * outbound bid request's regs, a frequency cap's viewer, Prebid Server's user sync).
 */

/** GPP section ids from their comma-separated list ('2,6'); what is not a whole number is left out. */
export function gppSectionIds(list: string): number[] {
  const ids: number[] = [];
  for (const part of list.split(',')) {
    const n = Number(part.trim());
    if (part.trim() && Number.isInteger(n) && n >= 0) ids.push(n);
  }
  return ids;
}

/**
 * Whether the GDPR applies to a request: `gdpr=1`, or GPP section 2 (the EU's TCF) among the
 * sections that apply (Prebid Server lets a GPP section list decide, whatever `gdpr` says).
 */
export const gdprApplies = (gdpr: number | null, gppSid: readonly number[]): boolean =>
  gdpr === 1 || gppSid.includes(2);

const US_PRIVACY_SIGNALS = ['explicit notice', 'opt-out sale', 'limited service provider agreement'] as const;

/**
 * Why a US Privacy string is not one (IAB US Privacy String 1.0: '1', then 'Y', 'N' or '-', either
 * case, for the explicit notice, the opt-out of sale and the LSPA), or null for a valid one.
 */
export function usPrivacyFault(usPrivacy: string): string | null {
  if (usPrivacy.length !== 4) return 'must contain 4 characters';
  if (usPrivacy[0] !== '1') return 'must specify version 1';
  for (let i = 1; i < 4; i++) {
    if (!'YyNn-'.includes(usPrivacy[i]!)) return `must specify 'N', 'Y' or '-' for the ${US_PRIVACY_SIGNALS[i - 1]!}`;
  }
  return null;
}

/** A US Privacy string (1.0: version, notice, opt-out of sale, LSPA) that opts out of sale: 'Y' in the third place. */
export const optsOutOfSale = (usPrivacy: string): boolean =>
  (usPrivacy[2] === 'Y' || usPrivacy[2] === 'y') && usPrivacyFault(usPrivacy) === null;

/**
 * Whether a request forbids user ids (adplane's, or a partner's as `buyeruid`): the GDPR applies
 * (adplane is no TCF vendor), the viewer opted out of sale, or the request is under COPPA.
 */
export function userIdsForbidden(q: {
  gdpr: number | null;
  gppSid: string;
  usPrivacy: string;
  coppa: number | null;
}): boolean {
  return q.coppa === 1 || optsOutOfSale(q.usPrivacy) || gdprApplies(q.gdpr, gppSectionIds(q.gppSid));
}
