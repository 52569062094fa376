import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { MAX_AGE_S } from '../vast/adLifetime.js';

/**
 * The signed token every tracking URL carries: it names the decision (who served what, where, at
 * which price), so that /ev trusts nothing else in the URL. HMAC-SHA256 with the key kept in the
 * store, truncated to 128 bits; a token older than `MAX_AGE_S` is refused (and the replay guard
 * only has to remember that long).
 *
 * A token is `<payload>.<signature>`. The payload is the decision's values in FIELDS order, each as
 * URL-safe text, joined by '.' (`compactPayload`): whole numbers in base 36, text as it is when it
 * is letters, digits, '_' and '-', else percent-encoded with '~' for '%' (and '.', '~' and the
 * other characters encodeURIComponent keeps, escaped too). A VAST answer carries its token in 8 or
 * more URLs: this one is about 40 % shorter than the base64url JSON that earlier versions signed,
 * and made without a buffer. Tokens of that older kind (a payload without a '.') still verify, and
 * a decision with a value the compact form does not hold (a fraction, a negative number) is signed
 * in it still.
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
  /** The arm of the channel's A/B split that served the request ('A' or 'B'), '' without a split: every event counts under it. */
  arm: string;
}

const SIG_BYTES = 16;
/** Tokens kept verified per generation (TokenSigner.verify). */
export const VERIFIED_CAP = 5_000;

/**
 * Decision ids: a random prefix per process (8 characters of base64url) and a counter, unique across
 * processes and restarts without asking the random pool on every request (the token's HMAC, not the
 * id, is what cannot be forged). Filled decisions count up on their own (`newDecisionId`: the
 * prefix and the counter in base36), so that the replay guard keeps their events in pages of
 * consecutive counters (replayGuard.ts); a decision that did not fill, whose token only ever
 * reports errors, is numbered apart (`unfilledDecisionId`: the prefix, '_', a counter).
 */
export const ID_PREFIX_LENGTH = 8;
const ID_PREFIX = randomBytes(6).toString('base64url');
let idCounter = 0;
let unfilledCounter = 0;
export const newDecisionId = (): string => ID_PREFIX + (idCounter++).toString(36);
export const unfilledDecisionId = (): string => `${ID_PREFIX}_${(unfilledCounter++).toString(36)}`;

const FIELDS = [
  'id',
  'at',
  'tenantId',
  'channelId',
  'subpublisherId',
  'tagId',
  'campaignId',
  'creativeId',
  'advertiserId',
  'country',
  'device',
  'os',
  'appBundle',
  'domain',
  'revenueCpm',
  'costCpm',
  'test',
  'integration',
  'supplierId',
  'adexchangeId',
  'dealId',
  'partner',
  'marketplace',
  'viewer',
  'postbid',
  'arm',
] as const;
const NUMERIC = new Set<string>([
  'at',
  'tenantId',
  'channelId',
  'subpublisherId',
  'tagId',
  'campaignId',
  'creativeId',
  'advertiserId',
  'revenueCpm',
  'costCpm',
  'test',
  'supplierId',
  'adexchangeId',
  'postbid',
]);
/** Per field, whether it is a number (else a string): read by index on every verify. */
const IS_NUMERIC: readonly boolean[] = FIELDS.map((f) => NUMERIC.has(f));
/**
 * Tokens signed by earlier versions are shorter (before `test`: 16 fields; before the programmatic
 * fields: 17; before `viewer`: 23; before `postbid`: 24; before `arm`: 25) and stay valid for their day: an upgrade must not drop the
 * events of ads already in players. The missing fields read as a plain VAST decision of a channel without a split.
 */
const LEGACY_TAIL: readonly unknown[] = [0, 'VAST', 0, 0, '', '', '', '', 0, ''];
const LEGACY_FROM = 16;
/** Compact payloads (the current form) of versions before `arm` hold its fields but the last: they read without an arm. */
const COMPACT_BEFORE_ARM = FIELDS.length - 1;

/** SHA-256's block size: HMAC pads (or first hashes) its key to this length. */
const BLOCK = 64;

/**
 * HMAC-SHA256 (RFC 2104) as two one-shot hashes, H((K ^ opad) || H((K ^ ipad) || m)), with both
 * padded keys prepared once: the same MAC as `createHmac('sha256', key)` (trackingToken.test.ts
 * checks it against that, for short, block-long and longer keys) without a new Hmac object, its
 * key copy and its native handle per token (~35 % less time per MAC, measured in
 * bench/edgeHotPath.bench.ts's sign and verify cases). The pads are kept as binary strings (one byte
 * a character, latin1), so that each hash reads one buffer made from one string.
 */
class HmacSha256 {
  private readonly inner: string;
  private readonly outer: string;
  constructor(key: Buffer) {
    const k = Buffer.alloc(BLOCK);
    (key.length > BLOCK ? createHash('sha256').update(key).digest() : key).copy(k);
    const ipad = Buffer.alloc(BLOCK);
    const opad = Buffer.alloc(BLOCK);
    for (let i = 0; i < BLOCK; i++) {
      ipad[i] = k[i]! ^ 0x36;
      opad[i] = k[i]! ^ 0x5c;
    }
    this.inner = ipad.toString('latin1');
    this.outer = opad.toString('latin1');
  }

  /** The MAC of the bytes `binary` holds one a character (latin1: every character below 256). */
  of(binary: string): Buffer {
    const innerHash = hash('sha256', Buffer.from(this.inner + binary, 'latin1'), 'binary');
    return hash('sha256', Buffer.from(this.outer + innerHash, 'latin1'), 'buffer');
  }
}

/**
 * The bytes `text` encodes when it is exactly their canonical base64url (RFC 4648 section 5: that
 * alphabet only, no padding, the unused bits of the last character zero), else null. Node's decoder
 * skips what it does not know ('=', '!', a space) and ignores the unused bits, so that several
 * spellings decode to the same bytes: a signature or a payload is accepted in one spelling only, so
 * that a signed value has one text (the verified tokens are kept by their text).
 */
export function canonicalBase64url(text: string): Buffer | null {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

/** Whether every character is ASCII (its UTF-8 is one byte a character): the string is then its own bytes. */
const isAscii = (s: string): boolean => Buffer.byteLength(s, 'utf8') === s.length;

export class TokenSigner {
  private readonly hmac: HmacSha256;
  constructor(key: string) {
    this.hmac = new HmacSha256(Buffer.from(key, 'utf8'));
  }

  /** HMAC-SHA256 of the UTF-8 bytes of `payload`, truncated to 128 bits. */
  private mac(payload: string): Buffer {
    // tokens are base64url (ASCII); an attached value or a damaged token may not be: its UTF-8 bytes, as createHmac's update reads a string
    return this.hmac
      .of(isAscii(payload) ? payload : Buffer.from(payload, 'utf8').toString('latin1'))
      .subarray(0, SIG_BYTES);
  }

  sign(d: Decision): string {
    const values = valuesOf(d);
    const payload = compactPayload(values) ?? jsonPayload(values);
    // both payloads are ASCII: no need to look
    return `${payload}.${this.hmac.of(payload).subarray(0, SIG_BYTES).toString('base64url')}`;
  }

  /**
   * A signature binding `value` to a token, so a tracking URL can carry more than the token without
   * a caller changing it (the billing notice an impression fires: auction/notices.ts).
   */
  attach(token: string, value: string): string {
    return this.mac(`${token}\n${value}`).toString('base64url');
  }

  /** Whether `signature` is `attach(token, value)`, spelled as attach spells it (canonicalBase64url). Never throws. */
  attached(token: string, value: string, signature: string): boolean {
    const sig = typeof signature === 'string' ? canonicalBase64url(signature) : null;
    return sig !== null && sig.length === SIG_BYTES && timingSafeEqual(sig, this.mac(`${token}\n${value}`));
  }

  /**
   * Tokens verified lately, and their decisions (frozen: every caller reads the same object). A
   * player reports each decision 5 to 8 times with the same token (impression, start, the
   * quartiles, complete), so most beacons find theirs here and skip the MAC and the decoding; the
   * token is the key whole, signature included, so nothing unverified is ever found. Two
   * generations of at most VERIFIED_CAP tokens each bound the memory (about 7 MB at most); the
   * later beacons of the last 5,000 to 10,000 decisions find theirs.
   */
  private verified = new Map<string, Decision>();
  private verifiedBefore = new Map<string, Decision>();

  /** The decision, or null for a forged, damaged or expired token. Never throws. */
  verify(token: string, nowS: number): Decision | null {
    if (typeof token !== 'string' || token.length > 2048) return null;
    let decision = this.verified.get(token) ?? this.verifiedBefore.get(token);
    if (decision === undefined) {
      const fresh = this.decode(token);
      if (!fresh) return null;
      decision = Object.freeze(fresh);
      if (this.verified.size >= VERIFIED_CAP) {
        this.verifiedBefore = this.verified;
        this.verified = new Map();
      }
      this.verified.set(token, decision);
    }
    if (decision.at > nowS + 300 || nowS - decision.at > MAX_AGE_S) return null;
    return decision;
  }

  /** The decision a token names, when its signature holds (its age is the caller's to check). */
  private decode(token: string): Decision | null {
    // the signature is base64url, which has no '.': the last '.' ends the payload
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return null;
    const payload = token.slice(0, dot);
    const sig = canonicalBase64url(token.slice(dot + 1));
    if (sig === null || sig.length !== SIG_BYTES || !timingSafeEqual(sig, this.mac(payload))) return null;
    const values = payload.includes('.') ? compactValues(payload) : jsonValues(payload);
    return values && decisionOf(values);
  }
}

/** Text a compact payload keeps as it is (ids, countries, device and OS names, most values). */
const PLAIN_TEXT = /^[A-Za-z0-9_-]*$/;
/** Text whose only other character is '.' (domains, app bundles): its dots escaped, nothing else to look at. */
const DOTTED_TEXT = /^[A-Za-z0-9_.-]*$/;
/** What encodeURIComponent leaves that the payload cannot hold as it is: '%' becomes '~', the others '~' and their code. */
const NOT_PLAIN = /[%.!'()*~]/g;
const escapeOf = (c: string): string => (c === '%' ? '~' : `~${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Text percent-encoded with '~' for '%' (NOT_PLAIN), or null for a string with a lone surrogate, which has no UTF-8. */
function escapedText(v: string): string | null {
  try {
    return encodeURIComponent(v).replace(NOT_PLAIN, escapeOf);
  } catch {
    return null;
  }
}

/** The compact payload of a decision's values (see the top of this file), or null when one does not fit it. */
function compactPayload(values: readonly (string | number)[]): string | null {
  const out = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    let field: string;
    if (IS_NUMERIC[i]) {
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return null;
      field = v.toString(36);
    } else {
      if (typeof v !== 'string') return null;
      if (PLAIN_TEXT.test(v)) field = v;
      else if (DOTTED_TEXT.test(v)) field = v.replaceAll('.', '~2E');
      else {
        const escaped = escapedText(v);
        if (escaped === null) return null;
        field = escaped;
      }
    }
    out[i] = field;
  }
  // one flat string (a '+=' rope would be flattened by the MAC's hash, piece by piece)
  return out.join('.');
}

/** The payload earlier versions signed: the values as JSON, in base64url. */
const jsonPayload = (values: readonly (string | number)[]): string =>
  Buffer.from(JSON.stringify(values)).toString('base64url');

/**
 * A compact payload's values, or null when it is not one of this version's (another count of
 * fields). Its signature was checked first: it is sign's own text, read without checking each
 * character again.
 */
function compactValues(payload: string): (string | number)[] | null {
  const fields = payload.split('.');
  // a token signed before the A/B arm was a field: no arm
  if (fields.length === COMPACT_BEFORE_ARM) fields.push('');
  if (fields.length !== FIELDS.length) return null;
  const values = new Array<string | number>(fields.length);
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (IS_NUMERIC[i]) {
      const n = parseInt(f, 36);
      if (Number.isNaN(n)) return null;
      values[i] = n;
    } else if (!f.includes('~')) values[i] = f;
    else {
      try {
        values[i] = decodeURIComponent(f.replaceAll('~', '%'));
      } catch {
        return null;
      }
    }
  }
  return values;
}

/** A JSON payload's values (earlier versions' tokens, shorter ones completed: LEGACY_TAIL), or null. */
function jsonValues(payload: string): (string | number)[] | null {
  const bytes = canonicalBase64url(payload);
  if (bytes === null) return null;
  let values: unknown;
  try {
    values = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (Array.isArray(values) && values.length >= LEGACY_FROM && values.length < FIELDS.length)
    values.push(...LEGACY_TAIL.slice(values.length - LEGACY_FROM));
  if (!Array.isArray(values) || values.length !== FIELDS.length) return null;
  for (let i = 0; i < FIELDS.length; i++)
    if (IS_NUMERIC[i] ? typeof values[i] !== 'number' : typeof values[i] !== 'string') return null;
  return values as (string | number)[];
}

/** A decision's values in FIELDS order, as one array literal (no closure per token). */
function valuesOf(d: Decision): (string | number)[] {
  return [
    d.id,
    d.at,
    d.tenantId,
    d.channelId,
    d.subpublisherId,
    d.tagId,
    d.campaignId,
    d.creativeId,
    d.advertiserId,
    d.country,
    d.device,
    d.os,
    d.appBundle,
    d.domain,
    d.revenueCpm,
    d.costCpm,
    d.test,
    d.integration,
    d.supplierId,
    d.adexchangeId,
    d.dealId,
    d.partner,
    d.marketplace,
    d.viewer,
    d.postbid,
    d.arm,
  ];
}

/** A verified token's values as a Decision, built in one literal (one object shape for every token). */
function decisionOf(v: readonly (string | number)[]): Decision {
  return {
    id: v[0] as string,
    at: v[1] as number,
    tenantId: v[2] as number,
    channelId: v[3] as number,
    subpublisherId: v[4] as number,
    tagId: v[5] as number,
    campaignId: v[6] as number,
    creativeId: v[7] as number,
    advertiserId: v[8] as number,
    country: v[9] as string,
    device: v[10] as string,
    os: v[11] as string,
    appBundle: v[12] as string,
    domain: v[13] as string,
    revenueCpm: v[14] as number,
    costCpm: v[15] as number,
    test: v[16] as number,
    integration: v[17] as string,
    supplierId: v[18] as number,
    adexchangeId: v[19] as number,
    dealId: v[20] as string,
    partner: v[21] as string,
    marketplace: v[22] as string,
    viewer: v[23] as string,
    postbid: v[24] as number,
    arm: v[25] as string,
  };
}

// valuesOf and decisionOf name the fields by position: a field added to FIELDS must be added to both, in its place
{
  const probe = decisionOf(FIELDS.map((f) => f));
  const back = valuesOf(probe);
  if (
    FIELDS.some((f, i) => (probe as unknown as Record<string, unknown>)[f] !== f || back[i] !== f) ||
    Object.keys(probe).length !== FIELDS.length ||
    back.length !== FIELDS.length
  ) {
    throw new Error('trackingToken: valuesOf or decisionOf is out of step with FIELDS');
  }
}
