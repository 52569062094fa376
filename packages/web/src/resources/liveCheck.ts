import { type FormInstance } from 'antd';
import { useCallback, useRef } from 'react';
import { type FieldError } from '@adplane/shared';
import { namePath } from './formErrors.js';

/** What `onFieldsChange` says of a field (antd's FieldData, the parts read here). */
interface ChangedField {
  name: (string | number)[] | string | number;
  errors?: string[];
  validating?: boolean;
}

const keyOf = (name: ChangedField['name']) => (Array.isArray(name) ? name.join('.') : String(name));

/**
 * The kind's schema checks each field as it is changed, so a value it refuses (a negative budget, a
 * bid of $0.00, a name past 255 characters) is refused in place, in the schema's words, as the server
 * would refuse it, before Save. `check` gives the schema's errors for the whole form as it is now
 * (null when it cannot be read yet); only the fields just changed get theirs, so untouched fields
 * stay quiet while the form is filled in.
 *
 * A field's own rules speak first: while they run, or when they refuse, the schema's word waits; once
 * they pass, the schema's errors (or none) are shown. A field without rules shows the schema's errors
 * (or none) at once, which also clears what the server said of the value before it was changed.
 */
export function useLiveSchemaCheck(
  form: FormInstance,
  check: () => readonly FieldError[] | null,
): (changed: ChangedField[]) => void {
  // fields seen validating have rules of their own
  const withRules = useRef(new Set<string>());
  return useCallback(
    (changed: ChangedField[]) => {
      const settled = changed.filter((f) => {
        const key = keyOf(f.name);
        if (f.validating) {
          withRules.current.add(key);
          return false;
        }
        return !(withRules.current.has(key) && (f.errors?.length ?? 0) > 0);
      });
      if (settled.length === 0) return;
      const errors = check();
      if (errors === null) return;
      const registered = new Set(form.getFieldsError().map((f) => f.name.join('.')));
      const byField = new Map<string, string[]>();
      for (const e of errors) {
        // an error on a part of a value that has no field of its own lands on the value's field
        const path = namePath(e.field);
        while (path.length > 1 && !registered.has(path.join('.'))) path.pop();
        const key = path.join('.');
        const list = byField.get(key) ?? [];
        if (!list.includes(e.message)) list.push(e.message);
        byField.set(key, list);
      }
      form.setFields(settled.map((f) => ({ name: f.name, errors: byField.get(keyOf(f.name)) ?? [] })));
    },
    [form, check],
  );
}
