import { parseCampaignRow, parseCreativeRow } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { eligibility } from '../demand/campaignSource.js';
import { type AuctionRequest } from '../demand/demandSource.js';
import { type Owners } from './accounts.js';
import { campaignFacts, compileCampaigns, compileCampaignSlices, indexCampaignSlices } from './campaigns.js';
import { SLICE_ROWS } from './slices.js';
import { compileCreatives } from './creatives.js';
import { OPEN_FLIGHT_END } from './types.js';
import { storedRow } from '../../../test/storedRows.js';

const HOUR = 3_600_000;
const creative = parseCreativeRow(
  storedRow(10, {
    approval: 'approved',
    format: 'video',
    videoSource: 'media',
    clickUrl: 'https://brand.example.com/',
    mediaFiles: [
      {
        url: 'https://cdn.example.com/a.mp4',
        mime: 'video/mp4',
        duration: 15,
        width: 1280,
        height: 720,
        bitrate: 2000,
      },
    ],
  }),
)!;
const owners = (timezone: number): Owners => ({
  tenants: new Map([
    [1, { id: 1, name: 'Tenant', timezone, showDsp: true }],
    [2, { id: 2, name: 'Neighbour', timezone, showDsp: true }],
  ]),
  subpublishers: new Map(),
  advertisers: new Map(),
  sellerIds: new Map(),
});
const NOW = Date.UTC(2026, 5, 1, 12);

function compile(flight: { startDate: string; endDate: string | null }, timezone: number) {
  const rows = [
    campaignFacts(
      parseCampaignRow(storedRow(40, { ...flight, bidCpm: 5_000_000, creativeIds: [10], channelScope: 'all' }))!,
    ),
  ];
  return compileCampaigns(rows, owners(timezone), compileCreatives([creative], owners(timezone)), new Map(), NOW).get(
    40,
  );
}

/**
 * The flight checks of a request at `now`: they come before targeting and delivery control, so a
 * request past them reaches the budget check, which answers 'past_the_flight_checks' here.
 */
const refusalAt = (campaign: NonNullable<ReturnType<typeof compile>>, now: number) =>
  eligibility(campaign, {
    ctx: { now },
    pacing: { campaignRefusal: () => 'past_the_flight_checks' },
  } as unknown as AuctionRequest);

describe('a compiled campaign', () => {
  it('flies from 00:00 of its start day to 24:00 of its end day in its tenant zone, in whole hours', () => {
    const c = compile({ startDate: '2026-06-02', endDate: '2026-06-03' }, -5)!;
    expect(c.timezone).toBe(-5);
    // 00:00 in UTC-5 is 05:00 UTC
    expect(c.flightStartHour * HOUR).toBe(Date.UTC(2026, 5, 2, 5));
    expect(c.flightEndHour * HOUR).toBe(Date.UTC(2026, 5, 4, 5));
    expect(Number.isInteger(c.flightStartHour) && Number.isInteger(c.flightEndHour)).toBe(true);

    expect(refusalAt(c, Date.UTC(2026, 5, 2, 5) - 1)).toBe('flight_not_started');
    expect(refusalAt(c, Date.UTC(2026, 5, 2, 5))).toBe('past_the_flight_checks');
    expect(refusalAt(c, Date.UTC(2026, 5, 4, 5) - 1)).toBe('past_the_flight_checks');
    expect(refusalAt(c, Date.UTC(2026, 5, 4, 5))).toBe('flight_ended');
  });

  it('without an end date flies on, and is its own delivery limits', () => {
    const c = compile({ startDate: '2026-01-01', endDate: null }, 3)!;
    expect(c.flightEndHour).toBe(OPEN_FLIGHT_END);
    expect(refusalAt(c, Date.UTC(2100, 0, 1))).toBe('past_the_flight_checks');
    expect(c).toMatchObject({
      id: 40,
      timezone: 3,
      dailyBudget: 'unlimited',
      totalBudget: 'unlimited',
      pacing: 'even',
      frequencyCap: null,
    });
  });

  it('is left out once its flight is over', () => {
    expect(compile({ startDate: '2026-05-01', endDate: '2026-05-31' }, 0)).toBeUndefined();
    // the last day is still on in a zone behind UTC: 24:00 of May 31 in UTC-12 is June 1, 12:00 UTC (NOW)
    expect(compile({ startDate: '2026-05-01', endDate: '2026-05-31' }, -12)).toBeUndefined();
    expect(compile({ startDate: '2026-05-01', endDate: '2026-06-01' }, 0)).toBeDefined();
  });
});

describe("campaigns' creatives", () => {
  it("share one list per tenant and creatives, and never take another tenant's creative", () => {
    const row = (id: number, tenantId: number) =>
      campaignFacts(
        parseCampaignRow({
          ...storedRow(id, {
            startDate: '2026-01-01',
            endDate: null,
            bidCpm: 5_000_000,
            creativeIds: [10],
            channelScope: 'all',
          }),
          tenantId,
        })!,
      );
    const rows = [row(41, 1), row(42, 1), row(43, 2)];
    // the facts kept between builds share the list of ids
    expect(rows[0]!.creativeIds).toBe(rows[1]!.creativeIds);
    expect(rows[0]!.creativeIds).toBe(rows[2]!.creativeIds);
    const built = compileCampaigns(rows, owners(0), compileCreatives([creative], owners(0)), new Map(), NOW);
    expect(built.get(41)!.creatives).toBe(built.get(42)!.creatives);
    expect(built.get(41)!.creatives.map((x) => x.id)).toEqual([10]);
    // creative 10 is tenant 1's: tenant 2's campaign naming it has nothing to serve and is left out
    expect(built.has(43)).toBe(false);
  });
});

describe('the campaigns step in slices', () => {
  it('yields every SLICE_ROWS rows and makes what the step at once makes, index included', () => {
    const rows = Array.from({ length: 2 * SLICE_ROWS + 500 }, (_, i) =>
      campaignFacts(
        parseCampaignRow({
          ...storedRow(100 + i, {
            startDate: '2026-01-01',
            endDate: null,
            bidCpm: 1_000_000 + i,
            creativeIds: [10],
            channelScope: 'all',
          }),
          tenantId: 1,
        })!,
      ),
    );
    const creatives = compileCreatives([creative], owners(0));
    const step = compileCampaignSlices(rows, owners(0), creatives, new Map(), NOW);
    let pauses = 0;
    let r = step.next();
    for (; !r.done; r = step.next()) pauses++;
    expect(pauses).toBe(2);
    const atOnceMade = compileCampaigns(rows, owners(0), creatives, new Map(), NOW);
    expect([...r.value.keys()]).toEqual([...atOnceMade.keys()]);
    expect(r.value.get(100 + SLICE_ROWS)!.bidCpm).toBe(atOnceMade.get(100 + SLICE_ROWS)!.bidCpm);

    // the index: one tenant's campaigns are one slice, whatever their number; a second tenant starts another
    const index = indexCampaignSlices([...r.value.values()]);
    let indexPauses = 0;
    let x = index.next();
    for (; !x.done; x = index.next()) indexPauses++;
    expect(indexPauses).toBe(0);
    expect(x.value.get(1)!.items.length).toBe(rows.length);
  });
});
