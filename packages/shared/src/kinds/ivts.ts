import { z } from 'zod';
import { name, Status } from '../entities/common.js';
import { storedRowParser } from './storedRow.js';
import { defineKind } from './kindDef.js';

/** '3rd Party Pixels': invalid-traffic vendors' pixels, fired before the auction or after the ad. */
const IVT_STAGES = ['prebid', 'postbid'] as const;

/**
 * Macros a pixel URL template may use; the edge fills them per request, URL-encoded.
 * `{{impression_id}}` is the impression's signed id: a vendor sends it back with its verdict to the
 * account's postback URL (`/pb/<key>?id=...&ivt=1`, docs/traffic-quality.md).
 */
export const IVT_MACROS = [
  '{{ip}}',
  '{{user_agent}}',
  '{{app_bundle}}',
  '{{domain}}',
  '{{page_url}}',
  '{{device_id}}',
  '{{channel_id}}',
  '{{tag_id}}',
  '{{cachebuster}}',
  '{{country}}',
  '{{impression_id}}',
] as const;

export const IvtInput = z.object({
  name,
  status: Status.default(1),
  vendor: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  urlTemplate: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(4096, 'must be at most 4096 characters')
    .refine((v) => /^https?:\/\/\S+$/i.test(v), 'must be an http(s) URL')
    .refine((v) => (v.match(/\{\{[^}]*\}\}/g) ?? []).every((m) => (IVT_MACROS as readonly string[]).includes(m)), {
      message: `may use only the macros ${IVT_MACROS.join(' ')}`,
    }),
  stage: z.enum(IVT_STAGES).default('postbid'),
  samplePercent: z.number().min(0, 'must be between 0 and 100').max(100, 'must be between 0 and 100').default(100),
});
export type IvtInput = z.input<typeof IvtInput>;

export const parseIvtRow = storedRowParser('ivts', IvtInput);
export type IvtRow = NonNullable<ReturnType<typeof parseIvtRow>>;

const ivtListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({ stage: d.stage, vendor: d.vendor });

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const ivtsKind = defineKind({
  kind: 'ivts',
  label: '3rd Party Pixel',
  plural: '3rd Party Pixels',
  route: '/ivts',
  api: '/api/demand/ivts',
  mode: 'both',
  storage: 'entity',
  audience: 'tenant',
  uid: false,
  schema: IvtInput,
  refs: [],
  sortable: ['vendor', 'stage'],
  listExtras: ivtListExtras,
  parseRow: parseIvtRow,
});
