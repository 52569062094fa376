import { z } from 'zod';
import { name, Status } from '../entities/common.js';
import { emptyTargetingRules, TargetingRules } from '../entities/targeting.js';
import { storedRowParser } from './storedRow.js';
import { defineKind, ruleLists } from './kindDef.js';

/**
 * Targetings: reusable targeting profiles that channels, tags, suppliers, ad exchanges and campaigns
 * point to. The rules themselves (filters, geo rule, player sizes, day-parting) live in
 * entities/targeting.ts, shared with what the edge compiles.
 */
export const TargetingInput = z.object({
  name,
  status: Status.default(1),
  rules: TargetingRules.default(emptyTargetingRules()),
});
export type TargetingInput = z.input<typeof TargetingInput>;

export const parseTargetingRow = storedRowParser('targetings', TargetingInput);
export type TargetingRow = NonNullable<ReturnType<typeof parseTargetingRow>>;

/** What the shared list carries besides id, name, uid and status. */
const targetingListExtras = (_t: Record<string, unknown>): Record<string, unknown> => ({});

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const targetingsKind = defineKind({
  kind: 'targetings',
  label: 'Targeting',
  plural: 'Targetings',
  route: '/targetings',
  api: '/api/demand/targetings',
  mode: 'both',
  storage: 'entity',
  audience: 'tenant',
  uid: false,
  schema: TargetingInput,
  refs: [
    { kind: 'applists', field: 'rules.appLists', ids: ruleLists('appLists') },
    { kind: 'publists', field: 'rules.pubLists', ids: ruleLists('pubLists') },
    { kind: 'crelists', field: 'rules.creLists', ids: ruleLists('creLists') },
    { kind: 'iplists', field: 'rules.ipLists', ids: ruleLists('ipLists') },
  ],
  listExtras: targetingListExtras,
  parseRow: parseTargetingRow,
});
