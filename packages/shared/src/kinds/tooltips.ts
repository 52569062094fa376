import { z } from 'zod';
import { storedRowParser } from './storedRow.js';
import { defineKind } from './kindDef.js';

/** Help text per field, shown as a (?) beside that field everywhere it appears. */
const TooltipInput = z.object({
  /** `<resource>.<field>`, e.g. `channels.floorCpm`. */
  key: z
    .string()
    .trim()
    .min(3, 'is required')
    .max(128)
    .regex(/^[a-zA-Z]+\.[a-zA-Z0-9.]+$/, 'must look like resource.field'),
  text: z.string().trim().min(1, 'is required').max(1000, 'must be at most 1000 characters'),
});
type TooltipInput = z.input<typeof TooltipInput>;

/** A tooltip's name column is its key: the generic engine keeps one live tooltip per key. */
const parseTooltipRow = storedRowParser('tooltips', TooltipInput);

const tooltipListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({ key: d.key, text: d.text });

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const tooltipsKind = defineKind({
  kind: 'tooltips',
  label: 'Tooltip',
  plural: 'Tooltips',
  route: '/tooltips',
  api: '/api/tooltips',
  mode: 'both',
  storage: 'entity',
  audience: 'admin',
  uid: false,
  schema: TooltipInput,
  refs: [],
  listExtras: tooltipListExtras,
  nameFrom: 'key',
  // A field shows one help text: a second live tooltip for the same key would never be seen.
  unique: [{ field: 'key', message: (id) => `already has a tooltip (#${id}): edit that one` }],
  parseRow: parseTooltipRow,
});
