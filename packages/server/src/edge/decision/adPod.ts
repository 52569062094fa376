import { randomUUID } from 'node:crypto';
import { MAX_POD_ADS, type PodSlotTrace } from '@adplane/shared';
import {
  type DecideOptions,
  decide,
  type DecisionOutcome,
  type EdgeDeps,
  rendered,
  runDecision,
} from './adDecision.js';
import { type Winner } from '../auction/runAuction.js';
import { adSeconds } from '../demand/demandSource.js';
import { adomainOf } from '../vast/vastAnswer.js';
import { creativeVideo, demandAdVideo } from '../targeting/impFit.js';
import { type PodSoFar, type RequestContext } from '../request/context.js';

/**
 * An ad pod: the ads of one ad break, asked for in one VAST request (`pod_max_ads`, and the break's
 * length `pod_max_dur`), answered as one document whose ads carry their `sequence` (VAST 3.0 and
 * later: the player plays them in order). Each slot is a decision of its own, made after the one
 * before it, so that it knows what the pod already holds:
 * - its length fits what is left of the break (and the player's own `max_dur`);
 * - it repeats no campaign, no advertiser (ours by id, a demand's by its <Advertiser> domain) and no
 *   video of an earlier slot (competitive separation within the break: `pod_separation` for an
 *   advertiser or a campaign, `pod_repeat` for the same video);
 * - the slots share the channel's timeout: a slot that would start past it is not decided;
 * - OpenRTB demand is asked for one ad of the pod: `video.podid`, and `slotinpod` 1 for the first
 *   slot, -1 for the last one the pod may have, else 0 (AdCOM's "Slot Position in Pod": the position
 *   we guarantee), with `maxduration` what the slot allows.
 * The pod ends at its first slot that does not fill, or when the break is full. The break is one
 * request received (Requests, and the IVT flag, count once); each slot decided is an opportunity of
 * its own, with its own token, so every ad's events and revenue are reported as for a single ad. A VAST 2.0 channel (no pods in 2.0) and a display channel answer
 * one ad.
 */

/** Whether a VAST request asks for a pod (more than one ad) rather than one ad. */
const podAsked = (ctx: RequestContext): boolean => ctx.query.podMaxAds > 1 && !ctx.ortb;

/** A pod with nothing in it yet, of at most `slots` ads. */
export const newPod = (slots: number): PodSoFar => ({
  id: randomUUID(),
  sequence: 1,
  slots,
  campaigns: new Set(),
  advertisers: new Set(),
  domains: [],
  media: new Set(),
});

/** What a filled slot adds to the pod: its campaign, advertiser, domains and video (what podRepeats and campaignSource check). */
export function rememberInPod(pod: PodSoFar, winner: Winner): void {
  const bid = winner.bid;
  const markup = bid.markup;
  let video = '';
  if (markup.kind === 'campaign') {
    // our advertiser is the brand; a demand tag's account is its partner, whose ads are told apart by their own domains
    pod.campaigns.add(bid.campaignId);
    if (bid.advertiserId) pod.advertisers.add(bid.advertiserId);
    pod.domains.push(...markup.creative.adomain.map((d) => d.toLowerCase()));
    video = creativeVideo(markup.creative);
  } else if (markup.kind === 'vast') {
    pod.domains.push(...adomainOf(markup.ad));
    video = demandAdVideo(markup.ad);
  } else {
    pod.domains.push(...markup.adomain);
    if (markup.vast?.kind === 'inline') video = demandAdVideo(markup.vast);
  }
  if (video) pod.media.add(video);
}

/**
 * One document of the filled slots' ads, in order, each with its `sequence`. An `id` an earlier ad of
 * the break has (one demand tag filling two slots with two advertisers' ads: both `tag<id>`) gets the
 * slot's number after it, so that every ad of the break is told apart by a player's reporting.
 */
export function podDocument(documents: readonly string[]): string {
  const first = documents[0]!;
  const head = first.slice(0, first.indexOf('<Ad '));
  let ads = '';
  const ids = new Set<string>();
  documents.forEach((xml, i) => {
    const start = xml.indexOf('<Ad ');
    let ad = xml.slice(start + 3, xml.lastIndexOf('</Ad>') + 5);
    const id = /^ id="([^"]*)"/.exec(ad)?.[1];
    if (id !== undefined) {
      if (ids.has(id)) ad = ` id="${id}-${i + 1}"${ad.slice(id.length + 6)}`;
      ids.add(id);
    }
    ads += `<Ad sequence="${i + 1}"${ad}`;
  });
  return `${head}${ads}</VAST>`;
}

/** A VAST request's answer: an ad break when it asks for one (podAsked: pod_max_ads > 1), else one ad. */
export function decideVastAds(
  deps: EdgeDeps,
  channelUid: string,
  ctx: RequestContext,
  options?: DecideOptions,
): DecisionOutcome | Promise<DecisionOutcome> {
  return podAsked(ctx) ? decidePod(deps, channelUid, ctx, options) : decide(deps, channelUid, ctx, options);
}

/** The pod's answer for a VAST request that asks for one (podAsked). */
async function decidePod(
  deps: EdgeDeps,
  channelUid: string,
  ctx: RequestContext,
  options: DecideOptions = {},
): Promise<DecisionOutcome> {
  const channel = options.channel ?? deps.snapshot()?.channelsByUid.get(channelUid);
  if (!channel || channel.format !== 'video' || channel.vastVersion === '2.0')
    return decide(deps, channelUid, ctx, options);
  const slots = Math.min(ctx.query.podMaxAds, MAX_POD_ADS);
  const deadline = Math.min(deps.clock.now() + channel.timeoutMs, options.deadline ?? Infinity);
  const pod = newPod(slots);
  const { maxDuration, minDuration, podMaxDuration } = ctx.query;
  let left = podMaxDuration > 0 ? podMaxDuration : Infinity;
  const filled: DecisionOutcome[] = [];
  const traces: PodSlotTrace[] = [];
  let first: DecisionOutcome | null = null;
  for (let sequence = 1; sequence <= slots; sequence++) {
    const allowed = Math.min(maxDuration > 0 ? maxDuration : Infinity, left);
    // the break has no room left for an ad the player takes; or the channel's time is up
    if (allowed < Math.max(minDuration, 1) || (sequence > 1 && deps.clock.now() >= deadline)) break;
    pod.sequence = sequence;
    const slotCtx: RequestContext = {
      ...ctx,
      query: { ...ctx.query, maxDuration: Number.isFinite(allowed) ? allowed : 0 },
      pod,
    };
    const o = await runDecision(deps, channelUid, slotCtx, {
      ...options,
      channel,
      deadline,
      ...(first ? { ivtVerdict: first.trace.ivt, extraSlot: true } : {}),
    });
    // (a later slot that did not fill ends the break: its empty document is never sent)
    const answer: DecisionOutcome | null = o.winner || !first ? rendered(deps, o) : null;
    first ??= answer;
    const seconds = o.winner ? adSeconds(o.winner.bid.markup) : 0;
    traces.push({
      sequence,
      result: o.result,
      winner: o.trace.winner,
      maxDurationS: Number.isFinite(allowed) ? allowed : 0,
      durationS: seconds,
    });
    if (!o.winner || !answer) break;
    filled.push(answer);
    rememberInPod(pod, o.winner);
    // an ad of unknown length takes what is left of a break of stated length
    left = seconds > 0 ? left - seconds : podMaxDuration > 0 ? 0 : left;
  }
  // (no slot decided: the break is shorter than any ad the player takes; one ad, refused as it would be)
  if (!first) return decide(deps, channelUid, ctx, options);
  const head = first;
  head.trace.pod = traces;
  if (filled.length <= 1) return head;
  return {
    status: 200,
    xml: podDocument(filled.map((f) => f.xml)),
    trace: head.trace,
    decisionId: head.decisionId,
    podDecisionIds: filled.map((f) => f.decisionId!),
  };
}
