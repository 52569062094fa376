import { IVT_REASONS, type IvtReason } from '@adplane/shared';

/** The reason codes, their category and label: one table in packages/shared (edge/ivtReasons.ts), read by the console too. */
export { IVT_REASONS, type IvtReason };

export interface TrafficVerdict {
  ivt: boolean;
  /** '' when the request is clean. */
  reason: IvtReason | '';
}

export const CLEAN: TrafficVerdict = Object.freeze({ ivt: false, reason: '' });

/** One frozen verdict per reason, so that flagging allocates nothing. */
const VERDICTS = Object.fromEntries(
  Object.keys(IVT_REASONS).map((r) => [r, Object.freeze({ ivt: true, reason: r })]),
) as Record<IvtReason, TrafficVerdict>;

export const verdictOf = (reason: IvtReason): TrafficVerdict => VERDICTS[reason];
