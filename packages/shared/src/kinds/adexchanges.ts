import { z } from 'zod';
import { countLimit, httpUrl, name, optionalId, optionalText, percent, Status } from '../entities/common.js';
import { storedRowParser } from './storedRow.js';
import { defineKind, targetingRef } from './kindDef.js';

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

const adExchangeListExtras = (_d: Record<string, unknown>): Record<string, unknown> => ({});

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const adexchangesKind = defineKind({
  kind: 'adexchanges',
  label: 'Ad Exchange',
  plural: 'Ad Exchanges',
  route: '/adexchanges',
  api: '/api/demand/adexchanges',
  mode: 'dsp',
  storage: 'entity',
  audience: 'tenant',
  uid: false,
  schema: AdExchangeInput,
  refs: [targetingRef],
  sortable: ['tmaxMs', 'qpsLimit'],
  unlimitedSortable: ['qpsLimit'],
  listExtras: adExchangeListExtras,
  parseRow: parseAdExchangeRow,
});
