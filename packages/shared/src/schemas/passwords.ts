import { z } from 'zod';
import { passwordProblem } from './passwordPolicy.js';

/** A new password that must be given (not '' for "keep the old one"): the rules of passwordPolicy.ts. */
const requiredNewPassword = z
  .string()
  .max(200, 'must be at most 200 characters')
  .superRefine((v, ctx) => {
    const problem = v === '' ? 'is required' : passwordProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** POST /api/auth/password: a signed-in user changes their own password. */
export const ChangePasswordBody = z.object({
  currentPassword: z.string().min(1, 'is required').max(1024),
  newPassword: requiredNewPassword,
});
export type ChangePasswordBody = z.infer<typeof ChangePasswordBody>;

/** POST /api/auth/forgotPassword: ask for a reset link by e-mail address (or user name). */
export const ForgotPasswordBody = z.object({
  login: z.string().trim().min(1, 'is required').max(255),
});
export type ForgotPasswordBody = z.infer<typeof ForgotPasswordBody>;

/** POST /api/auth/resetPassword: the token of the e-mailed link and the new password. */
export const ResetPasswordBody = z.object({
  token: z.string().trim().min(1, 'is required').max(200),
  password: requiredNewPassword,
});
export type ResetPasswordBody = z.infer<typeof ResetPasswordBody>;

/** The one answer to a reset request, whether or not the address belongs to an account. */
export const FORGOT_PASSWORD_ANSWER =
  'If an account has this address, a link to set a new password is on its way. It works once, for an hour.';

/** What a row of the sign-in log records: a sign-in that worked or failed, or a password set. */
export type SignInOutcome = 'success' | 'failure' | 'password_changed' | 'password_reset';

/** Why a sign-in failed. */
/** `bad_code`: the second step's TOTP or recovery code was wrong, reused or spent. */
export type SignInFailure = 'bad_password' | 'bad_code' | 'throttled' | 'disabled' | 'archived';

/** One row of an account's sign-in log (GET /api/auth/signIns, GET /api/users/:id/signIns). */
export interface SignInEntry {
  at: string;
  ip: string | null;
  userAgent: string | null;
  outcome: SignInOutcome;
  /** For a failure: why; else null. */
  reason: SignInFailure | null;
}

/** How long the sign-in log keeps a row. */
export const SIGN_IN_LOG_DAYS = 90;
