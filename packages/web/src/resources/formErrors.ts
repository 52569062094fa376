import { type FormInstance } from 'antd';
import { type z } from 'zod';
import { type FieldError, fieldErrors } from '@adplane/shared';
import { ApiError } from '../api/client.js';

/** `contacts.1.contactEmail` -> ['contacts', 1, 'contactEmail'] (antd's name path). */
export function namePath(field: string): (string | number)[] {
  return field.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

/**
 * Put field errors on the form's fields. Returns the errors no field of the form shows (the caller
 * shows them above the form), so that nothing is lost.
 */
export function showFieldErrors(form: FormInstance, errors: readonly FieldError[]): string[] {
  const registered = new Set(form.getFieldsError().map((f) => f.name.join('.')));
  const unshown: string[] = [];
  const byField = new Map<string, { name: (string | number)[]; errors: string[] }>();
  for (const e of errors) {
    // An error on an item of a list lands on the list itself when the item has no field of its own.
    const path = namePath(e.field);
    while (path.length > 1 && !registered.has(path.join('.'))) path.pop();
    const key = path.join('.');
    if (!registered.has(key)) {
      unshown.push(`${e.field}: ${e.message}`);
      continue;
    }
    const entry = byField.get(key) ?? { name: path, errors: [] };
    if (!entry.errors.includes(e.message)) entry.errors.push(e.message);
    byField.set(key, entry);
  }
  form.setFields([...byField.values()]);
  return unshown;
}

/** The server's field errors (a 400 naming fields) on the form's fields; see showFieldErrors. */
export function applyFieldErrors(form: FormInstance, error: unknown): string[] {
  if (!(error instanceof ApiError) || error.errors.length === 0) return [];
  return showFieldErrors(form, error.errors);
}

/**
 * The kind's shared schema (packages/shared kinds) checks the body the form is about to send: the
 * same rules, in the same words, as the server applies, shown on the fields before any request.
 * Forms keep only the rules that help while typing; the schema is the one source of truth.
 */
export function schemaFieldErrors(schema: z.ZodType, body: unknown): FieldError[] {
  const result = schema.safeParse(body);
  return result.success ? [] : fieldErrors(result.error);
}
