import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The keys of two-factor sign-in, derived from the session secret (store/sessionSecret.ts) with HKDF,
 * one per use: TOTP secrets are sealed with AES-256-GCM before they are stored, and the pending token
 * of a sign-in's second step is signed with HMAC-SHA-256. Changing ADPLANE_SESSION_SECRET therefore
 * also makes the stored TOTP secrets unreadable (docs/security.md says what to do then).
 */
const keyOf = (sessionSecret: string, use: string): Buffer =>
  Buffer.from(hkdfSync('sha256', sessionSecret, 'adplane', `two-factor ${use}`, 32));

const SEALED_PREFIX = 'v1';

export interface TwoFactorKeys {
  seal(plain: string): string;
  /** Null when the text was not sealed with this key (damaged, or sealed under another session secret). */
  open(sealed: string): string | null;
  sign(payload: string): string;
  /** Whether `mac` is the signature of `payload`, compared in constant time. */
  verify(payload: string, mac: string): boolean;
}

export function twoFactorKeys(sessionSecret: string): TwoFactorKeys {
  const sealKey = keyOf(sessionSecret, 'secret seal');
  const signKey = keyOf(sessionSecret, 'pending sign-in');
  const sign = (payload: string) => createHmac('sha256', signKey).update(payload).digest('base64url');
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [SEALED_PREFIX, iv, body, cipher.getAuthTag()]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [prefix, iv, body, tag] = sealed.split('.');
      if (prefix !== SEALED_PREFIX || !iv || !body || !tag) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', sealKey, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
    sign,
    verify(payload, mac) {
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(mac);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}
