import { z } from 'zod';
import { countLimit, httpUrl, name, optionalId, optionalText, percent, Status } from '../entities/common.js';
import { storedRowParser } from './storedRow.js';

/** Ad exchanges (DSP mode): exchanges we send OpenRTB bid requests to, within their tmax and QPS. */
export const AdExchangeInput = z.object({
  name,
  status: Status.default(1),
  endpoint: httpUrl,
  tmaxMs: z.number().int().min(50, 'must be at least 50 ms').max(5000, 'must be at most 5000 ms').default(300),
  qpsLimit: countLimit('must be a whole number of requests per second'),
  seat: optionalText(64),
  marginPercent: percent.default(20),
  targetingId: optionalId,
});
export type AdExchangeInput = z.input<typeof AdExchangeInput>;

export const parseAdExchangeRow = storedRowParser('adexchanges', AdExchangeInput);
export type AdExchangeRow = NonNullable<ReturnType<typeof parseAdExchangeRow>>;

export const adExchangeListExtras = (_d: Record<string, unknown>): Record<string, unknown> => ({});
