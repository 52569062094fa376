import { type FormInstance } from 'antd';
import { ApiError } from '../api/client.js';

/** `contacts.1.contactEmail` -> ['contacts', 1, 'contactEmail'] (antd's name path). */
export function namePath(field: string): (string | number)[] {
  return field.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

/**
 * Put the server's field errors on the form's fields. Returns the errors no field of the form shows
 * (the caller puts them in the toast), so that nothing the server said is lost.
 */
export function applyFieldErrors(form: FormInstance, error: unknown): string[] {
  if (!(error instanceof ApiError) || error.errors.length === 0) return [];
  const registered = new Set(form.getFieldsError().map((f) => f.name.join('.')));
  const unshown: string[] = [];
  const fields = error.errors.flatMap((e) => {
    // A field error on an item of a list lands on the list itself when the item has no field of its own.
    const path = namePath(e.field);
    while (path.length > 1 && !registered.has(path.join('.'))) path.pop();
    if (!registered.has(path.join('.'))) {
      unshown.push(`${e.field}: ${e.message}`);
      return [];
    }
    return [{ name: path, errors: [e.message] }];
  });
  form.setFields(fields);
  return unshown;
}
