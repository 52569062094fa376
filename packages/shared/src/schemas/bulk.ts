/**
 * Bulk actions on the selected rows of a list (POST {api}/bulk): all or nothing, each row checked as
 * its own call would be, one activity entry per changed row. A refused row answers 4xx naming it
 * (`field: "ids.<index>"`) and why; nothing is written then.
 */
import { z } from 'zod';
import { type ResourceDef } from '../kinds/kindDef.js';

export const BULK_ACTIONS = ['pause', 'activate', 'archive', 'restore', 'setTargeting'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
export const BULK_MAX_IDS = 500;

export const BULK_ACTION_LABELS: Record<BulkAction, string> = {
  pause: 'Pause',
  activate: 'Activate',
  archive: 'Archive',
  restore: 'Restore',
  setTargeting: 'Set targeting',
};

export const BulkInput = z
  .object({
    action: z.enum(BULK_ACTIONS, { error: () => `must be one of ${BULK_ACTIONS.join(', ')}` }),
    ids: z
      .array(z.number({ error: 'must be an id' }).int('must be an id').positive('must be an id'))
      .min(1, 'select at least one row')
      .max(BULK_MAX_IDS, `at most ${BULK_MAX_IDS} rows at once`)
      .refine((ids) => new Set(ids).size === ids.length, 'names a row twice'),
    /** setTargeting: the targeting every row gets; null takes it off. */
    targetingId: z.number({ error: 'must be a targeting id or null' }).int().positive().nullable().optional(),
  })
  .superRefine((v, ctx) => {
    if (v.action === 'setTargeting' && v.targetingId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['targetingId'], message: 'is required: the targeting to set (null takes it off)' });
    }
  });
export type BulkInput = z.input<typeof BulkInput>;

export interface BulkAnswer {
  action: BulkAction;
  /** Rows the action changed (one activity entry each). */
  changed: number[];
  /** Rows already in that state: nothing written. */
  unchanged: number[];
}

/** The bulk actions a kind's list offers: tenant rows only; a targeting where the kind has one. */
export function bulkActionsOf(def: ResourceDef): BulkAction[] {
  if (def.audience !== 'tenant') return [];
  const actions: BulkAction[] = ['pause', 'activate', 'archive', 'restore'];
  if (def.refs.some((r) => r.field === 'targetingId' && r.kind === 'targetings')) actions.push('setTargeting');
  return actions;
}
