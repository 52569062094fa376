import { z } from 'zod';
import { idList } from '../schemas/idList.js';

/**
 * Whether a serving entity (a campaign, creative, demand tag, channel, deal or supply deal) serves now, and when
 * it does not, every reason why: a code for the API and a sentence in ad-ops words. The server reads
 * the reasons from the edge snapshot's record of what its compile set aside (edge/snapshot/setAside.ts)
 * and from delivery control's counters (budgets spent, pacing); GET /api/deliveryStates answers them.
 */
const DELIVERY_STATE_KINDS = ['campaigns', 'creatives', 'tags', 'channels', 'deals', 'supplydeals'] as const;
export type DeliveryStateKind = (typeof DELIVERY_STATE_KINDS)[number];
export const hasDeliveryState = (kind: string): kind is DeliveryStateKind =>
  (DELIVERY_STATE_KINDS as readonly string[]).includes(kind);

/**
 * Each reason: `sentence`, what is wrong; `until`, what must happen for it to serve ("Saved; it will
 * not serve until ..."). Codes are stable API values; the sentences may be reworded.
 */
const NOT_SERVING_REASONS = {
  paused: { sentence: 'Paused', until: 'it is activated' },
  archived: { sentence: 'Archived', until: 'it is restored and activated' },
  account_paused: { sentence: 'Its account is paused or archived', until: 'its account is active again' },
  no_dsp_view: {
    sentence: 'The account does not have the DSP view: its campaigns and deals do not buy',
    until: 'the account is given the DSP view',
  },
  creative_pending: { sentence: 'Creative pending approval', until: 'the creative is approved' },
  creative_rejected: {
    sentence: 'Creative rejected',
    until: 'the creative is approved (or another, approved one is added)',
  },
  no_creative: { sentence: 'No approved creative that can serve', until: 'an approved, active creative is added' },
  budget_zero_total: { sentence: 'Total budget is $0: it never spends', until: 'its total budget is raised above $0' },
  budget_zero_daily: { sentence: 'Daily budget is $0: it never spends', until: 'its daily budget is raised above $0' },
  budget_spent_total: { sentence: 'Total budget spent', until: 'its total budget is raised' },
  budget_spent_daily: { sentence: "Today's budget spent", until: 'tomorrow (or its daily budget is raised)' },
  flight_not_started: { sentence: 'The flight has not started', until: 'its flight starts' },
  flight_ended: { sentence: 'The flight has ended', until: 'its end date is moved later' },
  paced_ahead: {
    sentence: 'Held back by pacing: ahead of its even pace',
    until: 'the day catches up with its spend',
  },
  no_campaign: {
    sentence: 'No serving campaign uses it',
    until: 'a serving campaign uses it',
  },
  no_channel: {
    sentence: 'Not on any channel: nothing calls it',
    until: 'a channel lists it',
  },
  channels_not_serving: {
    sentence: 'None of the channels that list it serves',
    until: 'a channel that lists it serves',
  },
  no_assigned_channel: {
    sentence: 'Runs only on channels that do not serve: none of the channels it is assigned to is active',
    until: 'one of its channels serves again (or it is assigned to another)',
  },
  no_demand: {
    sentence: 'No demand: no active demand tag or campaign can reach it',
    until: 'an active demand tag is added to it',
  },
  cap_zero: { sentence: 'A cap is 0, so it is never called', until: 'its cap is raised above 0' },
  daily_cap_reached: { sentence: "Today's cap reached", until: 'tomorrow (or its daily cap is raised)' },
  imp_cap_zero: {
    sentence: 'An impression cap is 0: the deal is never offered',
    until: 'its impression cap is raised above 0',
  },
  imp_cap_reached: { sentence: 'Impression cap reached', until: 'its impression cap is raised' },
  unreadable: {
    sentence: 'The ad server cannot read it: it breaks a current rule',
    until: 'it is saved again with valid values',
  },
} as const satisfies Record<string, { sentence: string; until: string }>;

export type NotServingCode = keyof typeof NOT_SERVING_REASONS;
const NOT_SERVING_CODES = Object.keys(NOT_SERVING_REASONS) as [NotServingCode, ...NotServingCode[]];

/** One reason: its code, and its sentence with what it concerns (`Creative pending approval: Spring spot`). */
export const DeliveryReason = z.object({
  code: z.enum(NOT_SERVING_CODES),
  message: z.string(),
});
export type DeliveryReason = z.infer<typeof DeliveryReason>;

export const DeliveryState = z.object({
  id: z.number().int(),
  serving: z.boolean(),
  /** Empty when it serves. */
  reasons: z.array(DeliveryReason),
  /**
   * A capped supply deal's impressions as delivery control counts them against its caps: over its
   * life (`imps`, against `impCap`) and on this day of its tenant (`today`, against `dailyImpCap`).
   * Absent for a deal without caps and for the other kinds.
   */
  delivered: z.object({ imps: z.number().int(), today: z.number().int() }).optional(),
});
export type DeliveryState = z.infer<typeof DeliveryState>;

export const DeliveryStatesAnswer = z.object({
  kind: z.enum(DELIVERY_STATE_KINDS),
  /** When the state was read (ms since the epoch, the server's clock). */
  at: z.number(),
  /** In the order of the ids asked for. */
  states: z.array(DeliveryState),
});
export type DeliveryStatesAnswer = z.infer<typeof DeliveryStatesAnswer>;

/** Rows a call may name; a list page shows at most 100. */
const DELIVERY_STATES_MAX_IDS = 200;

export const DeliveryStatesQuery = z.object({
  kind: z.enum(DELIVERY_STATE_KINDS, { error: () => `must be one of ${DELIVERY_STATE_KINDS.join(', ')}` }),
  ids: z
    .string({ error: 'is required: row ids separated by commas' })
    .transform((v, ctx) => idList(v, ctx, DELIVERY_STATES_MAX_IDS, 'row')),
});
export type DeliveryStatesQuery = z.output<typeof DeliveryStatesQuery>;

/** A reason as the API answers it: the code's sentence, and what it concerns when there is more to say. */
export function deliveryReason(code: NotServingCode, detail?: string): DeliveryReason {
  const sentence = NOT_SERVING_REASONS[code].sentence;
  return { code, message: detail ? `${sentence}: ${detail}` : sentence };
}

/** "it will not serve until X" for the first reason (the one to fix first), or null when it serves. */
export function untilServing(state: Pick<DeliveryState, 'reasons'>): string | null {
  const first = state.reasons[0];
  return first ? NOT_SERVING_REASONS[first.code].until : null;
}
