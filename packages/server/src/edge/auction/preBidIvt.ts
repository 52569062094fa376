import { type IvtTrace } from '@adplane/shared';
import { checkTraffic, createTrafficCheckState, type TrafficCheckState } from '../../ivt/checkTraffic.js';
import { type IvtSettings } from '../../ivt/ivtSettings.js';
import { IVT_REASONS, type IvtReason, type TrafficVerdict } from '../../ivt/reasons.js';
import { trafficFactsOf } from './trafficFacts.js';
import { loadTrafficLists, shippedTrafficLists } from '../../ivt/trafficLists.js';
import { type RequestContext } from '../request/context.js';
import { type SnapChannel } from '../snapshot/types.js';

/**
 * The auction's "request in" stage: the pre-bid IVT check of one ad request for the channel it
 * came through (docs/traffic-quality.md). The channel's mode is compiled into the snapshot
 * (SnapChannel.ivt), so a channel that is not checked costs one field read; a checked one costs
 * one checkTraffic. The answer is a frozen trace entry shared by every request with the same
 * verdict: the stage allocates nothing but the facts it hands to the check.
 *
 * One instance per edge process, for the life of its lists: the live state counts request rates;
 * a test decision ("Test this tag") is checked against the same lists without the rate rule, so
 * that a person's tests never count towards a device's rate, nor are flagged by it.
 */
export type IvtCounterOf = (reason: IvtReason, blocked: boolean) => { inc(): void };

const REASONS = Object.keys(IVT_REASONS) as IvtReason[];
const tracesOf = (mode: IvtTrace['mode'], blocked: boolean): Readonly<Record<IvtReason, IvtTrace>> =>
  Object.fromEntries(REASONS.map((reason) => [reason, Object.freeze({ mode, reason, blocked })])) as Record<
    IvtReason,
    IvtTrace
  >;
const COUNTED = tracesOf('count', false);
const BLOCKED = tracesOf('block', true);
const CLEAN: Readonly<Record<IvtTrace['mode'], IvtTrace>> = {
  count: Object.freeze({ mode: 'count', reason: '', blocked: false }),
  block: Object.freeze({ mode: 'block', reason: '', blocked: false }),
};

/** The check's state from the settings: the shipped lists (loaded once per process) unless refresh files are named. */
export function trafficCheckStateOf(settings: IvtSettings): TrafficCheckState {
  const files = settings.files;
  const lists = files.rangesFile || files.uaFile ? loadTrafficLists(files) : shippedTrafficLists();
  return createTrafficCheckState({ lists, rate: settings.rate });
}

export class PreBidIvt {
  private readonly testState: TrafficCheckState;
  /** /metrics children by reason, counted and blocked, made once (a label lookup per flag costs more than the check). */
  private readonly counters: Readonly<Record<IvtReason, { inc(): void }>>[] | null;
  // The impressions of one OpenRTB request are decided one after the other for the same source:
  // checked once, so that the rate rule counts the request, not its impressions.
  private lastRequest: object | null = null;
  private lastSource = '';
  private lastVerdict: TrafficVerdict | null = null;

  constructor(
    private readonly state: TrafficCheckState,
    counterOf?: IvtCounterOf,
  ) {
    this.testState = { lists: state.lists, rates: null };
    this.counters = counterOf
      ? [false, true].map(
          (blocked) =>
            Object.fromEntries(REASONS.map((reason) => [reason, counterOf(reason, blocked)])) as Record<
              IvtReason,
              { inc(): void }
            >,
        )
      : null;
  }

  /** The request's verdict for its channel; null when the channel is not checked. A test is never counted in /metrics. */
  check(channel: SnapChannel, ctx: RequestContext, test: boolean): IvtTrace | null {
    const mode = channel.ivt;
    if (mode === undefined || mode === 'off') return null;
    const verdict = test ? this.verdictOf(channel, ctx, this.testState) : this.liveVerdict(channel, ctx);
    if (!verdict.ivt) return CLEAN[mode];
    const reason = verdict.reason as IvtReason;
    const blocked = mode === 'block';
    if (!test && this.counters) this.counters[blocked ? 1 : 0]![reason].inc();
    return blocked ? BLOCKED[reason] : COUNTED[reason];
  }

  private liveVerdict(channel: SnapChannel, ctx: RequestContext): TrafficVerdict {
    const request = ctx.ortb?.request;
    if (!request) return this.verdictOf(channel, ctx, this.state);
    if (request === this.lastRequest && channel.uid === this.lastSource && this.lastVerdict) return this.lastVerdict;
    const verdict = this.verdictOf(channel, ctx, this.state);
    this.lastRequest = request;
    this.lastSource = channel.uid;
    this.lastVerdict = verdict;
    return verdict;
  }

  private verdictOf(channel: SnapChannel, ctx: RequestContext, state: TrafficCheckState): TrafficVerdict {
    return checkTraffic(trafficFactsOf(ctx, { id: channel.uid, environment: channel.environment }), state);
  }
}
