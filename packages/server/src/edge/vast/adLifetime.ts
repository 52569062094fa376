/**
 * How long an ad we serve lives. /ev refuses a tracking token older than `MAX_AGE_S`
 * (tracking/trackingToken.ts), so the VAST tells players (<Expires>, VAST 4.1+) an hour less: an ad a
 * CTV app or a stitcher kept longer would play uncounted and unpaid, and the hour lets the ad's last
 * events (up to its 10 minutes later) still count. Here, at the bottom, because the VAST writer and
 * the readers of demand's VAST cap their Expires with it and import nothing above them.
 */
export const MAX_AGE_S = 24 * 3600;

/** For how many seconds after the request an ad of ours may still start (VAST 4.1+ <Expires>). */
export const AD_EXPIRES_S = MAX_AGE_S - 3600;
