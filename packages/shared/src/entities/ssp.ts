import { z } from 'zod';
import { domainName, httpUrl, id, ids, micros, name, optionalId, optionalText, percent, positiveInt, Status } from './common.js';

/** SSP mode: what a tenant sells (channels handed to publishers) and the demand tags it calls. */

export const INTEGRATIONS = ['VAST', 'RTB', 'PreBid'] as const;
export type Integration = (typeof INTEGRATIONS)[number];
export const ENVIRONMENTS = ['ctv', 'app', 'web'] as const;
export const AD_FORMATS = ['video', 'display'] as const;

export const Payout = z
  .object({
    /** revshare: the publisher gets `value` percent of revenue; cpm: a fixed CPM in micro-dollars. */
    type: z.enum(['revshare', 'cpm']),
    value: z.number().min(0, 'must not be negative'),
  })
  .refine((p) => p.type !== 'revshare' || p.value <= 100, { message: 'must be at most 100 percent', path: ['value'] })
  .refine((p) => p.type !== 'cpm' || Number.isInteger(p.value), { message: 'must be a whole number of micro-dollars', path: ['value'] });

export const DEMAND_MODES = ['priority', 'auction'] as const;

export const ChannelInput = z.object({
  name,
  status: Status.default(1),
  subpublisherId: optionalId,
  integration: z.enum(INTEGRATIONS).default('VAST'),
  environment: z.enum(ENVIRONMENTS).default('web'),
  format: z.enum(AD_FORMATS).default('video'),
  domain: domainName.default(''),
  floorCpm: micros.default(0),
  payout: Payout.default({ type: 'revshare', value: 70 }),
  targetingId: optionalId,
  demandMode: z.enum(DEMAND_MODES).default('auction'),
  /** Demand tags this channel may call; lower priority numbers are called first in priority mode. */
  demand: z
    .array(z.object({ tagId: id, priority: z.number().int().min(1).max(100).default(1) }))
    .max(200, 'must hold at most 200 tags')
    .default([])
    .refine((d) => new Set(d.map((x) => x.tagId)).size === d.length, 'lists a tag twice'),
  ivtIds: ids,
  blockIVT: z.boolean().default(false),
});
export type ChannelInput = z.input<typeof ChannelInput>;
export type Channel = z.infer<typeof ChannelInput>;

export const TAG_PRICING = ['cpm', 'revshare'] as const;

export const TagInput = z
  .object({
    name,
    status: Status.default(1),
    integration: z.enum(INTEGRATIONS).default('VAST'),
    /** VAST: a third-party VAST URL, with macros such as {{width}}. */
    vastUrl: z.string().trim().max(4096).default(''),
    /** RTB: an OpenRTB 2.6 endpoint. */
    endpoint: z.string().trim().max(2048).default(''),
    /** PreBid: a partner of the catalogue and its parameters. */
    partner: z.string().trim().max(64).default(''),
    partnerParams: z.record(z.string(), z.unknown()).default({}),
    pricing: z.enum(TAG_PRICING).default('cpm'),
    /** CPM in micro-dollars, or revenue share percent. */
    price: z.number().min(0, 'must not be negative').default(0),
    floorCpm: micros.default(0),
    timeoutMs: z.number().int().min(50, 'must be at least 50 ms').max(10_000, 'must be at most 10000 ms').default(1000),
    qpsLimit: positiveInt().default(0),
    dailyRequestCap: positiveInt().default(0),
    dailyImpCap: positiveInt().default(0),
    priority: z.number().int().min(1, 'must be between 1 and 100').max(100, 'must be between 1 and 100').default(5),
    targetingId: optionalId,
    advertiserId: optionalId,
  })
  .superRefine((t, ctx) => {
    if (t.integration === 'VAST' && !/^https?:\/\/\S+$/i.test(t.vastUrl))
      ctx.addIssue({ code: 'custom', path: ['vastUrl'], message: 'must be an http(s) VAST URL' });
    if (t.integration === 'RTB' && !/^https?:\/\/\S+$/i.test(t.endpoint))
      ctx.addIssue({ code: 'custom', path: ['endpoint'], message: 'must be an http(s) OpenRTB endpoint' });
    if (t.integration === 'PreBid' && !t.partner) ctx.addIssue({ code: 'custom', path: ['partner'], message: 'is required' });
    if (t.pricing === 'revshare' && t.price > 100) ctx.addIssue({ code: 'custom', path: ['price'], message: 'must be at most 100 percent' });
    if (t.pricing === 'cpm' && !Number.isInteger(t.price)) ctx.addIssue({ code: 'custom', path: ['price'], message: 'must be a whole number of micro-dollars' });
  });
export type TagInput = z.input<typeof TagInput>;
export type DemandTag = z.infer<typeof TagInput>;

export { httpUrl, percent, optionalText };
