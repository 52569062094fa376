import { type z } from 'zod';
import { type FieldError } from '../../schemas/common.js';
import { partnerById } from './catalogue.js';
import { jsonSchemaToZod } from './toZod.js';

export type PartnerParams = Record<string, unknown>;
export type PartnerParamsResult = { ok: true; value: PartnerParams } | { ok: false; errors: FieldError[] };

const compiled = new Map<string, z.ZodType<PartnerParams>>();

/**
 * The zod schema of a partner's parameters (by bidder code or Prebid variant id), for composing into
 * a tag's schema; its issue messages are predicates on the issue path (`must be a whole number ...`).
 * The parsed value drops keys whose value is undefined, as JSON would. Undefined for an unknown partner.
 */
export function partnerParamsSchema(partnerId: string): z.ZodType<PartnerParams> | undefined {
  const partner = partnerById(partnerId);
  if (!partner) return undefined;
  let schema = compiled.get(partner.id);
  if (!schema) {
    schema = jsonSchemaToZod(partner.schema).transform((value) =>
      Object.fromEntries(Object.entries(value as PartnerParams).filter(([, v]) => v !== undefined)),
    );
    compiled.set(partner.id, schema);
  }
  return schema;
}

/**
 * Checks the parameters of a partner set up on a tag. Numbers must be numbers: `'123'` for an integer
 * id is refused, naming the parameter. Each error names the parameter in its field (`wrapper.profile`;
 * '' for the parameters object itself) and in its message: `zoneId must be a whole number (got text "123")`.
 */
export function validatePartnerParams(partnerId: string, params: unknown): PartnerParamsResult {
  const schema = partnerParamsSchema(partnerId);
  if (!schema) return { ok: false, errors: [{ field: 'partner', message: `partner "${partnerId}" is not in the partner catalogue` }] };
  const result = schema.safeParse(params);
  if (result.success) return { ok: true, value: result.data };
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of result.error.issues) {
    const field = issue.path.map(String).join('.');
    const message = `${field || 'Parameters'} ${issue.message}`;
    if (seen.has(message)) continue;
    seen.add(message);
    errors.push({ field, message });
  }
  return { ok: false, errors };
}
