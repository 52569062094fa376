import { z } from 'zod';
import { name, Status } from '../entities/common.js';
import { storedRowParser } from './storedRow.js';
import { defineKind } from './kindDef.js';

/** In-app SDK apps: the app key (the row's uid) is what the developer pastes into the SDK. */
export const SDK_PLATFORMS = ['ios', 'android', 'roku', 'tvos', 'androidtv', 'firetv', 'tizen', 'webos'] as const;

/** An app of the in-app SDK; the app key (the row's uid) is what the developer pastes into the SDK. */
const SdkAppInput = z.object({
  name,
  status: Status.default(1),
  bundle: z
    .string({ error: 'is required' })
    .trim()
    .min(1, 'is required')
    .max(255, 'must be at most 255 characters')
    .regex(
      /^([A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)+|\d{5,12})$/,
      'must be a bundle id (com.example.app) or store id',
    ),
  platform: z.enum(SDK_PLATFORMS),
  storeUrl: z
    .string()
    .trim()
    .max(2048, 'must be at most 2048 characters')
    .default('')
    .refine((v) => v === '' || /^https?:\/\/\S+$/i.test(v), 'must be an http(s) URL'),
});
type SdkAppInput = z.input<typeof SdkAppInput>;

export const parseSdkAppRow = storedRowParser('sdkapps', SdkAppInput);

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const sdkappsKind = defineKind({
  kind: 'sdkapps',
  label: 'SDK App',
  plural: 'SDK Apps',
  route: '/sdk',
  api: '/api/sdk/apps',
  mode: 'both',
  storage: 'entity',
  audience: 'sdk',
  uid: true,
  schema: SdkAppInput,
  refs: [],
  parseRow: parseSdkAppRow,
});
