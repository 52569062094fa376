/**
 * Bulk actions on the selected rows of a list (POST {api}/bulk): all or nothing, each row checked as
 * its own call would be, one activity entry per changed row. A refused row answers 4xx naming it
 * (`field: "ids.<index>"`) and why; nothing is written then.
 */
import { z } from 'zod';
import { type ResourceDef, type ResourceKind } from '../kinds/kindDef.js';
import { LIST_ITEM_RULES, type ListKind } from '../kinds/lists.js';

const BULK_ACTIONS = ['pause', 'activate', 'archive', 'restore', 'setTargeting', 'addToList'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
const BULK_MAX_IDS = 500;

export const BULK_ACTION_LABELS: Record<BulkAction, string> = {
  pause: 'Pause',
  activate: 'Activate',
  archive: 'Archive',
  restore: 'Restore',
  setTargeting: 'Set targeting',
  addToList: 'Add to list',
};

/** Rows a list holds (lists.ts: a creative list holds creative ids), by the kind of the rows: the list kind their bulk "add to list" fills. */
export const LIST_OF_ROWS: Partial<Record<ResourceKind, ListKind>> = { creatives: 'crelists' };
const BULK_MAX_LISTS = 20;

const listIds = z
  .array(z.number({ error: 'must be a list id' }).int('must be a list id').positive('must be a list id'), {
    error: 'must be a list of list ids',
  })
  .min(1, 'pick at least one list')
  .max(BULK_MAX_LISTS, `at most ${BULK_MAX_LISTS} lists at once`)
  .refine((ids) => new Set(ids).size === ids.length, 'names a list twice');

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
    /** addToList: the lists (of the kind that holds these rows) every row is added to. */
    listIds: listIds.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.action === 'addToList' && v.listIds === undefined)
      ctx.addIssue({ code: 'custom', path: ['listIds'], message: 'is required: the lists to add the rows to' });
    if (v.action === 'setTargeting' && v.targetingId === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['targetingId'],
        message: 'is required: the targeting to set (null takes it off)',
      });
    }
  });
export type BulkInput = z.input<typeof BulkInput>;

export interface BulkAnswer {
  action: BulkAction;
  /** Rows the action changed (one activity entry each). */
  changed: number[];
  /** Rows already in that state: nothing written. */
  unchanged: number[];
  /** addToList: each list named, with how many entries it gained (one activity entry per list that gained any). */
  lists?: ListAddition[];
}

export interface ListAddition {
  id: number;
  name: string;
  added: number;
  /** Entries in the list after the change. */
  total: number;
}

/**
 * Values seen in traffic (app bundles, domains, publisher ids) added to lists of one kind
 * (POST {list api}/add, from the observed-inventory pages): all or nothing, each value checked by
 * the list's own rule (`items.<index>`), one activity entry per list that gained any.
 */
export const ListAddInput = (kind: ListKind) =>
  z.object({
    listIds,
    items: z
      .array(z.string({ error: 'must be text' }).trim().min(1, 'is empty').max(255, 'must be at most 255 characters'), {
        error: 'must be a list of values',
      })
      .min(1, 'select at least one value')
      .max(BULK_MAX_IDS, `at most ${BULK_MAX_IDS} values at once`)
      .superRefine((items, ctx) => {
        items.forEach((v, i) => {
          const reason = LIST_ITEM_RULES[kind].check(v);
          if (reason) ctx.addIssue({ code: 'custom', path: [i], message: `${v} ${reason}` });
        });
      }),
  });
export type ListAddInput = z.input<ReturnType<typeof ListAddInput>>;

export interface ListAddAnswer {
  lists: ListAddition[];
}

/** The bulk actions a kind's list offers: tenant rows only; a targeting where the kind has one. */
export function bulkActionsOf(def: ResourceDef): BulkAction[] {
  if (def.audience !== 'tenant') return [];
  const actions: BulkAction[] = ['pause', 'activate', 'archive', 'restore'];
  if (def.refs.some((r) => r.field === 'targetingId' && r.kind === 'targetings')) actions.push('setTargeting');
  if (LIST_OF_ROWS[def.kind]) actions.push('addToList');
  return actions;
}
