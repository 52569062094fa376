import { z } from 'zod';
import { AD_FORMATS } from './ssp.js';
import { domainName, httpUrl, ids, isoDate, micros, name, optionalId, optionalText, percent, positiveInt, Status } from './common.js';

/** DSP mode: what a tenant buys (campaigns and creatives) and where (suppliers, ad exchanges, deals). */

export const SupplierInput = z.object({
  name,
  status: Status.default(1),
  qpsLimit: positiveInt().default(0),
  marginPercent: percent.default(20),
  formats: z.array(z.enum(AD_FORMATS)).min(1, 'must hold at least one format').default(['video']),
  targetingId: optionalId,
});
export type SupplierInput = z.input<typeof SupplierInput>;

export const PACING = ['even', 'asap'] as const;

export const FrequencyCap = z
  .object({ count: z.number().int().min(1, 'must be at least 1'), periodHours: z.number().int().min(1).max(720) })
  .nullable()
  .default(null);

export const CampaignInput = z
  .object({
    name,
    status: Status.default(1),
    advertiserId: optionalId,
    startDate: isoDate,
    endDate: isoDate.nullable().default(null),
    totalBudget: micros.default(0),
    dailyBudget: micros.default(0),
    pacing: z.enum(PACING).default('even'),
    bidCpm: micros,
    frequencyCap: FrequencyCap,
    targetingId: optionalId,
    creativeIds: ids,
    dealIds: ids,
    supplierIds: ids,
    adExchangeIds: ids,
  })
  .superRefine((c, ctx) => {
    if (c.endDate && c.endDate < c.startDate) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before the start date' });
    if (c.totalBudget > 0 && c.dailyBudget > c.totalBudget)
      ctx.addIssue({ code: 'custom', path: ['dailyBudget'], message: 'must not exceed the total budget' });
  });
export type CampaignInput = z.input<typeof CampaignInput>;

export const VIDEO_MIMES = ['video/mp4', 'video/webm', 'video/ogg', 'application/x-mpegURL', 'application/dash+xml', 'video/3gpp'] as const;

export const MediaFile = z.object({
  url: httpUrl,
  mime: z.enum(VIDEO_MIMES),
  duration: z.number().int().min(1, 'must be at least 1 second').max(600),
  width: z.number().int().min(1).max(7680),
  height: z.number().int().min(1).max(4320),
  bitrate: z.number().int().min(0).max(100_000).default(0),
});

export const APPROVAL = ['pending', 'approved', 'rejected'] as const;

export const CreativeInput = z
  .object({
    name,
    status: Status.default(1),
    advertiserId: optionalId,
    format: z.enum(AD_FORMATS).default('video'),
    /** video: our own media files, or a third-party VAST URL (wrapper). */
    videoSource: z.enum(['media', 'vast']).default('media'),
    mediaFiles: z.array(MediaFile).max(20).default([]),
    vastUrl: z.string().trim().max(4096).default(''),
    duration: z.number().int().min(0).max(600).default(0),
    /** display: an image URL or HTML markup. */
    displayType: z.enum(['image', 'html']).default('image'),
    imageUrl: z.string().trim().max(2048).default(''),
    html: z.string().max(100_000).default(''),
    width: z.number().int().min(0).max(7680).default(0),
    height: z.number().int().min(0).max(4320).default(0),
    clickUrl: z.string().trim().max(2048).default(''),
    adomain: domainName.default(''),
    iabCategory: z.string().trim().max(16).default(''),
    approval: z.enum(APPROVAL).default('pending'),
  })
  .superRefine((c, ctx) => {
    const url = (v: string) => /^https?:\/\/\S+$/i.test(v);
    if (c.format === 'video' && c.videoSource === 'media' && c.mediaFiles.length === 0)
      ctx.addIssue({ code: 'custom', path: ['mediaFiles'], message: 'must hold at least one media file' });
    if (c.format === 'video' && c.videoSource === 'vast' && !url(c.vastUrl))
      ctx.addIssue({ code: 'custom', path: ['vastUrl'], message: 'must be an http(s) VAST URL' });
    if (c.format === 'display' && c.displayType === 'image' && !url(c.imageUrl))
      ctx.addIssue({ code: 'custom', path: ['imageUrl'], message: 'must be an http(s) image URL' });
    if (c.format === 'display' && c.displayType === 'html' && !c.html.trim())
      ctx.addIssue({ code: 'custom', path: ['html'], message: 'is required' });
    if (c.format === 'display' && (c.width < 1 || c.height < 1))
      ctx.addIssue({ code: 'custom', path: ['width'], message: 'width and height are required for display' });
    if (c.clickUrl && !url(c.clickUrl)) ctx.addIssue({ code: 'custom', path: ['clickUrl'], message: 'must be an http(s) URL' });
  });
export type CreativeInput = z.input<typeof CreativeInput>;

export const AdExchangeInput = z.object({
  name,
  status: Status.default(1),
  endpoint: httpUrl,
  tmaxMs: z.number().int().min(50, 'must be at least 50 ms').max(5000, 'must be at most 5000 ms').default(300),
  qpsLimit: positiveInt().default(0),
  seat: optionalText(64),
  marginPercent: percent.default(20),
  targetingId: optionalId,
});
export type AdExchangeInput = z.input<typeof AdExchangeInput>;

/** OpenRTB auction types: 1 first price, 2 second price plus, 3 fixed (the deal floor is the price). */
export const AUCTION_TYPES = [
  { id: 1, label: 'First price' },
  { id: 2, label: 'Second price' },
  { id: 3, label: 'Fixed price' },
] as const;

export const DealInput = z
  .object({
    name,
    status: Status.default(1),
    dealId: z.string().trim().min(1, 'is required').max(128).regex(/^[A-Za-z0-9._:-]+$/, 'may hold letters, digits and . _ : - only'),
    floorCpm: micros.default(0),
    auctionType: z.union([z.literal(1), z.literal(2), z.literal(3)]).default(1),
    buyerSeats: z.array(z.string().trim().min(1).max(64)).max(100).default([]),
    supplierIds: ids,
    startDate: isoDate.nullable().default(null),
    endDate: isoDate.nullable().default(null),
  })
  .refine((d) => !d.startDate || !d.endDate || d.endDate >= d.startDate, { path: ['endDate'], message: 'must not be before the start date' });
export type DealInput = z.input<typeof DealInput>;
