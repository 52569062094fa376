import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_AGE_S } from '../vast/adLifetime.js';
import { type Decision, newDecisionId, TokenSigner, VERIFIED_CAP } from './trackingToken.js';

const KEY = 'k'.repeat(32);
const NOW = 1_800_000_000;
const decision: Decision = {
  id: newDecisionId(),
  at: NOW,
  tenantId: 12,
  channelId: 3456,
  subpublisherId: 0,
  tagId: 0,
  campaignId: 123,
  creativeId: 789,
  advertiserId: 4,
  country: 'US',
  device: 'desktop',
  os: 'windows',
  appBundle: '',
  domain: 'example.com',
  revenueCpm: 5_000_000,
  costCpm: 3_500_000,
  test: 0,
  integration: 'RTB',
  supplierId: 7,
  adexchangeId: 9,
  dealId: 'DEAL-1',
  partner: '',
  marketplace: 'Exchange One',
  viewer: 'd:abc-123',
  postbid: 1,
  arm: 'B',
};
const PLAIN_VAST = {
  integration: 'VAST',
  supplierId: 0,
  adexchangeId: 0,
  dealId: '',
  partner: '',
  marketplace: '',
  viewer: '',
  postbid: 0,
  arm: '',
};
const LEGACY_FIELDS = [
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
] as const;

const mac = (payload: string, key = KEY) =>
  createHmac('sha256', key).update(payload).digest().subarray(0, 16).toString('base64url');
/** A token as earlier versions signed it: the values as base64url JSON. */
const jsonToken = (values: unknown[]) => {
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${payload}.${mac(payload)}`;
};
const ALL_FIELDS = [...LEGACY_FIELDS, 'postbid', 'arm'] as const;

function legacyToken(count: number): string {
  return jsonToken(LEGACY_FIELDS.slice(0, count).map((f) => decision[f]));
}

/** A token's payload and signature: the signature follows the last '.'. */
function partsOf(token: string): [string, string] {
  const dot = token.lastIndexOf('.');
  return [token.slice(0, dot), token.slice(dot + 1)];
}

describe('tracking tokens', () => {
  it('round-trips a decision, test flag included', () => {
    const signer = new TokenSigner(KEY);
    expect(signer.verify(signer.sign(decision), NOW + 10)).toEqual(decision);
    expect(signer.verify(signer.sign({ ...decision, test: 1 }), NOW)?.test).toBe(1);
  });

  it('refuses a forged, damaged, foreign-key or expired token, and never throws', () => {
    const signer = new TokenSigner(KEY);
    const token = signer.sign(decision);
    const [payload, sig] = partsOf(token);
    // the revenue CPM (field 14) raised, the signature kept
    const forged = payload
      .split('.')
      .map((f, i) => (i === 14 ? (99_000_000).toString(36) : f))
      .join('.');
    expect(signer.verify(`${forged}.${sig}`, NOW)).toBeNull();
    expect(new TokenSigner('x'.repeat(32)).verify(token, NOW)).toBeNull();
    expect(signer.verify(token, NOW + MAX_AGE_S + 1)).toBeNull();
    for (const junk of [
      '',
      '.',
      'a.b',
      `${payload}.`,
      `${payload}.${sig}x`,
      `${payload}${sig}`,
      'x'.repeat(5000),
      '%%%.%%%',
      `.${sig}`,
    ])
      expect(signer.verify(junk, NOW)).toBeNull();
  });

  it('keeps the tokens it verified lately: the same token finds its decision again, still refused once expired; a forged one never', () => {
    const signer = new TokenSigner(KEY);
    const token = signer.sign(decision);
    const first = signer.verify(token, NOW);
    expect(first).toEqual(decision);
    expect(Object.isFrozen(first)).toBe(true);
    expect(signer.verify(token, NOW + 60)).toBe(first);
    expect(signer.verify(token, NOW + MAX_AGE_S + 1)).toBeNull();
    expect(signer.verify(token, NOW - 301)).toBeNull();
    const [payload, sig] = partsOf(token);
    // another signature for the same payload (its first character changed: a fixed ending such as
    // 'AA' was the token's own once in 256 random decision ids)
    expect(signer.verify(`${payload}.${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`, NOW)).toBeNull();
    expect(signer.verify(`${payload}x.${sig}`, NOW)).toBeNull();
    // two generations bound what is kept: the first token is forgotten, and verified again from its signature
    const others = Array.from({ length: 2 * VERIFIED_CAP }, (_, i) => signer.sign({ ...decision, id: `other-${i}` }));
    for (const other of others) expect(signer.verify(other, NOW)).not.toBeNull();
    const again = signer.verify(token, NOW);
    expect(again).toEqual(decision);
    expect(again).not.toBe(first);
    expect(signer.verify(others.at(-1)!, NOW)?.id).toBe(`other-${2 * VERIFIED_CAP - 1}`);
  });

  it('accepts tokens signed by earlier versions (before the test flag, the programmatic fields, the viewer, the post-bid flag) as plain VAST decisions', () => {
    const signer = new TokenSigner(KEY);
    expect(signer.verify(legacyToken(16), NOW)).toEqual({ ...decision, ...PLAIN_VAST, test: 0 });
    expect(signer.verify(legacyToken(17), NOW)).toEqual({ ...decision, ...PLAIN_VAST });
    expect(signer.verify(legacyToken(15), NOW)).toBeNull();
    // before the viewer (delivery control's frequency cap): no viewer to commit
    expect(signer.verify(legacyToken(23), NOW)).toEqual({ ...decision, viewer: '', postbid: 0, arm: '' });
    // before the post-bid flag: the impression is not a post-bid impression
    expect(signer.verify(legacyToken(24), NOW)).toEqual({ ...decision, postbid: 0, arm: '' });
    // before the A/B arm: the events count without an arm
    expect(signer.verify(jsonToken(ALL_FIELDS.slice(0, 25).map((f) => decision[f])), NOW)).toEqual({
      ...decision,
      arm: '',
    });
  });

  it('reads a compact token signed before the A/B arm was a field as a decision without an arm', () => {
    const signer = new TokenSigner(KEY);
    const [payload] = partsOf(signer.sign(decision));
    const fields = payload.split('.');
    expect(fields.at(-1)).toBe('B');
    // the same payload without its last field, signed as that version signed it
    const before = fields.slice(0, -1).join('.');
    expect(signer.verify(`${before}.${mac(before)}`, NOW)).toEqual({ ...decision, arm: '' });
    // one field fewer again is no version's: refused
    const shorter = fields.slice(0, -2).join('.');
    expect(signer.verify(`${shorter}.${mac(shorter)}`, NOW)).toBeNull();
    // the arm round-trips in the current form
    expect(signer.verify(signer.sign({ ...decision, arm: 'A' }), NOW)?.arm).toBe('A');
    expect(signer.verify(signer.sign({ ...decision, arm: '' }), NOW)?.arm).toBe('');
  });

  it('accepts a token of the current fields signed as base64url JSON, as versions before the compact payload signed them', () => {
    const signer = new TokenSigner(KEY);
    expect(signer.verify(jsonToken(ALL_FIELDS.map((f) => decision[f])), NOW)).toEqual(decision);
    // the JSON payload has no '.', the compact one always has: a JSON token's values are read as JSON
    expect(partsOf(jsonToken(ALL_FIELDS.map((f) => decision[f])))[0]).not.toContain('.');
  });

  it('writes the payload as URL-safe text, about 40 % shorter than base64url JSON, and reads any text back exactly', () => {
    const signer = new TokenSigner(KEY);
    const token = signer.sign(decision);
    expect(token).toMatch(/^[A-Za-z0-9_~.-]+$/);
    expect(token.length).toBeLessThan(jsonToken(ALL_FIELDS.map((f) => decision[f])).length * 0.7);
    const [payload] = partsOf(token);
    const fields = payload.split('.');
    expect(fields).toHaveLength(ALL_FIELDS.length);
    expect(fields[0]).toBe(decision.id);
    expect(fields[1]).toBe(NOW.toString(36));
    expect(fields[13]).toBe('example~2Ecom');
    const texts = [
      'a.b~c%d',
      'com.example.app',
      "it's (a) test! *",
      'spaces and + plus & amp = eq',
      'prix-é€😀',
      'zh-中文',
      '~~..%%',
      '%7E',
      '\u0000\n',
    ];
    for (const text of texts) {
      const d = { ...decision, appBundle: text, domain: text, dealId: text, marketplace: text, viewer: text };
      const t = signer.sign(d);
      expect(t).toMatch(/^[A-Za-z0-9_~.-]+$/);
      expect(partsOf(t)[0]).toContain('.');
      expect(signer.verify(t, NOW)).toEqual(d);
      // a player or an exchange that percent-encodes the URL again: /ev reads the parameter decoded once
      const reencoded = new URL(`https://x.example/ev?t=${encodeURIComponent(t)}`).searchParams.get('t');
      expect(reencoded).toBe(t);
    }
  });

  it('signs what the compact payload cannot hold (a fraction, a negative number, a lone surrogate) as base64url JSON, which verifies', () => {
    const signer = new TokenSigner(KEY);
    for (const d of [
      { ...decision, revenueCpm: 1_250_000.5 },
      { ...decision, costCpm: -1 },
      { ...decision, domain: 'bad\ud800' },
    ]) {
      const token = signer.sign(d);
      expect(partsOf(token)[0]).not.toContain('.');
      expect(signer.verify(token, NOW)).toEqual(d);
    }
  });

  it('refuses a compact payload that is not one, even under a valid signature', () => {
    const signer = new TokenSigner(KEY);
    const fields = partsOf(signer.sign(decision))[0].split('.');
    const signed = (payload: string) => `${payload}.${mac(payload)}`;
    expect(signer.verify(signed(fields.join('.')), NOW)).toEqual(decision);
    // (one field fewer is a token of the version before the A/B arm: read without an arm, above)
    expect(signer.verify(signed(fields.slice(0, -2).join('.')), NOW)).toBeNull();
    expect(signer.verify(signed([...fields, '0'].join('.')), NOW)).toBeNull();
    expect(signer.verify(signed(fields.map((f, i) => (i === 2 ? '!' : f)).join('.')), NOW)).toBeNull();
    expect(signer.verify(signed(fields.map((f, i) => (i === 2 ? '' : f)).join('.')), NOW)).toBeNull();
    expect(signer.verify(signed(fields.map((f, i) => (i === 13 ? 'bad~ZZescape' : f)).join('.')), NOW)).toBeNull();
  });

  it('signs with HMAC-SHA256 truncated to 128 bits, whatever the key length and the attached value', () => {
    for (const key of [
      'k',
      'k'.repeat(32),
      'k'.repeat(63),
      'k'.repeat(64),
      'k'.repeat(65),
      'k'.repeat(200),
      'clé-é€😀'.repeat(3),
    ]) {
      const signer = new TokenSigner(key);
      const token = signer.sign(decision);
      const [payload, sig] = partsOf(token);
      const hmac = (text: string) =>
        createHmac('sha256', key).update(text).digest().subarray(0, 16).toString('base64url');
      expect(sig).toBe(hmac(payload));
      expect(signer.verify(token, NOW)).toEqual(decision);
      // values short and long (past a SHA-256 block, past 1 KB), and a short one after them
      for (const value of [
        'https://ssp.example/bill?p=1.25',
        'prix-é€😀\n\u0000',
        'a'.repeat(1024 - token.length - 1),
        'b'.repeat(1024 - token.length),
        'c'.repeat(5000),
        'é'.repeat(700),
        'short',
      ]) {
        expect(signer.attach(token, value)).toBe(hmac(`${token}\n${value}`));
        expect(signer.attached(token, value, signer.attach(token, value))).toBe(true);
      }
      // a damaged token with characters beyond ASCII is read as UTF-8, as createHmac reads it, and refused
      expect(signer.verify(`${payload}é.${sig}`, NOW)).toBeNull();
    }
  });

  it('gives every decision its own id', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newDecisionId()));
    expect(ids.size).toBe(10_000);
  });
});

describe('one spelling of each signed value', () => {
  const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  /** Other spellings Node's base64url decoder reads as the same bytes as `canonical`. */
  function respellings(canonical: string): string[] {
    const out = [`${canonical}=`, `${canonical}==`, `${canonical}!!`, ` ${canonical}`, `${canonical}\n`];
    // the last character's unused bits set (16 bytes: 22 characters, 4 bits unused)
    const last = B64URL.indexOf(canonical.at(-1)!);
    if (canonical.length % 4 !== 0) out.push(canonical.slice(0, -1) + B64URL[last + 1]!);
    // the standard alphabet's spelling of '-' and '_'
    if (/[-_]/.test(canonical)) out.push(canonical.replaceAll('-', '+').replaceAll('_', '/'));
    for (const spelling of out)
      expect(Buffer.from(spelling, 'base64url').equals(Buffer.from(canonical, 'base64url')), spelling).toBe(true);
    return out;
  }

  it('refuses a token whose signature is spelled otherwise than sign spells it: padding, other characters, unused bits', () => {
    const signer = new TokenSigner(KEY);
    for (let i = 0; i < 8; i++) {
      const token = signer.sign({ ...decision, id: `spelling-${i}` });
      const [payload, sig] = partsOf(token);
      for (const spelling of respellings(sig))
        expect(signer.verify(`${payload}.${spelling}`, NOW), spelling).toBeNull();
      // the canonical token still verifies, after its variants were refused and before
      expect(signer.verify(token, NOW)?.id).toBe(`spelling-${i}`);
    }
  });

  it("refuses an earlier version's token whose base64url payload is not spelled canonically, even with a valid signature over that text", () => {
    const signer = new TokenSigner(KEY);
    const [payload] = partsOf(legacyToken(24));
    expect(signer.verify(`${payload}.${mac(payload)}`, NOW)).not.toBeNull();
    for (const spelling of respellings(payload))
      expect(signer.verify(`${spelling}.${mac(spelling)}`, NOW), spelling).toBeNull();
  });

  it('accepts an attached signature only as attach spells it', () => {
    const signer = new TokenSigner(KEY);
    const token = signer.sign(decision);
    for (let i = 0; i < 8; i++) {
      const value = `https://notice.example/win?n=${i}`;
      const sig = signer.attach(token, value);
      expect(signer.attached(token, value, sig)).toBe(true);
      for (const spelling of respellings(sig)) expect(signer.attached(token, value, spelling), spelling).toBe(false);
    }
  });
});
