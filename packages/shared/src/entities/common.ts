import { z } from 'zod';
import { ENTITY_NAME_MAX, PAGE_SIZES } from '../constants.js';

export const Status = z.union([z.literal(0), z.literal(1)], { error: 'must be 0 (paused) or 1 (active)' });

export const name = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'is required')
  .max(ENTITY_NAME_MAX, `must be at most ${ENTITY_NAME_MAX} characters`);
export const optionalText = (max = 255) => z.string().trim().max(max, `must be at most ${max} characters`).default('');
export const id = z.number({ error: 'must be an id' }).int('must be an id').positive('must be an id');
export const optionalId = id.nullable().default(null);
export const ids = z
  .array(id)
  .max(1000, 'must hold at most 1000 entries')
  .default([])
  .transform((v) => [...new Set(v)]);

const microsAmount = z
  .number({ error: 'must be an amount in micro-dollars' })
  .int('must be a whole number of micro-dollars')
  .max(1e15, 'is too large');
/** Integer micro-dollars (a $2.50 CPM is 2_500_000), 0 included: a floor of 0 is no floor, a price of 0 is free. */
export const micros = microsAmount.min(0, 'must not be negative');
/** Integer micro-dollars above 0: an amount that means nothing at $0.00 (a bid of 0 never wins). */
export const positiveMicros = microsAmount.positive('must be greater than 0');
export const percent = z
  .number({ error: 'must be a percent' })
  .min(0, 'must be between 0 and 100')
  .max(100, 'must be between 0 and 100');
/** A whole number from `min` to `max` (a count, a size, seconds): a value outside is refused with the range. */
export const wholeBetween = (min: number, max: number, unit = '') => {
  const range = `must be between ${min} and ${max}${unit ? ` ${unit}` : ''}`;
  return z.number({ error: 'must be a whole number' }).int('must be a whole number').min(min, range).max(max, range);
};
const positiveInt = (label = 'must be a whole number') =>
  z.number({ error: label }).int(label).min(0, 'must not be negative');
export const isoDate = z.iso.date('must be a date YYYY-MM-DD');
export const httpUrl = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'is required')
  .max(2048, 'must be at most 2048 characters')
  .refine((v) => /^https?:\/\/[^\s]+$/i.test(v), 'must be an http(s) URL');
export const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .max(253, 'must be at most 253 characters')
  .refine(
    (v) => v === '' || /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/.test(v),
    'must be a domain such as example.com',
  );

/** How demand is called (tags) and how supply comes in (channels). */
export const INTEGRATIONS = ['VAST', 'RTB', 'PreBid'] as const;
export const ENVIRONMENTS = ['ctv', 'app', 'web'] as const;
export const AD_FORMATS = ['video', 'display'] as const;

const SORT_ORDERS = ['asc', 'desc'] as const;

/** Query of a list page: paging (10/20/50/100), sort, search and status filter on the server. */
export const ListQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce
    .number()
    .int()
    .refine((v) => (PAGE_SIZES as readonly number[]).includes(v), `must be one of ${PAGE_SIZES.join(', ')}`)
    .default(20),
  sort: z
    .string()
    .regex(/^[a-zA-Z]+$/, 'must be a column name')
    .default('id'),
  order: z.enum(SORT_ORDERS).default('desc'),
  search: z.string().trim().max(255).default(''),
  status: z.enum(['all', 'active', 'paused', 'archived']).default('all'),
});
export type ListQuery = z.infer<typeof ListQuery>;

export interface ListPage<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

/** Item of a shared list (the id-and-name lists the console's pickers and filters read): id and name, plus what the list pages need. */
export interface ListItem {
  id: number;
  name: string;
  uid?: string | null;
  status?: number;
  [extra: string]: unknown;
}

/**
 * "No limit", said in words: caps and budgets are a number or 'unlimited'. 0 is a real zero (the row
 * never serves), never a hidden "no limit".
 */
export const UNLIMITED = 'unlimited' as const;
export type Limit = number | typeof UNLIMITED;
const unlimited = z.literal(UNLIMITED, { error: `must be a number or '${UNLIMITED}'` });
/** A whole-number cap (requests, impressions, queries per second), 'unlimited' by default. */
export const countLimit = (label = 'must be a whole number') =>
  z.union([unlimited, positiveInt(label)], { error: `must be a whole number or '${UNLIMITED}'` }).default(UNLIMITED);
/** A money cap in micro-dollars (budgets), 'unlimited' by default. */
export const microsLimit = z
  .union([unlimited, micros], { error: `must be an amount in micro-dollars or '${UNLIMITED}'` })
  .default(UNLIMITED);
/** True while `used` has not reached `cap`; an 'unlimited' cap is never reached, a cap of 0 always is. */
export function underLimit(used: number, cap: Limit): boolean {
  return cap === UNLIMITED || used < cap;
}

/**
 * A price is one value whose type says its unit, never a number read through a sibling field:
 * a CPM in micro-dollars per 1000 impressions, or a share in percent of what the demand reports.
 */
export const CpmPrice = z.object({ type: z.literal('cpm'), cpm: micros });
export const RevsharePrice = z.object({ type: z.literal('revshare'), percent });
export const Price = z.discriminatedUnion('type', [CpmPrice, RevsharePrice], {
  error: "must be { type: 'cpm', cpm } or { type: 'revshare', percent }",
});
export type CpmPrice = z.infer<typeof CpmPrice>;
export type RevsharePrice = z.infer<typeof RevsharePrice>;
export type Price = z.infer<typeof Price>;
export type PriceType = 'cpm' | 'revshare';
