import { z } from 'zod';
import { name, Status } from './common.js';

/** Help text per field, shown as a (?) beside that field everywhere it appears. */
export const TooltipInput = z.object({
  /** `<resource>.<field>`, e.g. `channels.floorCpm`. */
  key: z.string().trim().min(3, 'is required').max(128).regex(/^[a-zA-Z]+\.[a-zA-Z0-9.]+$/, 'must look like resource.field'),
  text: z.string().trim().min(1, 'is required').max(1000, 'must be at most 1000 characters'),
});
export type TooltipInput = z.input<typeof TooltipInput>;

export const SDK_PLATFORMS = ['ios', 'android', 'roku', 'tvos', 'androidtv', 'firetv', 'tizen', 'webos'] as const;

/** An app of the in-app SDK; the app key (the row's uid) is what the developer pastes into the SDK. */
export const SdkAppInput = z.object({
  name,
  status: Status.default(1),
  bundle: z
    .string({ error: 'is required' })
    .trim()
    .min(1, 'is required')
    .max(255)
    .regex(/^([A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)+|\d{5,12})$/, 'must be a bundle id (com.example.app) or store id'),
  platform: z.enum(SDK_PLATFORMS),
  storeUrl: z.string().trim().max(2048).default('').refine((v) => v === '' || /^https?:\/\/\S+$/i.test(v), 'must be an http(s) URL'),
});
export type SdkAppInput = z.input<typeof SdkAppInput>;
