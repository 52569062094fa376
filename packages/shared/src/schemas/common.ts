import { z } from 'zod';

/** Trimmed text; empty becomes ''. */
export const trimmed = (max = 255) => z.string().trim().max(max, `must be at most ${max} characters`);
/** Trimmed text that must not be empty. */
export const requiredText = (max = 255) => trimmed(max).min(1, 'is required');
/** Flags: the console sends 1 or null; 0 and booleans are read too, and a flag is kept as 1 or null. */
export const flag = z
  .union([z.literal(1), z.literal(0), z.boolean(), z.null()])
  .optional()
  .transform((v) => (v === 1 || v === true ? 1 : null));
export const timezone = z
  .number()
  .int('must be a whole hour')
  .min(-12, 'must be between -12 and +12')
  .max(12, 'must be between -12 and +12');

/** One field error; the API answers 400 with `{ message, field, errors }`. */
export interface FieldError {
  field: string;
  message: string;
}

export interface ApiError {
  message: string;
  field?: string;
  errors?: FieldError[];
}

/** Turn a zod error into field errors, `contacts.1.contactEmail` style paths. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }));
}

/** `name: is required; companyName: must be at most 100 characters`. */
export function describeFieldErrors(errors: FieldError[]): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ');
}
