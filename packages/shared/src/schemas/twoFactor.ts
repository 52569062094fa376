import { z } from 'zod';
import { type AuthUser } from './auth.js';

/**
 * Two-factor sign-in (docs/security.md): a TOTP code of an authenticator app, or a recovery code,
 * after the password.
 */

/** A TOTP code (6 digits) or a recovery code (`xxxx-xxxx-xxxx`), as typed. */
const code = z.string().trim().min(1, 'is required').max(64, 'must be at most 64 characters');
const pendingToken = z.string().trim().min(1, 'is required').max(500, 'is not a sign-in in progress');

/** POST /api/auth/twoFactor/confirm: the first code of the new secret turns two-factor sign-in on. */
export const TwoFactorCodeBody = z.object({ code });
export type TwoFactorCodeBody = z.infer<typeof TwoFactorCodeBody>;

/** POST /api/auth/twoFactor/disable and /recoveryCodes: the account's password, asked again. */
export const TwoFactorPasswordBody = z.object({ password: z.string().min(1, 'is required').max(1024) });
export type TwoFactorPasswordBody = z.infer<typeof TwoFactorPasswordBody>;

/** POST /api/auth/login/setup: begin the enrolment a tenant requires, before any session. */
export const PendingSignInBody = z.object({ pendingToken });
export type PendingSignInBody = z.infer<typeof PendingSignInBody>;

/** POST /api/auth/login/code and /api/auth/login/confirm: the second step of a sign-in. */
export const SecondStepBody = z.object({ pendingToken, code });
export type SecondStepBody = z.infer<typeof SecondStepBody>;

/** GET /api/auth/twoFactor: the caller's own two-factor sign-in. */
export const TwoFactorStatus = z.object({
  enabled: z.boolean(),
  enabledAt: z.string().nullable(),
  /** The account's tenant requires it: it cannot be turned off. */
  required: z.boolean(),
  recoveryCodesLeft: z.number().int(),
});
export type TwoFactorStatus = z.infer<typeof TwoFactorStatus>;

/** A new secret to enrol with: the otpauth:// URI for a QR code and the secret to type by hand. */
export const TwoFactorSetup = z.object({ secret: z.string(), uri: z.string() });
export type TwoFactorSetup = z.infer<typeof TwoFactorSetup>;

/** Recovery codes, shown this once (the server keeps only their digests). */
export const RecoveryCodes = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodes = z.infer<typeof RecoveryCodes>;

/** The answer of POST /api/auth/login when a second step follows the password: no session yet. */
export interface SecondStepPending {
  /** 'code': give a TOTP or recovery code; 'enrol': the tenant requires two-factor sign-in, set it up first. */
  twoFactor: 'code' | 'enrol';
  pendingToken: string;
  expiresAt: string;
}

/** What POST /api/auth/login answers: the signed-in user, or the second step still to take. */
export type LoginAnswer = AuthUser | SecondStepPending;

export const isSecondStep = (answer: LoginAnswer): answer is SecondStepPending => 'twoFactor' in answer;

/** The answer of POST /api/auth/login/confirm: signed in, with the recovery codes to keep. */
export interface EnrolledSignIn {
  user: AuthUser;
  recoveryCodes: string[];
}
