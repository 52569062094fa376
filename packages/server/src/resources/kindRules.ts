import { type FieldError, RESOURCES, type ResourceKind, validatePartnerParams } from '@adplane/shared';
import { type EntityRow } from '../store/entities.js';

/**
 * Rules of one kind that its zod schema cannot state alone: the partner catalogue's parameter
 * schemas. (Reference-data codes are checked by the kinds' schemas themselves.) Each returns field errors (empty when the value is fine).
 */
type Check = (value: Record<string, unknown>) => FieldError[];

export const KIND_CHECKS: Partial<Record<ResourceKind, Check>> = {
  tags: (v) => {
    if (v.integration !== 'PreBid') return [];
    const result = validatePartnerParams(String(v.partner), v.partnerParams ?? {});
    if (result.ok) {
      v.partnerParams = result.value as Record<string, unknown>;
      return [];
    }
    return result.errors.map((e) => ({ field: e.field.startsWith('partner') ? e.field : `partnerParams.${e.field}`, message: e.message }));
  },
};

/** What a kind's shared list carries besides id, name, uid and status: declared in the kind's home. */
export function listExtras(kind: ResourceKind, row: EntityRow): Record<string, unknown> {
  return RESOURCES[kind].listExtras?.(row.data) ?? {};
}
