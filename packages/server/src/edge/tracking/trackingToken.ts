import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The signed token every tracking URL carries: it names the decision (who served what, where, at
 * which price), so that /ev trusts nothing else in the URL. HMAC-SHA256 with the key kept in the
 * store, truncated to 128 bits; a token older than `MAX_AGE_S` is refused (and the replay guard
 * only has to remember that long).
 */
export interface Decision {
  /** Random decision id: a replayed impression of the same decision is counted once. */
  id: string;
  /** Issued at, seconds since the epoch. */
  at: number;
  tenantId: number;
  channelId: number;
  subpublisherId: number;
  tagId: number;
  campaignId: number;
  creativeId: number;
  advertiserId: number;
  country: string;
  device: string;
  os: string;
  appBundle: string;
  domain: string;
  /** What demand pays per 1000 impressions and what the publisher earns, micro-dollars. */
  revenueCpm: number;
  costCpm: number;
  /** 1 for a "Test this tag" decision: its events answer as usual and count nothing. */
  test: number;
  /** The entry point: VAST, RTB (an OpenRTB bid request) or PreBid (the Prebid Server auction). */
  integration: string;
  /** DSP mode: the supplier whose bid request this answered, the ad exchange that won it, the deal. */
  supplierId: number;
  adexchangeId: number;
  dealId: string;
  /** A Prebid demand tag's partner code. */
  partner: string;
  /** Programmatic demand's name (an ad exchange, an RTB or Prebid partner): its revenue is marketplace revenue. */
  marketplace: string;
  /** The viewer a frequency cap counted at the decision (delivery viewerKey), '' when the winner has no cap: the impression commits it. */
  viewer: string;
  /** 1 when the answer carries post-bid pixels (edge/postbid/): the counted impression is also a post-bid impression. */
  postbid: number;
}

export const MAX_AGE_S = 24 * 3600;
const SIG_BYTES = 16;

/**
 * Decision ids: a random prefix per process and a counter, unique across processes and restarts
 * without asking the random pool on every request (the token's HMAC, not the id, is what cannot be forged).
 */
const ID_PREFIX = randomBytes(6).toString('base64url');
let idCounter = 0;
export const newDecisionId = (): string => ID_PREFIX + (idCounter++).toString(36);

const FIELDS = [
  'id', 'at', 'tenantId', 'channelId', 'subpublisherId', 'tagId', 'campaignId', 'creativeId', 'advertiserId', 'country', 'device', 'os', 'appBundle', 'domain', 'revenueCpm', 'costCpm', 'test',
  'integration', 'supplierId', 'adexchangeId', 'dealId', 'partner', 'marketplace', 'viewer', 'postbid',
] as const;
const NUMERIC = new Set<string>(['at', 'tenantId', 'channelId', 'subpublisherId', 'tagId', 'campaignId', 'creativeId', 'advertiserId', 'revenueCpm', 'costCpm', 'test', 'supplierId', 'adexchangeId', 'postbid']);
/**
 * Tokens signed by earlier versions are shorter (before `test`: 16 fields; before the programmatic
 * fields: 17; before `viewer`: 23; before `postbid`: 24) and stay valid for their day: an upgrade must not drop the
 * events of ads already in players. The missing fields read as a plain VAST decision.
 */
const LEGACY_TAIL: readonly unknown[] = [0, 'VAST', 0, 0, '', '', '', '', 0];
const LEGACY_FROM = 16;

export class TokenSigner {
  private readonly key: Buffer;
  constructor(key: string) {
    this.key = Buffer.from(key, 'utf8');
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, SIG_BYTES);
  }

  sign(d: Decision): string {
    const payload = Buffer.from(JSON.stringify(FIELDS.map((f) => d[f]))).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /**
   * A signature binding `value` to a token, so a tracking URL can carry more than the token without
   * a caller changing it (the billing notice an impression fires: openrtb/notices.ts).
   */
  attach(token: string, value: string): string {
    return this.mac(`${token}\n${value}`).toString('base64url');
  }

  /** Whether `signature` is `attach(token, value)`. Never throws. */
  attached(token: string, value: string, signature: string): boolean {
    const sig = Buffer.from(signature, 'base64url');
    return sig.length === SIG_BYTES && timingSafeEqual(sig, this.mac(`${token}\n${value}`));
  }

  /** The decision, or null for a forged, damaged or expired token. Never throws. */
  verify(token: string, nowS: number): Decision | null {
    if (typeof token !== 'string' || token.length > 2048) return null;
    const dot = token.indexOf('.');
    if (dot <= 0) return null;
    const payload = token.slice(0, dot);
    const sig = Buffer.from(token.slice(dot + 1), 'base64url');
    if (sig.length !== SIG_BYTES || !timingSafeEqual(sig, this.mac(payload))) return null;
    let values: unknown;
    try {
      values = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (Array.isArray(values) && values.length >= LEGACY_FROM && values.length < FIELDS.length) values.push(...LEGACY_TAIL.slice(values.length - LEGACY_FROM));
    if (!Array.isArray(values) || values.length !== FIELDS.length) return null;
    const d: Record<string, unknown> = {};
    for (let i = 0; i < FIELDS.length; i++) {
      const f = FIELDS[i]!;
      const v = values[i];
      if (NUMERIC.has(f) ? typeof v !== 'number' : typeof v !== 'string') return null;
      d[f] = v;
    }
    const decision = d as unknown as Decision;
    if (decision.at > nowS + 300 || nowS - decision.at > MAX_AGE_S) return null;
    return decision;
  }
}
