import { VAST_VERSIONS, type VastVersion } from '@adplane/shared';

/** The VAST versions a channel may answer in (a channel setting, 4.2 by default: see kinds/channels.ts). */
export { VAST_VERSIONS, type VastVersion };

/** 4.x documents live in the IAB namespace; 2.0 and 3.0 have none. */
export const DEFAULT_VAST_VERSION: VastVersion = '4.2';

export const isVast4 = (v: VastVersion): boolean => v.startsWith('4');

/** VAST error codes the edge reports and reads (VAST 4.2, 2.3.6.3). */
export const VAST_ERRORS = {
  xmlParse: 100,
  schema: 101,
  unsupportedVersion: 102,
  linearity: 201,
  wrapperGeneral: 300,
  wrapperTimeout: 301,
  wrapperLimit: 302,
  noAds: 303,
  linearGeneral: 400,
  mediaNotFound: 401,
  /** A NonLinear larger than the slot it is for ("creative dimensions do not align with creative display area"). */
  nonLinearSize: 501,
  /** A NonLinear with no resource a player could show ("couldn't find NonLinear resource with supported type"). */
  nonLinearResource: 503,
  undefined: 900,
} as const;
