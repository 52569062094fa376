import { AppConfig, parseConfigInteger } from '@adplane/shared';

export const CONFIG_FIELDS = [
  { name: 'postbidMaxImps', label: 'Postbid Maximum Impression Amount (per month)' },
  { name: 'postbidMaxReps', label: 'Postbid Maximum Report Amount (per month)' },
] as const;

export type ConfigFieldName = (typeof CONFIG_FIELDS)[number]['name'];
export type ConfigFormValues = Record<ConfigFieldName, string | number | null | undefined>;

/** `1000000` -> `1,000,000`, the way the field shows a stored value. */
export function formatConfigValue(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toLocaleString('en-US') : '';
}

/** Why one field's text cannot be saved, or null when it can (read by parseConfigInteger, format.ts). */
export function configFieldError(text: string | number | null | undefined): string | null {
  const value = parseConfigInteger(text);
  if (Number.isNaN(value)) return 'Enter a whole number, e.g. 1,000,000';
  if (value < 0) return 'Must not be negative';
  if (!Number.isSafeInteger(value)) return 'The number is too large';
  return null;
}

/** The PUT /api/admin/config body: commas, dots and spaces stripped, empty as 0. */
export function parseConfigForm(
  values: ConfigFormValues,
): { ok: true; value: AppConfig } | { ok: false; errors: Partial<Record<ConfigFieldName, string>> } {
  const errors: Partial<Record<ConfigFieldName, string>> = {};
  for (const { name } of CONFIG_FIELDS) {
    const error = configFieldError(values[name]);
    if (error) errors[name] = error;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const parsed = AppConfig.safeParse({
    postbidMaxImps: parseConfigInteger(values.postbidMaxImps),
    postbidMaxReps: parseConfigInteger(values.postbidMaxReps),
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) errors[issue.path[0] as ConfigFieldName] = issue.message;
    return { ok: false, errors };
  }
  return { ok: true, value: parsed.data };
}
