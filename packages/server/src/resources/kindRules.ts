import {
  type FieldError,
  type ResourceKind,
  type TargetingRules,
  isCountry,
  isIabCategory,
  isRegion,
  isUsState,
  validatePartnerParams,
} from '@adplane/shared';
import { type EntityRow } from '../store/entities.js';

/**
 * Rules of one kind that its zod schema cannot state alone: reference-data codes, the partner
 * catalogue's parameter schemas. Each returns field errors (empty when the value is fine).
 */
type Check = (value: Record<string, unknown>) => FieldError[];

function codes(field: string, values: readonly string[], valid: (v: string) => boolean, what: string): FieldError[] {
  const bad = values.filter((v) => !valid(v));
  return bad.length ? [{ field, message: `${bad.slice(0, 10).join(', ')} ${bad.length > 1 ? 'are not' : 'is not a'} ${what}` }] : [];
}

export function checkTargetingRules(rules: TargetingRules, prefix = 'rules'): FieldError[] {
  return [
    ...codes(`${prefix}.countries`, rules.countries.values, isCountry, 'country code'),
    ...codes(`${prefix}.regions`, rules.regions.values, (v) => isRegion(v) || isCountry(v), 'region or country'),
    ...codes(`${prefix}.usStates`, rules.usStates.values, isUsState, 'US state'),
    ...codes(`${prefix}.iabCategories`, rules.iabCategories.values, isIabCategory, 'IAB category'),
  ];
}

export const KIND_CHECKS: Partial<Record<ResourceKind, Check>> = {
  targetings: (v) => checkTargetingRules(v.rules as TargetingRules),
  tags: (v) => {
    if (v.integration !== 'PreBid') return [];
    const result = validatePartnerParams(String(v.partner), v.partnerParams ?? {});
    if (result.ok) {
      v.partnerParams = result.value as Record<string, unknown>;
      return [];
    }
    return result.errors.map((e) => ({ field: e.field.startsWith('partner') ? e.field : `partnerParams.${e.field}`, message: e.message }));
  },
  creatives: (v) => (v.iabCategory ? codes('iabCategory', [String(v.iabCategory)], isIabCategory, 'IAB category') : []),
};

/** What a kind's shared list carries besides id, name, uid and status. */
export function listExtras(kind: ResourceKind, row: EntityRow): Record<string, unknown> {
  const d = row.data;
  switch (kind) {
    case 'channels':
      return { integration: d.integration, format: d.format, environment: d.environment, subpublisherId: d.subpublisherId ?? null };
    case 'tags':
      return { integration: d.integration, advertiserId: d.advertiserId ?? null };
    case 'creatives':
      return { format: d.format, advertiserId: d.advertiserId ?? null, approval: d.approval };
    case 'campaigns':
      return { advertiserId: d.advertiserId ?? null, startDate: d.startDate, endDate: d.endDate ?? null };
    case 'applists':
      return { appCount: Array.isArray(d.items) ? d.items.length : 0 };
    case 'publists':
      return { pubCount: Array.isArray(d.items) ? d.items.length : 0 };
    case 'crelists':
      return { creCount: Array.isArray(d.items) ? d.items.length : 0 };
    case 'deals':
      return { dealId: d.dealId };
    case 'ivts':
      return { stage: d.stage, vendor: d.vendor };
    case 'tooltips':
      return { key: d.key, text: d.text };
    default:
      return {};
  }
}
