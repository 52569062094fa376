import { generateSecret, generateSync } from 'otplib';
import { describe, expect, it } from 'vitest';
import {
  issuePending,
  matchTotp,
  newRecoveryCodes,
  PENDING_TTL_MS,
  readPending,
  recoveryCodeDigest,
} from './twoFactor.js';
import { twoFactorKeys } from './twoFactorSecrets.js';

describe('TOTP by otplib against RFC 6238', () => {
  // Appendix B of RFC 6238: the SHA-1 seed "12345678901234567890", 8 digits, 30-second steps.
  const seed = new TextEncoder().encode('12345678901234567890');
  it.each([
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ])('at %i s gives %s', (epoch, expected) => {
    expect(generateSync({ secret: seed, digits: 8, epoch })).toBe(expected);
  });

  it('accepts the current code and one step of drift either way, refuses two steps off, and gives the step', () => {
    const secret = generateSecret();
    const at = 1_800_000_000_000;
    const codeAt = (ms: number) => generateSync({ secret, epoch: Math.floor(ms / 1000) });
    const step = Math.floor(at / 30_000);
    expect(matchTotp(secret, codeAt(at), at)).toBe(step);
    expect(matchTotp(secret, codeAt(at - 30_000), at)).toBe(step - 1);
    expect(matchTotp(secret, codeAt(at + 30_000), at)).toBe(step + 1);
    expect(matchTotp(secret, codeAt(at - 90_000), at)).toBeNull();
    expect(matchTotp(secret, '12345', at)).toBeNull();
    // a step at or before the last one taken is refused: no replay
    expect(matchTotp(secret, codeAt(at), at, step)).toBeNull();
    expect(matchTotp(secret, codeAt(at + 30_000), at, step)).toBe(step + 1);
  });
});

describe('recovery codes', () => {
  it('are ten distinct codes of 12 unambiguous characters, whose digest ignores case, spaces and dashes', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-km-np-z2-9]{4}-[a-km-np-z2-9]{4}-[a-km-np-z2-9]{4}$/);
    const [code] = codes;
    expect(recoveryCodeDigest(code.toUpperCase().replaceAll('-', ' '))).toBe(recoveryCodeDigest(code));
    expect(recoveryCodeDigest(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(recoveryCodeDigest(codes[1])).not.toBe(recoveryCodeDigest(code));
  });
});

describe('sealed secrets and pending tokens', () => {
  const keys = twoFactorKeys('a-session-secret-of-at-least-32-characters');
  const otherKeys = twoFactorKeys('another-session-secret-of-32-characters!!');

  it('seals a secret so that only the same session secret opens it', () => {
    const sealed = keys.seal('JBSWY3DPEHPK3PXP');
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(keys.seal('JBSWY3DPEHPK3PXP')).not.toBe(sealed);
    expect(keys.open(sealed)).toBe('JBSWY3DPEHPK3PXP');
    expect(otherKeys.open(sealed)).toBeNull();
    const [prefix, iv, body, tag] = sealed.split('.');
    expect(keys.open([prefix, iv, `${body}A`, tag].join('.'))).toBeNull();
    expect(keys.open('plain')).toBeNull();
  });

  it('reads a pending token until it expires, and never a tampered or foreign one', () => {
    const at = 1_800_000_000_000;
    const { pendingToken, expiresAt } = issuePending(keys, 42, 'code', at);
    expect(Date.parse(expiresAt)).toBe(at + PENDING_TTL_MS);
    expect(readPending(keys, pendingToken, at + PENDING_TTL_MS - 1)).toEqual({ userId: 42, step: 'code' });
    expect(readPending(keys, pendingToken, at + PENDING_TTL_MS)).toBeNull();
    expect(readPending(otherKeys, pendingToken, at)).toBeNull();
    const [payload, mac] = pendingToken.split('.');
    const forged = Buffer.from(JSON.stringify({ u: 1, s: 'code', e: at + 60_000, n: 'x' })).toString('base64url');
    expect(readPending(keys, `${forged}.${mac}`, at)).toBeNull();
    expect(readPending(keys, `${payload}.`, at)).toBeNull();
    expect(readPending(keys, 'nonsense', at)).toBeNull();
  });
});
