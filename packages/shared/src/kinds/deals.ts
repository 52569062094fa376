import { z } from 'zod';
import { ids, isoDate, micros, name, Status } from '../entities/common.js';
import { storedRowParser } from './storedRow.js';
import { defineKind, many } from './kindDef.js';

/** OpenRTB auction types: 1 first price, 2 second price plus, 3 fixed (the deal floor is the price). */
export const AUCTION_TYPES = [
  { id: 1, label: 'First price' },
  { id: 2, label: 'Second price' },
  { id: 3, label: 'Fixed price' },
] as const;

/** A deal's OpenRTB id, as bid requests carry it (imp.pmp.deals.id) and bids name it (dealid). */
export const dealIdField = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(128, 'must be at most 128 characters')
  .regex(/^[A-Za-z0-9._:-]+$/, 'may hold letters, digits and . _ : - only');
/** The OpenRTB auction type of a deal (AUCTION_TYPES). */
export const dealAuctionType = z.union([z.literal(1), z.literal(2), z.literal(3)]).default(1);
/** Buyer seat ids (OpenRTB wseat). */
export const buyerSeats = z.array(z.string().trim().min(1).max(64)).max(100).default([]);

/** A deal's flight days: an end date, when both are set, is not before the start date. */
export const flightInOrder = (d: { startDate: string | null; endDate: string | null }): boolean =>
  !d.startDate || !d.endDate || d.endDate >= d.startDate;
export const FLIGHT_ORDER = { path: ['endDate'], message: 'must not be before the start date' };

/**
 * Deals (DSP mode): private marketplace deals from suppliers. Start and end dates are whole days in
 * the tenant's time zone (the demand account's `timezone`): a deal ending 2026-12-31 serves until
 * midnight at the end of that day there.
 */
export const DealInput = z
  .object({
    name,
    status: Status.default(1),
    dealId: dealIdField,
    floorCpm: micros.default(0),
    auctionType: dealAuctionType,
    buyerSeats,
    supplierIds: ids,
    startDate: isoDate.nullable().default(null),
    endDate: isoDate.nullable().default(null),
  })
  .refine(flightInOrder, FLIGHT_ORDER);
export type DealInput = z.input<typeof DealInput>;

export const parseDealRow = storedRowParser('deals', DealInput);
export type DealRow = NonNullable<ReturnType<typeof parseDealRow>>;

const dealListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({ dealId: d.dealId });

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const dealsKind = defineKind({
  kind: 'deals',
  label: 'Deal',
  plural: 'Deals',
  route: '/deals',
  api: '/api/demand/deals',
  mode: 'dsp',
  storage: 'entity',
  audience: 'tenant',
  uid: false,
  schema: DealInput,
  refs: [{ kind: 'sups', field: 'supplierIds', ids: many('supplierIds') }],
  sortable: ['dealId', 'floorCpm'],
  listExtras: dealListExtras,
  parseRow: parseDealRow,
});
