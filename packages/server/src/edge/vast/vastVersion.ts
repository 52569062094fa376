/** The VAST versions a channel may answer in (a channel setting; 4.2 by default). */
export const VAST_VERSIONS = ['2.0', '3.0', '4.0', '4.1', '4.2'] as const;
export type VastVersion = (typeof VAST_VERSIONS)[number];
export const DEFAULT_VAST_VERSION: VastVersion = '4.2';

export const isVastVersion = (v: unknown): v is VastVersion => (VAST_VERSIONS as readonly unknown[]).includes(v);

/** 4.x documents live in the IAB namespace; 2.0 and 3.0 have none. */
export const isVast4 = (v: VastVersion): boolean => v.startsWith('4');

/** VAST error codes the edge reports (VAST 4.2 section 2.3.6.3 and 3.16). */
export const VAST_ERRORS = {
  xmlParse: 100,
  schema: 101,
  unsupportedVersion: 102,
  wrapperGeneral: 300,
  wrapperTimeout: 301,
  wrapperLimit: 302,
  wrapperNoAds: 303,
  noAds: 303,
  linearGeneral: 400,
  mediaNotFound: 401,
  undefined: 900,
} as const;
