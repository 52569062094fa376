import { dateFromIso, isoFromDate } from '../dsp/flightDates.js';

/** Deal dates are optional on both ends: the pickers hold dayjs values, the API `YYYY-MM-DD` or null. */
export function dealDefaults(): Record<string, unknown> {
  return {
    status: 1,
    dealId: '',
    floorCpm: 0,
    auctionType: 1,
    buyerSeats: [],
    supplierIds: [],
    startDate: null,
    endDate: null,
  };
}

export function dealToForm(row: Record<string, unknown>): Record<string, unknown> {
  return { ...row, startDate: dateFromIso(row.startDate), endDate: dateFromIso(row.endDate) };
}

export function dealToBody(values: Record<string, unknown>): Record<string, unknown> {
  return { ...values, startDate: isoFromDate(values.startDate), endDate: isoFromDate(values.endDate) };
}
