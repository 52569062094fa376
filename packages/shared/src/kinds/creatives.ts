import { z } from 'zod';
import { AD_FORMATS, domainName, httpUrl, name, optionalId, Status, wholeBetween } from '../entities/common.js';
import { unknownCodes } from '../entities/targeting.js';
import { isIabCategory } from '../reference/iabCategories.js';
import { storedRowParser } from './storedRow.js';
import { defineKind, advertiserRef } from './kindDef.js';

/**
 * Creatives (DSP mode): the ads campaigns serve, video (own media files or a VAST wrapper) or
 * display (an image or HTML). Only an approved creative serves. Advertiser domains and IAB
 * categories are lists, as OpenRTB bids carry them (`adomain`, `cat`).
 */
export const VIDEO_MIMES = [
  'video/mp4',
  'video/webm',
  'video/ogg',
  'application/x-mpegURL',
  'application/dash+xml',
  'video/3gpp',
] as const;

const MediaFile = z.object({
  url: httpUrl,
  mime: z.enum(VIDEO_MIMES),
  duration: wholeBetween(1, 600, 'seconds'),
  width: wholeBetween(1, 7680, 'pixels'),
  height: wholeBetween(1, 4320, 'pixels'),
  bitrate: wholeBetween(0, 100_000, 'kbps').default(0),
});

export const APPROVAL = ['pending', 'approved', 'rejected'] as const;
export type Approval = (typeof APPROVAL)[number];

/** A list of at most `max` entries, each kept once. */
export const uniqueList = <T extends z.ZodType<string>>(item: T, max: number) =>
  z
    .array(item)
    .max(max, `must hold at most ${max} entries`)
    .default([])
    .transform((v) => [...new Set(v)]);

/** An advertiser's domain (`adomain` in OpenRTB). */
export const advertiserDomain = domainName.refine((v) => v !== '', 'must be a domain such as example.com');

export const CreativeInput = z
  .object({
    name,
    status: Status.default(1),
    advertiserId: optionalId,
    format: z.enum(AD_FORMATS).default('video'),
    /** video: our own media files, or a third-party VAST URL (wrapper). */
    videoSource: z.enum(['media', 'vast']).default('media'),
    mediaFiles: z.array(MediaFile).max(20).default([]),
    vastUrl: z.string().trim().max(4096, 'must be at most 4096 characters').default(''),
    duration: wholeBetween(0, 600, 'seconds').default(0),
    /**
     * A video with our own media files may be skippable: the player offers a Skip button after this
     * many seconds (VAST 3.0+ skipoffset; OpenRTB creative attribute 16). 0: not skippable. A
     * third-party VAST says so itself.
     */
    skipAfter: wholeBetween(0, 600, 'seconds').default(0),
    /** display: an image URL or HTML markup. */
    displayType: z.enum(['image', 'html']).default('image'),
    imageUrl: z.string().trim().max(2048, 'must be at most 2048 characters').default(''),
    html: z.string().max(100_000, 'must be at most 100000 characters').default(''),
    width: wholeBetween(0, 7680, 'pixels').default(0),
    height: wholeBetween(0, 4320, 'pixels').default(0),
    clickUrl: z.string().trim().max(2048, 'must be at most 2048 characters').default(''),
    /** Advertiser domains, sent as `adomain` in bids. */
    adomain: uniqueList(advertiserDomain, 20),
    /** IAB content categories (IAB 1.0 ids such as IAB2-1), sent as `cat` in bids. */
    iabCategories: uniqueList(z.string().trim().max(16), 20),
    approval: z.enum(APPROVAL).default('pending'),
  })
  .superRefine((c, ctx) => {
    const url = (v: string) => /^https?:\/\/\S+$/i.test(v);
    if (c.format === 'video' && c.videoSource === 'media' && c.mediaFiles.length === 0)
      ctx.addIssue({ code: 'custom', path: ['mediaFiles'], message: 'must hold at least one media file' });
    // the ad's length as its VAST states it (the duration given, else its files'), and its shortest file
    const shortest = Math.min(...c.mediaFiles.map((m) => m.duration), c.duration > 0 ? c.duration : Infinity);
    if (
      c.format === 'video' &&
      c.videoSource === 'media' &&
      c.skipAfter > 0 &&
      c.mediaFiles.length &&
      c.skipAfter >= shortest
    )
      ctx.addIssue({
        code: 'custom',
        path: ['skipAfter'],
        message: `must be shorter than the ad (it lasts ${shortest} s)`,
      });
    if (c.format === 'video' && c.videoSource === 'vast' && !url(c.vastUrl))
      ctx.addIssue({ code: 'custom', path: ['vastUrl'], message: 'must be an http(s) VAST URL' });
    if (c.format === 'display' && c.displayType === 'image' && !url(c.imageUrl))
      ctx.addIssue({ code: 'custom', path: ['imageUrl'], message: 'must be an http(s) image URL' });
    if (c.format === 'display' && c.displayType === 'html' && !c.html.trim())
      ctx.addIssue({ code: 'custom', path: ['html'], message: 'is required' });
    if (c.format === 'display' && (c.width < 1 || c.height < 1))
      ctx.addIssue({ code: 'custom', path: ['width'], message: 'width and height are required for display' });
    if (c.clickUrl && !url(c.clickUrl))
      ctx.addIssue({ code: 'custom', path: ['clickUrl'], message: 'must be an http(s) URL' });
    const badCategories = unknownCodes(c.iabCategories, isIabCategory, 'IAB category');
    if (badCategories) ctx.addIssue({ code: 'custom', path: ['iabCategories'], message: badCategories });
  });
export type CreativeInput = z.input<typeof CreativeInput>;

export const parseCreativeRow = storedRowParser('creatives', CreativeInput);
export type CreativeRow = NonNullable<ReturnType<typeof parseCreativeRow>>;

const creativeListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({
  format: d.format,
  advertiserId: d.advertiserId ?? null,
  approval: d.approval,
});

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const creativesKind = defineKind({
  kind: 'creatives',
  label: 'Creative',
  plural: 'Creatives',
  route: '/creatives',
  api: '/api/demand/creatives',
  mode: 'dsp',
  storage: 'entity',
  audience: 'tenant',
  uid: true,
  schema: CreativeInput,
  refs: [advertiserRef],
  assignedTo: { adv: 'advertiserId' },
  sortable: ['format', 'approval'],
  listExtras: creativeListExtras,
  parseRow: parseCreativeRow,
});
