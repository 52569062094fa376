import { z } from 'zod';
import { name, Status } from '../entities/common.js';
import { emptyTargetingRules, TargetingRules } from '../entities/targeting.js';
import { storedRowParser } from './storedRow.js';

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
export type Targeting = z.infer<typeof TargetingInput>;

export const parseTargetingRow = storedRowParser('targetings', TargetingInput);
export type TargetingRow = NonNullable<ReturnType<typeof parseTargetingRow>>;

/** What the shared list carries besides id, name, uid and status. */
export const targetingListExtras = (_t: Record<string, unknown>): Record<string, unknown> => ({});
