import { type FieldError } from '../../schemas/common.js';
import { partnerById } from './catalogue.js';
import { partnerFieldErrors, type AjvError } from './errors.js';
import { PARTNER_VALIDATORS } from './partners.validators.js';

type PartnerParams = Record<string, unknown>;
export type PartnerParamsResult = { ok: true; value: PartnerParams } | { ok: false; errors: FieldError[] };

/** A validator of partners.validators.ts: ajv's generated code for one partner's schema. */
type PartnerValidator = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
const VALIDATORS = PARTNER_VALIDATORS as unknown as Readonly<Record<string, PartnerValidator>>;

/** Keys whose value is undefined are absent, as they would be in JSON. */
const withoutUndefined = (value: unknown): unknown =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined))
    : value;

/**
 * Checks the parameters of a partner set up on a tag (by bidder code or Prebid variant id) against
 * the partner's JSON Schema, with ajv's draft-04 validator compiled ahead of time
 * (partners.validators.ts). Numbers must be numbers: `'123'` for an integer id is refused, as Prebid
 * Server refuses it; the console's form sends typed values. Each error names the parameter in its
 * field (`wrapper.profile`; '' for the parameters object itself) and in its message:
 * `zoneId must be a whole number (got text "123")`.
 */
export function validatePartnerParams(partnerId: string, params: unknown): PartnerParamsResult {
  const partner = partnerById(partnerId);
  const validate = partner && VALIDATORS[partner.id];
  if (!partner || !validate)
    return {
      ok: false,
      errors: [{ field: 'partner', message: `partner "${partnerId}" is not in the partner catalogue` }],
    };
  const value = withoutUndefined(params);
  if (validate(value)) return { ok: true, value: value as PartnerParams };
  return { ok: false, errors: partnerFieldErrors(partner.schema, value, validate.errors ?? []) };
}
