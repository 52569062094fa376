import { type PostbidTrace } from '@adplane/shared';
import { type RequestContext } from '../request/context.js';
import { type Decision, type TokenSigner } from '../tracking/trackingToken.js';
import { impressionRef } from './impressionRef.js';
import { PostbidCap } from './postbidCap.js';
import { NO_POSTBID, postbidPlanOf, type PostbidSnapshot, type SnapPostbidPixel } from '../snapshot/postbidPlan.js';
import { inShare, postbidDraw } from './postbidSampling.js';

/**
 * The auction's post-bid stage (after the winner is admitted, before the answer is written): which
 * of the account's third-party pixels this impression carries. The answer is deterministic per
 * decision id (postbidSampling.ts); the monthly cap is checked last, so only decisions that would
 * carry pixels use it up (postbidCap.ts: shared by every process). A test decision ("Test this tag")
 * gets the same answer but uses nothing up.
 */
export interface PostbidChoice {
  pixels: readonly SnapPostbidPixel[];
  trace: PostbidTrace;
}

export class PostbidStage {
  constructor(readonly cap = new PostbidCap()) {}

  choose(
    postbid: PostbidSnapshot | undefined,
    channel: { id: number; tenantId: number },
    decisionId: string,
    now: number,
    test: boolean,
  ): PostbidChoice {
    const p = postbid ?? NO_POSTBID;
    const trace: PostbidTrace = {
      result: 'none_configured',
      source: null,
      percent: 0,
      draw: null,
      pixels: [],
      maxImps: p.maxImps,
      monthUsed: 0,
    };
    const none = { pixels: [], trace };
    if (!p.enabled.has(channel.tenantId)) {
      trace.result = 'not_enabled';
      return none;
    }
    const plan = postbidPlanOf(p, channel);
    if (!plan) return none;
    trace.source = plan.source;
    trace.percent = plan.percent;
    trace.draw = postbidDraw(decisionId, '');
    trace.monthUsed = this.cap.used(channel.tenantId, now);
    if (!inShare(trace.draw, plan.percent)) {
      trace.result = 'sampled_out';
      return none;
    }
    const pixels: SnapPostbidPixel[] = [];
    for (const pixel of plan.pixels) {
      const draw = postbidDraw(decisionId, String(pixel.id));
      const added = inShare(draw, pixel.samplePercent);
      trace.pixels.push({ id: pixel.id, vendor: pixel.vendor, samplePercent: pixel.samplePercent, draw, added });
      if (added) pixels.push(pixel);
    }
    if (!pixels.length) {
      trace.result = 'pixels_sampled_out';
      return none;
    }
    const fits = test
      ? this.cap.wouldFit(channel.tenantId, p.maxImps, now)
        ? 'taken'
        : 'cap_reached'
      : this.cap.take(channel.tenantId, p.maxImps, now);
    if (fits !== 'taken') {
      trace.result = fits;
      for (const t of trace.pixels) t.added = false;
      return none;
    }
    trace.result = 'added';
    return { pixels, trace };
  }
}

/**
 * A pixel's URL for one impression: each macro of IVT_MACROS filled from the request and the
 * decision, URL-encoded (an unknown macro, which the schema refuses anyway, becomes empty).
 */
export function postbidPixelUrl(template: string, ctx: RequestContext, d: Decision, ref: string): string {
  const values: Record<string, string> = {
    ip: ctx.ip,
    user_agent: ctx.ua,
    app_bundle: ctx.query.appBundle || d.appBundle,
    domain: ctx.domain,
    page_url: ctx.query.pageUrl,
    device_id: ctx.query.deviceId,
    channel_id: String(d.channelId),
    tag_id: String(d.tagId),
    cachebuster: d.id,
    country: ctx.geo.country,
    impression_id: ref,
  };
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/gi, (_, name: string) =>
    encodeURIComponent(values[name.toLowerCase()] ?? ''),
  );
}

/** The filled URLs of the chosen pixels (one impression ref shared by them). */
export function postbidPixelUrls(
  pixels: readonly SnapPostbidPixel[],
  ctx: RequestContext,
  d: Decision,
  signer: TokenSigner,
): string[] {
  if (!pixels.length) return [];
  const ref = impressionRef(signer, d);
  return pixels.map((p) => postbidPixelUrl(p.urlTemplate, ctx, d, ref));
}
