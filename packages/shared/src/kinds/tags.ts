import { z } from 'zod';
import { countLimit, INTEGRATIONS, micros, name, optionalId, Price, Status } from '../entities/common.js';
import { validatePartnerParams } from '../reference/partners/validate.js';
import { demandSyncUrl } from '../edge/userSyncUrl.js';
import { storedRowParser } from './storedRow.js';
import { defineKind, advertiserRef, targetingRef } from './kindDef.js';

/**
 * Demand tags: the VAST, OpenRTB and Prebid demand a tenant's channels call, at a price, with caps.
 */

/** A CPM tag earns `cpm` per 1000 impressions; a revshare tag earns `percent` of the price the demand reports. */
export const TagPrice = Price;
export type TagPrice = z.infer<typeof TagPrice>;
const DEFAULT_TAG_PRICE: TagPrice = { type: 'cpm', cpm: 0 };

const httpLike = (v: string) => /^https?:\/\/\S+$/i.test(v);

export const TagInput = z
  .object({
    name,
    status: Status.default(1),
    integration: z.enum(INTEGRATIONS).default('VAST'),
    /** VAST: a third-party VAST URL, with macros such as {{width}}. */
    vastUrl: z.string().trim().max(4096, 'must be at most 4096 characters').default(''),
    /** RTB: an OpenRTB 2.6 endpoint. */
    endpoint: z.string().trim().max(2048, 'must be at most 2048 characters').default(''),
    /** PreBid: a partner of the catalogue and its parameters. */
    partner: z.string().trim().max(64, 'must be at most 64 characters').default(''),
    partnerParams: z.record(z.string(), z.unknown()).default({}),
    price: TagPrice.default(DEFAULT_TAG_PRICE),
    floorCpm: micros.default(0),
    timeoutMs: z.number().int().min(50, 'must be at least 50 ms').max(10_000, 'must be at most 10000 ms').default(1000),
    qpsLimit: countLimit('must be a whole number of requests per second'),
    dailyRequestCap: countLimit('must be a whole number of requests'),
    dailyImpCap: countLimit('must be a whole number of impressions'),
    priority: z.number().int().min(1, 'must be between 1 and 100').max(100, 'must be between 1 and 100').default(5),
    targetingId: optionalId,
    advertiserId: optionalId,
    /** RTB: the demand partner's user-sync URL (edge/userSyncUrl.ts); kept only on an RTB tag. */
    userSyncUrl: demandSyncUrl,
  })
  .superRefine((t, ctx) => {
    if (t.integration === 'VAST' && !httpLike(t.vastUrl))
      ctx.addIssue({ code: 'custom', path: ['vastUrl'], message: 'must be an http(s) VAST URL' });
    if (t.integration === 'RTB' && !httpLike(t.endpoint))
      ctx.addIssue({ code: 'custom', path: ['endpoint'], message: 'must be an http(s) OpenRTB endpoint' });
    if (t.integration === 'PreBid' && !t.partner)
      ctx.addIssue({ code: 'custom', path: ['partner'], message: 'is required' });
  })
  .transform((t, ctx) => {
    // A Prebid partner's parameters follow the catalogue's schema for that partner (typed: an
    // integer id must be a number); the value kept is the schema's output.
    if (t.integration !== 'PreBid') return t.integration === 'RTB' || !t.userSyncUrl ? t : { ...t, userSyncUrl: '' };
    const result = validatePartnerParams(t.partner, t.partnerParams);
    if (result.ok) return { ...t, userSyncUrl: '', partnerParams: result.value as Record<string, unknown> };
    for (const e of result.errors) {
      const path = e.field.startsWith('partner')
        ? e.field.split('.')
        : ['partnerParams', ...(e.field ? e.field.split('.') : [])];
      ctx.addIssue({ code: 'custom', path, message: e.message });
    }
    return z.NEVER;
  });
export type TagInput = z.input<typeof TagInput>;

export const parseDemandTagRow = storedRowParser('tags', TagInput);
export type DemandTagRow = NonNullable<ReturnType<typeof parseDemandTagRow>>;

/** What the shared list carries besides id, name, uid and status. */
const tagListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({
  integration: d.integration,
  advertiserId: d.advertiserId ?? null,
});

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const tagsKind = defineKind({
  kind: 'tags',
  label: 'Tag',
  plural: 'Tags',
  route: '/tags',
  api: '/api/demand/tags',
  mode: 'ssp',
  storage: 'entity',
  audience: 'tenant',
  uid: true,
  schema: TagInput,
  refs: [targetingRef, advertiserRef],
  assignedTo: { adv: 'advertiserId' },
  sortable: ['integration', 'priority'],
  listExtras: tagListExtras,
  namesApi: '/api/demand/tagnames/list',
  parseRow: parseDemandTagRow,
});
