import { z } from 'zod';
import { storedRowParser } from './storedRow.js';

/** Help text per field, shown as a (?) beside that field everywhere it appears. */
export const TooltipInput = z.object({
  /** `<resource>.<field>`, e.g. `channels.floorCpm`. */
  key: z.string().trim().min(3, 'is required').max(128).regex(/^[a-zA-Z]+\.[a-zA-Z0-9.]+$/, 'must look like resource.field'),
  text: z.string().trim().min(1, 'is required').max(1000, 'must be at most 1000 characters'),
});
export type TooltipInput = z.input<typeof TooltipInput>;

/** A tooltip's name column is its key: the generic engine keeps one live tooltip per key. */
export const parseTooltipRow = storedRowParser('tooltips', TooltipInput);
export type TooltipRow = NonNullable<ReturnType<typeof parseTooltipRow>>;

export const tooltipListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({ key: d.key, text: d.text });
