import { z } from 'zod';
import { countLimit, ids, isoDate, micros, name, optionalId, Status } from '../entities/common.js';
import { advertiserDomain, uniqueList } from './creatives.js';
import { buyerSeats, dealAuctionType, dealIdField, FLIGHT_ORDER, flightInOrder } from './deals.js';
import { storedRowParser } from './storedRow.js';
import { defineKind, many, targetingRef } from './kindDef.js';

/**
 * Supply deals (SSP mode): the tenant's supply packaged as deals for buyers. A deal covers the
 * channels it lists (none: every channel of the tenant), narrowed by its targeting when it has one,
 * and rides as OpenRTB 2.6 `imp.pmp.deals` on the bid requests sent to the RTB and Prebid demand tags
 * it names (none: every one those channels call). A bid on it is held to its terms as an exchange
 * holds them: its floor, its auction type (3: the floor is the price), its buyer seats (`wseat`) and
 * advertiser domains (`wadomain`); with `privateAuction`, the impression takes deal bids only.
 * Start and end dates are whole days in the tenant's time zone, as a DSP deal's. `impCap` caps its
 * impressions over its life and `dailyImpCap` those of each day of the tenant ('unlimited' by
 * default; 0 never offers it): once one is reached the deal is no longer offered.
 */
const SupplyDealInput = z
  .object({
    name,
    status: Status.default(1),
    dealId: dealIdField,
    floorCpm: micros.default(0),
    auctionType: dealAuctionType,
    privateAuction: z.boolean().default(false),
    buyerSeats,
    advertiserDomains: uniqueList(advertiserDomain, 100),
    channelIds: ids,
    targetingId: optionalId,
    tagIds: ids,
    startDate: isoDate.nullable().default(null),
    endDate: isoDate.nullable().default(null),
    impCap: countLimit('must be a whole number of impressions'),
    dailyImpCap: countLimit('must be a whole number of impressions'),
  })
  .refine(flightInOrder, FLIGHT_ORDER);

export const parseSupplyDealRow = storedRowParser('supplydeals', SupplyDealInput);
export type SupplyDealRow = NonNullable<ReturnType<typeof parseSupplyDealRow>>;

const supplyDealListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({ dealId: d.dealId });

/** The kind's registry entry: where it lives in the console and the API, who sees it, what it references. */
export const supplydealsKind = defineKind({
  kind: 'supplydeals',
  label: 'Supply deal',
  plural: 'Supply deals',
  route: '/supply-deals',
  api: '/api/demand/supplydeals',
  mode: 'ssp',
  storage: 'entity',
  audience: 'tenant',
  uid: false,
  schema: SupplyDealInput,
  refs: [
    { kind: 'channels', field: 'channelIds', ids: many('channelIds') },
    targetingRef,
    { kind: 'tags', field: 'tagIds', ids: many('tagIds') },
  ],
  sortable: ['dealId', 'floorCpm'],
  listExtras: supplyDealListExtras,
  parseRow: parseSupplyDealRow,
});
