import { z } from 'zod';
import { domainName, id } from '../entities/common.js';
import { LIST_ITEM_RULES } from '../kinds/lists.js';
import { isCountry } from '../reference/countries.js';
import { BROWSER_FAMILY_BY_ID, DEVICE_TYPE_BY_ID, OPERATING_SYSTEM_BY_ID } from '../reference/platforms.js';
import { isUsState } from '../reference/usStates.js';
import { type DecisionTrace } from './decisionTrace.js';
import { MAX_POD_ADS, MAX_POD_SECONDS } from './tagMacros.js';

/**
 * "Test this tag": one real ad decision for a channel, or for one demand tag alone, in a context the
 * ad-ops user picks (the viewer's country, device, OS, app or site, player size). The console posts a
 * `TagTestRequest` to `TAG_TEST_PATH` and shows the `TagTestAnswer`: the VAST a player would get and
 * the decision trace.
 */
export const TAG_TEST_PATH = '/api/edge/test';

const code = (valid: (v: string) => boolean, what: string) =>
  z
    .string({ error: `must be ${what}` })
    .trim()
    .refine((v) => v === '' || valid(v), `is not ${what}`)
    .transform((v) => v || undefined)
    .optional();

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
/** Loose IPv6 (hex groups and colons, optionally an embedded IPv4): the edge re-checks with node's isIP. */
const IPV6 = /^(?=.*:)[0-9a-f:]{2,39}(\d+\.\d+\.\d+\.\d+)?$/i;
const pixels = (what: string) =>
  z
    .number({ error: `must be a whole number of pixels` })
    .int(`must be a whole number of pixels`)
    .min(1, `${what} must be at least 1 pixel`)
    .max(10_000, `${what} must be at most 10000 pixels`)
    .optional();

/** The request context to test with; anything left out comes from the caller's own connection, as a real request would. */
export const TagTestContext = z
  .object({
    /** ISO 3166-1 alpha-2: replaces the country of the IP. */
    country: code(isCountry, 'a country code of the reference list (US, DE, ...)'),
    /** USPS state code, for country US. */
    usState: code(isUsState, 'a US state code (CA, NY, ...)'),
    device: code((v) => DEVICE_TYPE_BY_ID.has(v), `a device type (${[...DEVICE_TYPE_BY_ID.keys()].join(', ')})`),
    os: code(
      (v) => OPERATING_SYSTEM_BY_ID.has(v),
      `an operating system (${[...OPERATING_SYSTEM_BY_ID.keys()].join(', ')})`,
    ),
    browser: code(
      (v) => BROWSER_FAMILY_BY_ID.has(v),
      `a browser family (${[...BROWSER_FAMILY_BY_ID.keys()].join(', ')})`,
    ),
    appBundle: code(
      (v) => v.length <= 255 && LIST_ITEM_RULES.applists.check(v) === null,
      'an app bundle (com.example.app) or store id',
    ),
    domain: domainName.transform((v) => v || undefined).optional(),
    width: pixels('width'),
    height: pixels('height'),
    ip: code((v) => IPV4.test(v) || IPV6.test(v), 'an IPv4 or IPv6 address'),
    ua: z
      .string({ error: 'must be a user agent string' })
      .trim()
      .max(1024, 'must be at most 1024 characters')
      .transform((v) => v || undefined)
      .optional(),
    /** An ad break (a CTV player's `pod_max_ads`): at most this many ads, answered as one pod on a VAST 3.0+ video channel. */
    podMaxAds: z
      .number({ error: 'must be a whole number of ads' })
      .int('must be a whole number of ads')
      .min(1, 'must be at least 1 ad')
      .max(MAX_POD_ADS, `must be at most ${MAX_POD_ADS} ads`)
      .optional(),
    /** The break's length in seconds (`pod_max_dur`). */
    podMaxDuration: z
      .number({ error: 'must be a whole number of seconds' })
      .int('must be a whole number of seconds')
      .min(1, 'must be at least 1 second')
      .max(MAX_POD_SECONDS, `must be at most ${MAX_POD_SECONDS} seconds`)
      .optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.usState && c.country && c.country !== 'US')
      ctx.addIssue({ code: 'custom', path: ['usState'], message: 'is a US state: choose country US or no state' });
    if (c.appBundle && c.domain)
      ctx.addIssue({
        code: 'custom',
        path: ['domain'],
        message: 'a request comes from an app or from a site: give the app bundle or the domain, not both',
      });
    if (c.podMaxDuration !== undefined && c.podMaxAds === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['podMaxAds'],
        message: 'say how many ads the break holds to give its length',
      });
  });
export type TagTestContext = z.output<typeof TagTestContext>;

/** What to test: a channel (its own demand and the tenant's campaigns) or one demand tag alone. */
export const TagTestRequest = z
  .object({
    channelId: id.optional(),
    tagId: id.optional(),
    context: TagTestContext.default({}),
  })
  .strict()
  .superRefine((r, ctx) => {
    if ((r.channelId === undefined) === (r.tagId === undefined))
      ctx.addIssue({ code: 'custom', path: ['channelId'], message: 'give either a channelId or a tagId' });
  });
export type TagTestRequest = z.input<typeof TagTestRequest>;

export interface TagTestAnswer {
  /** What was tested; a tag is tested through a channel of its own (auction, VAST 4.2, no floor). */
  tested: { kind: 'channel' | 'tag'; id: number; name: string; format: 'video' | 'display' };
  /** The HTTP status a player would have got. */
  status: number;
  /** The VAST document a player would have got (empty VAST when nothing filled). */
  vast: string;
  trace: DecisionTrace;
}
