import dayjs, { type Dayjs } from 'dayjs';
import { dateFromIso, isoFromDate } from '../dsp/flightDates.js';

/**
 * The campaign drawer's values and the API body differ in two places: flight dates (date pickers hold
 * dayjs values, the API takes `YYYY-MM-DD`) and the frequency cap (a switch with count and hours in
 * the form, `{count, periodHours}` or null in the API). The field names stay the API's, so that the
 * server's errors (`endDate`, `frequencyCap.count`) land on the right fields.
 */
interface FrequencyCapForm {
  enabled: boolean;
  count?: number | null;
  periodHours?: number | null;
}

/** What a cap starts at when someone switches it on: 3 impressions a day per user. */
export const DEFAULT_CAP = { count: 3, periodHours: 24 } as const;

export function campaignDefaults(today: Dayjs = dayjs()): Record<string, unknown> {
  return {
    status: 1,
    advertiserId: null,
    startDate: today.startOf('day'),
    endDate: null,
    totalBudget: 'unlimited',
    dailyBudget: 'unlimited',
    pacing: 'even',
    frequencyCap: { enabled: false, ...DEFAULT_CAP } satisfies FrequencyCapForm,
    targetingId: null,
    creativeIds: [],
    dealIds: [],
    supplierIds: [],
    adExchangeIds: [],
    // where it runs is the user's choice, which the API requires on create: the form shows 'All my
    // channels' chosen (a required field, its meaning under it) until another is picked, and sends it
    channelScope: 'all',
    channelIds: [],
  };
}

function isCap(value: unknown): value is { count: number; periodHours: number } {
  return typeof value === 'object' && value !== null && typeof (value as { count?: unknown }).count === 'number';
}

export function campaignToForm(row: Record<string, unknown>): Record<string, unknown> {
  const cap = row.frequencyCap;
  return {
    ...row,
    startDate: dateFromIso(row.startDate),
    endDate: dateFromIso(row.endDate),
    frequencyCap: (isCap(cap)
      ? { enabled: true, count: cap.count, periodHours: cap.periodHours }
      : { enabled: false, ...DEFAULT_CAP }) satisfies FrequencyCapForm,
  };
}

export function campaignToBody(values: Record<string, unknown>): Record<string, unknown> {
  const { startDate, endDate, frequencyCap, ...rest } = values;
  const cap = (frequencyCap ?? { enabled: false }) as FrequencyCapForm;
  return {
    ...rest,
    // channels picked before "All my channels" was chosen again are not kept: 'all' names none
    ...(rest.channelScope === 'all' && { channelIds: [] }),
    startDate: isoFromDate(startDate),
    endDate: isoFromDate(endDate),
    frequencyCap: cap.enabled ? { count: cap.count ?? null, periodHours: cap.periodHours ?? null } : null,
  };
}
