import { randomBytes } from 'node:crypto';
import { type Kysely } from 'kysely';
import { generateSecret, generateURI, verifySync } from 'otplib';
import { type TwoFactorStatus } from '@adplane/shared';
import { type Database } from '../store/schema.js';
import {
  beginEnrolment,
  findTwoFactor,
  finishEnrolment,
  removeTwoFactor,
  renewRecoveryCodes,
  spendRecoveryCode,
  takeTimeStep,
  unusedRecoveryCodes,
} from '../store/twoFactor.js';
import { findUserById, type User } from '../store/users.js';
import { digestOfSecret } from './secretTokens.js';
import { tenantIdOf } from './tenancy.js';
import { type TwoFactorKeys } from './twoFactorSecrets.js';

/**
 * Two-factor sign-in with TOTP (RFC 6238: 6 digits, 30-second steps, HMAC-SHA-1, as authenticator
 * apps expect) by otplib, and single-use recovery codes. A code is accepted one step either side of
 * the server's clock, and a time step once: a code seen before, or one older than the last one
 * accepted, is refused (store/twoFactor.ts `takeTimeStep`).
 */

/** What authenticator apps show as the account's issuer. */
const ISSUER = 'adplane';
/** Steps accepted either side of the current one (30 s each), for clocks that drift. */
const TOLERANCE_SECONDS = 30;
const RECOVERY_CODE_COUNT = 10;
/** 32 letters and digits that cannot be mistaken for one another (no 0/o, 1/l). */
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** The time step `code` matches for `secret` at `nowMs` (one step of drift either way), after `afterStep`; null when none. */
export function matchTotp(secret: string, code: string, nowMs: number, afterStep: number | null = null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const result = verifySync({
    secret,
    token: code,
    epoch: Math.floor(nowMs / 1000),
    epochTolerance: TOLERANCE_SECONDS,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  });
  // (the TOTP strategy's answer carries the step; the union type of verifySync also covers HOTP's)
  return result.valid ? (result as { timeStep: number }).timeStep : null;
}

/** Ten recovery codes, 60 random bits each, written `xxxx-xxxx-xxxx`. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const chars = [...randomBytes(12)].map((b) => RECOVERY_ALPHABET[b % 32]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
  });
}

/** A code as typed (any case, spaces or dashes) to what is hashed. */
const recoveryKey = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');

/** What is stored of a recovery code: the digest of its letters and digits (auth/secretTokens.ts). */
export const recoveryCodeDigest = (code: string): string => digestOfSecret(recoveryKey(code));

/** Six digits (spaces allowed) are a TOTP code; anything else is taken as a recovery code. */
const totpCodeOf = (code: string): string | null => {
  const digits = code.replace(/\s/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
};

/** What a second step was answered with, when it was right. */
export type CodeKind = 'totp' | 'recovery';

export interface TwoFactorOptions {
  db: Kysely<Database>;
  keys: TwoFactorKeys;
  now: () => number;
}

export function createTwoFactor({ db, keys, now }: TwoFactorOptions) {
  /** The TOTP secret of an account's row; null when it cannot be read (sealed under another session secret). */
  const secretOf = (sealed: string) => keys.open(sealed);

  /** Whether the account's tenant requires two-factor sign-in (admins: never required). */
  async function required(user: User): Promise<boolean> {
    const tenantId = user.type === 'admin' ? null : tenantIdOf(user);
    if (tenantId === null) return false;
    if (tenantId === user.id) return user.requireTwoFactor;
    return (await findUserById(db, tenantId))?.requireTwoFactor ?? false;
  }

  async function isOn(userId: number): Promise<boolean> {
    return Boolean((await findTwoFactor(db, userId))?.enabledAt);
  }

  async function status(user: User): Promise<TwoFactorStatus> {
    const row = await findTwoFactor(db, user.id);
    const enabledAt = row?.enabledAt ?? null;
    return {
      enabled: enabledAt !== null,
      enabledAt,
      required: await required(user),
      recoveryCodesLeft: enabledAt ? await unusedRecoveryCodes(db, user.id) : 0,
    };
  }

  /** A new secret for the account to enrol with; null when two-factor sign-in is on already. */
  async function begin(user: User): Promise<{ secret: string; uri: string } | null> {
    const secret = generateSecret();
    if (!(await beginEnrolment(db, user.id, keys.seal(secret), now()))) return null;
    return { secret, uri: generateURI({ issuer: ISSUER, label: user.username, secret }) };
  }

  /**
   * Finish the enrolment with a code of the new secret: the recovery codes to show once, or null when
   * the code is wrong or there was no enrolment waiting.
   */
  async function confirm(userId: number, code: string): Promise<string[] | null> {
    const row = await findTwoFactor(db, userId);
    const secret = row && !row.enabledAt ? secretOf(row.secretSealed) : null;
    const digits = totpCodeOf(code);
    if (!secret || !digits) return null;
    const step = matchTotp(secret, digits, now());
    if (step === null) return null;
    const codes = newRecoveryCodes();
    return (await finishEnrolment(db, userId, step, codes.map(recoveryCodeDigest), now())) ? codes : null;
  }

  /** A sign-in's second step: which kind of code was right, or null (wrong, reused, or two-factor is off). */
  async function check(userId: number, code: string): Promise<CodeKind | null> {
    const row = await findTwoFactor(db, userId);
    if (!row?.enabledAt) return null;
    const digits = totpCodeOf(code);
    if (digits) {
      const secret = secretOf(row.secretSealed);
      const step = secret === null ? null : matchTotp(secret, digits, now(), row.lastTimeStep);
      return step !== null && (await takeTimeStep(db, userId, step)) ? 'totp' : null;
    }
    const key = recoveryKey(code);
    if (key.length !== 12) return null;
    return (await spendRecoveryCode(db, userId, recoveryCodeDigest(key), now())) ? 'recovery' : null;
  }

  /** New recovery codes (the old ones stop working); null when two-factor sign-in is off. */
  async function renewCodes(userId: number): Promise<string[] | null> {
    const codes = newRecoveryCodes();
    return (await renewRecoveryCodes(db, userId, codes.map(recoveryCodeDigest))) ? codes : null;
  }

  return {
    required,
    isOn,
    status,
    begin,
    confirm,
    check,
    renewCodes,
    turnOff: (userId: number) => removeTwoFactor(db, userId),
  };
}

export type TwoFactor = ReturnType<typeof createTwoFactor>;

/** The second step of a sign-in: give a code, or enrol first (the tenant requires it). */
export type PendingStep = 'code' | 'enrol';

/** How long the password step's answer lets its second step be taken. */
export const PENDING_TTL_MS = 5 * 60_000;

/**
 * The token a right password earns when a second step follows: not a session (it opens no route but
 * the second step's), signed, naming the account, the step and its expiry.
 */
export function issuePending(keys: TwoFactorKeys, userId: number, step: PendingStep, nowMs: number) {
  const expiresMs = nowMs + PENDING_TTL_MS;
  const payload = Buffer.from(
    JSON.stringify({ u: userId, s: step, e: expiresMs, n: randomBytes(9).toString('base64url') }),
  ).toString('base64url');
  return { pendingToken: `${payload}.${keys.sign(payload)}`, expiresAt: new Date(expiresMs).toISOString() };
}

/** The account and step of a pending token still valid at `nowMs`; null otherwise. */
export function readPending(
  keys: TwoFactorKeys,
  token: string,
  nowMs: number,
): { userId: number; step: PendingStep } | null {
  const [payload, mac] = token.split('.');
  if (!payload || !mac || !keys.verify(payload, mac)) return null;
  try {
    const { u, s, e } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      u: number;
      s: PendingStep;
      e: number;
    };
    if (!Number.isSafeInteger(u) || (s !== 'code' && s !== 'enrol') || !(e > nowMs)) return null;
    return { userId: u, step: s };
  } catch {
    return null;
  }
}
