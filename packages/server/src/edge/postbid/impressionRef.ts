import { canonicalBase64url, type Decision, type TokenSigner } from '../tracking/trackingToken.js';
import { MAX_AGE_S } from '../vast/adLifetime.js';

/**
 * The `{{impression_id}}` a post-bid pixel carries and its vendor sends back with its verdict
 * (postback.ts): the decision id and the report dimensions of the impression, signed, so the verdict
 * is counted on the impression's own row (channel, tag, country...) by whichever edge process hears
 * it, with no state kept between the impression and the verdict. It holds no prices (it goes to a
 * third party) and is signed in its own domain: it is not a tracking token and /ev refuses it.
 */
export type ImpressionFacts = Pick<
  Decision,
  | 'id'
  | 'at'
  | 'tenantId'
  | 'channelId'
  | 'subpublisherId'
  | 'tagId'
  | 'campaignId'
  | 'creativeId'
  | 'advertiserId'
  | 'supplierId'
  | 'adexchangeId'
  | 'country'
  | 'device'
  | 'os'
  | 'appBundle'
  | 'domain'
  | 'integration'
  | 'dealId'
  | 'partner'
  | 'marketplace'
  | 'arm'
>;

const NUMBERS = [
  'at',
  'tenantId',
  'channelId',
  'subpublisherId',
  'tagId',
  'campaignId',
  'creativeId',
  'advertiserId',
  'supplierId',
  'adexchangeId',
] as const;
const STRINGS = [
  'id',
  'country',
  'device',
  'os',
  'appBundle',
  'domain',
  'integration',
  'dealId',
  'partner',
  'marketplace',
  'arm',
] as const;
const DOMAIN = 'postbid-impression';
/** Longest id accepted back: the ref of a decision with a 255-character bundle and long names fits well under it. */
export const MAX_REF_LENGTH = 2048;

export function impressionRef(signer: TokenSigner, d: Decision): string {
  const values = [...NUMBERS.map((f) => d[f]), ...STRINGS.map((f) => d[f])];
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${payload}.${signer.attach(payload, DOMAIN)}`;
}

export type RefCheck = { ok: true; facts: ImpressionFacts } | { ok: false; reason: 'malformed' | 'forged' | 'expired' };

/** The impression a ref names, or why not: never throws. Refs older than the tracking token's lifetime are expired. */
export function readImpressionRef(signer: TokenSigner, ref: string, nowS: number): RefCheck {
  if (typeof ref !== 'string' || ref.length > MAX_REF_LENGTH) return { ok: false, reason: 'malformed' };
  const dot = ref.indexOf('.');
  if (dot <= 0 || dot === ref.length - 1) return { ok: false, reason: 'malformed' };
  const payload = ref.slice(0, dot);
  if (!signer.attached(payload, DOMAIN, ref.slice(dot + 1))) return { ok: false, reason: 'forged' };
  // (signed as its text: a payload in any other spelling than impressionRef's is not one it made)
  const bytes = canonicalBase64url(payload);
  if (bytes === null) return { ok: false, reason: 'malformed' };
  let values: unknown;
  try {
    values = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  // an id made before the A/B arm was one of its facts (one string fewer): no arm
  if (Array.isArray(values) && values.length === NUMBERS.length + STRINGS.length - 1) values.push('');
  if (!Array.isArray(values) || values.length !== NUMBERS.length + STRINGS.length)
    return { ok: false, reason: 'malformed' };
  const facts: Record<string, unknown> = {};
  for (let i = 0; i < NUMBERS.length; i++) {
    if (typeof values[i] !== 'number') return { ok: false, reason: 'malformed' };
    facts[NUMBERS[i]!] = values[i];
  }
  for (let i = 0; i < STRINGS.length; i++) {
    if (typeof values[NUMBERS.length + i] !== 'string') return { ok: false, reason: 'malformed' };
    facts[STRINGS[i]!] = values[NUMBERS.length + i];
  }
  const f = facts as unknown as ImpressionFacts;
  if (f.at > nowS + 300 || nowS - f.at > MAX_AGE_S) return { ok: false, reason: 'expired' };
  return { ok: true, facts: f };
}
