import { type RequestContext } from '../request/context.js';
import { type TrafficFacts } from '../../ivt/checkTraffic.js';

/**
 * The facts the pre-bid check reads, taken from the edge's request context: what the request
 * stated where it stated it (the raw IP macro or device.ip, so that a malformed one is seen), the
 * connection's address only as a stand-in. `environment` is the channel's for a VAST tag call;
 * an OpenRTB request says it itself (app or site).
 */
export interface TrafficSource {
  /** The channel uid or supplier id the request came through. */
  id: string;
  /** The channel's environment (VAST tag calls); OpenRTB requests carry their own. */
  environment?: 'app' | 'ctv' | 'web';
}

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export function trafficFactsOf(ctx: RequestContext, source: TrafficSource): TrafficFacts {
  const q = ctx.query;
  const stated = q.ip !== '';
  let environment: TrafficFacts['environment'] = source.environment ?? '';
  let deviceIdType = '';
  let lmt: boolean | null = q.dnt === 1 ? true : null;
  let atts: number | null = null;
  let os = '';
  if (ctx.ortb) {
    const req = ctx.ortb.request;
    const device = obj(req.device);
    if (req.app) environment = q.deviceType === 3 || q.deviceType === 7 ? 'ctv' : 'app';
    else if (req.site) environment = 'web';
    const ext = obj(device.ext);
    const ifaType = ext.ifa_type;
    deviceIdType = typeof ifaType === 'string' ? ifaType.slice(0, 32) : '';
    lmt = device.lmt === 1 ? true : device.lmt === 0 ? false : null;
    atts = ext.atts === 0 || ext.atts === 1 || ext.atts === 2 || ext.atts === 3 ? ext.atts : null;
    os = typeof device.os === 'string' ? device.os.slice(0, 64) : '';
  }
  return {
    origin: ctx.ortb ? 'openrtb' : 'vast',
    source: source.id,
    ip: stated ? q.ip : ctx.ip,
    ipFromConnection: !stated,
    ua: ctx.ua,
    environment,
    bundle: ctx.appBundle,
    storeUrl: q.appStoreUrl,
    deviceId: q.deviceId,
    deviceIdType,
    lmt,
    atts,
    deviceType: q.deviceType,
    os,
    now: ctx.now,
  };
}
