import { z } from 'zod';
import { AD_FORMATS, countLimit, name, optionalId, percent, Status } from '../entities/common.js';
import { userSyncUrl } from '../edge/userSyncUrl.js';
import { storedRowParser } from './storedRow.js';
import { defineKind, targetingRef } from './kindDef.js';

/** Suppliers (DSP mode): SSPs and publishers that send us OpenRTB bid requests at `/rtb/bid/<uid>` (edge/paths.ts). */
export const SupplierInput = z.object({
  name,
  status: Status.default(1),
  qpsLimit: countLimit('must be a whole number of requests per second'),
  marginPercent: percent.default(20),
  formats: z.array(z.enum(AD_FORMATS)).min(1, 'must hold at least one format').default(['video']),
  targetingId: optionalId,
  /** The supplier's user-sync URL (edge/userSyncUrl.ts): where `/rtb/sync/<uid>` sends a browser with adplane's id. */
  userSyncUrl,
});
export type SupplierInput = z.input<typeof SupplierInput>;

export const parseSupplierRow = storedRowParser('sups', SupplierInput);
export type SupplierRow = NonNullable<ReturnType<typeof parseSupplierRow>>;

const supplierListExtras = (_d: Record<string, unknown>): Record<string, unknown> => ({});

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const supsKind = defineKind({
  kind: 'sups',
  label: 'Supplier',
  plural: 'Suppliers',
  route: '/suppliers',
  api: '/api/demand/sups',
  mode: 'dsp',
  storage: 'entity',
  audience: 'tenant',
  uid: true,
  schema: SupplierInput,
  refs: [targetingRef],
  sortable: ['qpsLimit', 'marginPercent'],
  unlimitedSortable: ['qpsLimit'],
  listExtras: supplierListExtras,
  parseRow: parseSupplierRow,
});
