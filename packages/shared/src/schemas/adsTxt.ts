import { z } from 'zod';

/**
 * The ads.txt line of a channel and the check of a publisher's live ads.txt (docs/supply-chain.md):
 * the API contract of GET and POST /api/demand/channels/:id/adstxt[/check], read by the channel page.
 */

export type AdsTxtRelationship = 'DIRECT' | 'RESELLER';

export const adsTxtLinePath = (channelId: number | string): string => `/api/demand/channels/${channelId}/adstxt`;
export const adsTxtCheckPath = (channelId: number | string): string => `${adsTxtLinePath(channelId)}/check`;

/** The line a publisher adds to its ads.txt for a channel, and where it comes from. */
export interface ChannelAdsTxt {
  /** `ads.example.com, pub-123, DIRECT`: null when the channel has no seller id yet (see `warnings`). */
  line: string | null;
  /** Field #1: the domain of our advertising system (the tenant's domain, else the operator's host). */
  domain: string;
  /** Field #2: the seller id sellers.json lists for this channel's seller. */
  sellerId: string | null;
  /** Field #3. */
  relationship: AdsTxtRelationship;
  /** Who the seller id belongs to: the channel's subpublisher, an entry of the tenant's profile, or the tenant. */
  seller: { source: 'subpublisher' | 'profile' | 'tenant'; name: string } | null;
  /** Where buyers read the seller: `https://<domain>/sellers.json`. */
  sellersJsonUrl: string;
  /** What keeps the line from being verifiable, each with what to do about it. */
  warnings: string[];
}

/**
 * The file that carries the line: a site's `/ads.txt` (ads.txt 1.1), or for an app (in-app and CTV
 * channels) the `/app-ads.txt` of the developer's website its store listing links to (IAB app-ads.txt
 * 1.0). Both hold the same records; only where they live differs.
 */
const ADS_TXT_FILES = ['ads.txt', 'app-ads.txt'] as const;
export type AdsTxtFileName = (typeof ADS_TXT_FILES)[number];

/** The file a channel's publisher puts the line in, by the channel's environment: apps have no site of their own. */
export const adsTxtFileOf = (environment: unknown): AdsTxtFileName =>
  environment === 'app' || environment === 'ctv' ? 'app-ads.txt' : 'ads.txt';

export const AdsTxtCheckRequest = z.object({
  /**
   * Where the file is: for ads.txt the publisher's site, for app-ads.txt the developer's website from
   * the app's store listing; `example.com`, `www.example.com` or `https://example.com/`.
   */
  domain: z.string({ error: 'is required' }).trim().min(1, 'is required').max(2048, 'must be at most 2048 characters'),
  /** Which file to read; without it, the channel's (adsTxtFileOf its environment). */
  file: z.enum(ADS_TXT_FILES, { error: 'must be ads.txt or app-ads.txt' }).optional(),
});
export type AdsTxtCheckRequest = z.input<typeof AdsTxtCheckRequest>;

/**
 * - found: the line is there (domain, seller id and relationship);
 * - relationship_differs: our domain and seller id are there, with the other relationship;
 * - missing: the file is an ads.txt (or app-ads.txt) but does not carry the line;
 * - not_adstxt: the site answered something that is not such a file (an HTML page, a 404...);
 * - unreachable: no answer (DNS, connection, timeout, too large).
 */
export type AdsTxtCheckStatus = 'found' | 'relationship_differs' | 'missing' | 'not_adstxt' | 'unreachable';

export interface AdsTxtCheckResult {
  status: AdsTxtCheckStatus;
  /** The URL that answered (after redirects), or the last one tried: it names the file read (/ads.txt or /app-ads.txt) and the host. */
  url: string | null;
  /** The line looked for. */
  expected: string | null;
  /** The file's records for our domain and seller id, as written, with their line numbers. */
  matches: { line: number; text: string }[];
  /** One sentence for the user: what was found, or what to do next. */
  message: string;
}
