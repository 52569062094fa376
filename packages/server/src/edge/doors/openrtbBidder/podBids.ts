import { type Imp, MAX_POD_ADS } from '@adplane/shared';
import { type PodSoFar } from '../../request/context.js';
import { newPod } from '../../decision/adPod.js';
import { bannerOffered, bidForImp, cappedToLength, type ImpBid, type ImpDeps, type ImpJob } from './impBid.js';

/**
 * The bids of an inbound bid request's impressions, with OpenRTB 2.6's ad pods (section 7.6 of the
 * implementation guide):
 *
 * - **Structured pod**: impressions sharing `video.podid`, one ad each. They are decided one after
 *   another in the request's order, each knowing what the slots before it took: no campaign,
 *   advertiser or video twice in one ad break (decision/adPod.ts).
 * - **Dynamic pod**: one impression with `video.poddur` (the break's seconds) and `maxseq` (at most
 *   that many ads; without it, MAX_POD_ADS). It gets up to `maxseq` bids for the same `impid`, each
 *   its own decision with the same separation, each ad's length (`bid.dur`) within `maxduration` (or
 *   one of `rqddurs`) and all of them within `poddur`. The seller builds the break from them.
 * - **Hybrid pod**: both under one `podid`: the structured slots and the dynamic part share the
 *   separation, in the request's order.
 *
 * A dynamic part stops at its first slot that does not fill, at the request's deadline, or when the
 * break is full; a structured slot that does not fill leaves the next one its chance. A dynamic
 * impression is one request (its IVT verdict given once), each of its ads an opportunity, as a VAST
 * pod's slots are. Impressions of no pod are decided side by side. The answer lists the bids in the
 * request's order of impressions.
 *
 * A pod's impression that offers a banner too (impBid.ts bidForImp): a structured slot, or a dynamic
 * part's first ad, is decided as video and then as its banner, under the pod's separation; a
 * dynamic part's later ads are video only; a break too short for any video it takes is its banner's.
 */

/** An impression's pod id (a number is read as its text, as some exchanges send it), or ''. */
function podIdOf(imp: Imp): string {
  const id: unknown = imp.video?.podid;
  return typeof id === 'string' ? id : typeof id === 'number' && Number.isFinite(id) ? String(id) : '';
}

/** The dynamic part of a pod an impression offers (`video.poddur` above 0): how many ads and seconds at most; else null. */
function dynamicPodOf(imp: Imp): { ads: number; seconds: number } | null {
  const video = imp.video;
  if (!video || !(typeof video.poddur === 'number' && video.poddur > 0)) return null;
  const ads =
    typeof video.maxseq === 'number' && video.maxseq >= 1
      ? Math.min(Math.floor(video.maxseq), MAX_POD_ADS)
      : MAX_POD_ADS;
  return { ads, seconds: video.poddur };
}

/** How many ads a pod's impressions may take: one a structured slot, `maxseq` a dynamic part. */
const slotsOf = (imps: readonly Imp[]): number => imps.reduce((n, imp) => n + (dynamicPodOf(imp)?.ads ?? 1), 0);

/**
 * Bids for a dynamic pod's impression: each slot offered what is left of the break (cappedToLength:
 * its `maxduration` the smaller of the impression's and what is left; `rqddurs` those that still
 * fit). An ad of unknown length takes the rest of the break.
 */
async function dynamicBids(
  deps: ImpDeps,
  job: ImpJob,
  imp: Imp,
  pod: PodSoFar,
  dynamic: { ads: number; seconds: number },
): Promise<ImpBid[]> {
  const bids: ImpBid[] = [];
  let left = dynamic.seconds;
  // no ad the impression takes fits the break (rqddurs or minduration longer than poddur): one request,
  // refused; or, when it offers a banner too (and the target takes one), its banner alone
  if (!cappedToLength(imp, left)) {
    const banner = bannerOffered(job, imp);
    if (banner) {
      const bid = await bidForImp(deps, job, banner, pod);
      if (bid) bids.push(bid);
      return bids;
    }
    deps.refuse(job.target, 'pod_too_short', 1, job.arrival, job.test);
    return bids;
  }
  for (let n = 0; n < dynamic.ads; n++) {
    if (n > 0 && deps.edge.clock.now() >= job.deadline) break;
    const slot = cappedToLength(imp, left);
    if (!slot) break;
    const bid = await bidForImp(deps, job, slot, pod, bids[bids.length - 1]);
    if (!bid) break;
    bids.push(bid);
    pod.sequence++;
    left -= bid.bid.dur && bid.bid.dur > 0 ? bid.bid.dur : left;
  }
  return bids;
}

/** The bids of one impression outside any pod: none or one, or a dynamic pod's. */
function bidsOfImp(deps: ImpDeps, job: ImpJob, imp: Imp): Promise<ImpBid[]> {
  const dynamic = dynamicPodOf(imp);
  if (dynamic) return dynamicBids(deps, job, imp, newPod(dynamic.ads), dynamic);
  return bidForImp(deps, job, imp).then((bid) => (bid ? [bid] : []));
}

/** A pod's impressions decided in order, sharing what the break holds. */
async function podBids(deps: ImpDeps, job: ImpJob, imps: readonly Imp[]): Promise<ImpBid[]> {
  const pod = newPod(slotsOf(imps));
  const bids: ImpBid[] = [];
  for (const imp of imps) {
    const dynamic = dynamicPodOf(imp);
    if (dynamic) {
      bids.push(...(await dynamicBids(deps, job, imp, pod, dynamic)));
      continue;
    }
    const bid = await bidForImp(deps, job, imp, pod);
    pod.sequence++;
    if (bid) bids.push(bid);
  }
  return bids;
}

/** Every bid of a bid request's impressions (an impression may have none, or several in a dynamic pod). */
export async function bidsForImps(deps: ImpDeps, job: ImpJob, imps: readonly Imp[]): Promise<ImpBid[]> {
  if (imps.length === 1) return bidsOfImp(deps, job, imps[0]!);
  const pods = new Map<string, Imp[]>();
  for (const imp of imps) {
    const podId = podIdOf(imp);
    if (!podId) continue;
    const slots = pods.get(podId);
    if (slots) slots.push(imp);
    else pods.set(podId, [imp]);
  }
  const work: Promise<ImpBid[]>[] = [];
  for (const imp of imps) {
    const podId = podIdOf(imp);
    if (!podId || pods.get(podId)!.length < 2) work.push(bidsOfImp(deps, job, imp));
  }
  for (const slots of pods.values()) if (slots.length > 1) work.push(podBids(deps, job, slots));
  const order = new Map(imps.map((imp, i) => [imp.id, i]));
  // (a stable sort: a dynamic pod's bids keep their sequence)
  return (await Promise.all(work)).flat().sort((a, b) => order.get(a.bid.impid)! - order.get(b.bid.impid)!);
}
