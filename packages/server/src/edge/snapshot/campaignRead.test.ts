import { parseCampaignRow, type SkipSink } from '@adplane/shared';
import { describe, expect, it } from 'vitest';
import { plainCampaign, readCampaign } from './campaignRead.js';
import { campaignFacts } from './campaigns.js';

/**
 * The edge reads a campaign without the schema when its document is plain (campaignRead.ts): on
 * generated documents and on mutations of them (each field given values of other types, edge
 * dates, amounts at and past the bounds, lists with repeats or too long), what it reads must be
 * what the schema gives, and a document the schema refuses must be refused with the schema's reason.
 */

/** A small deterministic random source (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const FIELDS = [
  'advertiserId',
  'startDate',
  'endDate',
  'totalBudget',
  'dailyBudget',
  'pacing',
  'bidCpm',
  'frequencyCap',
  'targetingId',
  'creativeIds',
  'dealIds',
  'supplierIds',
  'adExchangeIds',
  'channelScope',
  'channelIds',
  'name',
] as const;

/** Values each field is given in turn: of every type the schema meets, at and past its bounds. */
const ODD: unknown[] = [
  undefined,
  null,
  0,
  -0,
  -1,
  1,
  1.5,
  2 ** 53,
  1e15,
  1e15 + 1,
  '5',
  '',
  '  ',
  'unlimited',
  'even',
  'asap',
  'fast',
  'all',
  'include',
  'exclude',
  true,
  [],
  {},
  [1, 1],
  [3, 2],
  [0],
  ['1'],
  Array.from({ length: 1000 }, (_, i) => i + 1),
  Array.from({ length: 1001 }, (_, i) => i + 1),
  '2026-01-28',
  '2026-01-31',
  '2026-02-29',
  '2028-02-29',
  '2026-02-30',
  '2026-13-01',
  '2026-1-05',
  '2026-01-05T00:00:00Z',
  { count: 3, periodHours: 24 },
  { count: 3, periodHours: 24, extra: 1 },
  { count: 0, periodHours: 24 },
  { count: 3, periodHours: 721 },
  { count: 2.5, periodHours: 2 },
  'a'.repeat(256),
  ' spaced name ',
];

forEachDocument();

function forEachDocument(): void {
  describe('a campaign read without the schema', () => {
    it('reads what the schema reads, and refuses what it refuses with its reason', () => {
      const rnd = random(7);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
      const day = () =>
        `2026-${String(1 + Math.floor(rnd() * 12)).padStart(2, '0')}-${String(1 + Math.floor(rnd() * 28)).padStart(2, '0')}`;
      let plain = 0;
      for (let i = 0; i < 20_000; i++) {
        const start = day();
        const end = pick([null, undefined, day(), start]);
        const data: Record<string, unknown> = {
          advertiserId: pick([null, undefined, 7, 12]),
          startDate: start,
          endDate: end,
          totalBudget: pick(['unlimited', undefined, 0, 50_000_000, 1e15]),
          dailyBudget: pick(['unlimited', undefined, 0, 5_000_000, 60_000_000]),
          pacing: pick(['even', 'asap', undefined]),
          bidCpm: pick([1, 2_500_000, 4_850_000, 1e15]),
          frequencyCap: pick([null, undefined, { count: 3, periodHours: 24 }]),
          targetingId: pick([null, undefined, 5]),
          creativeIds: pick([[], [1], [1, 2, 3], undefined]),
          dealIds: pick([[], undefined, [9]]),
          supplierIds: pick([[], undefined, [4, 8]]),
          adExchangeIds: pick([[], undefined, [2]]),
          ...pick([
            {},
            { channelScope: 'all', channelIds: [] },
            { channelScope: 'all' },
            { channelScope: 'include', channelIds: [11] },
            { channelScope: 'include', channelIds: [11, 12] },
            { channelScope: 'exclude', channelIds: [11] },
            { channelScope: 'exclude', channelIds: [] },
            { channelScope: 'exclude' },
          ]),
        };
        let name: string | undefined = pick(['Summer push', 'x', undefined]);
        // most documents mutated in one to three fields
        const mutations = i % 4 === 0 ? 0 : 1 + Math.floor(rnd() * 3);
        for (let m = 0; m < mutations; m++) {
          const field = pick(FIELDS);
          const value = pick(ODD);
          if (field === 'name') name = typeof value === 'string' ? value : undefined;
          else data[field] = value;
        }
        if (i % 97 === 0) data.name = 'From the document';
        const row = {
          id: 1000 + i,
          tenantId: pick([3, null]),
          uid: null,
          ...(name === undefined ? {} : { name }),
          status: pick([0, 1, 2]),
          archived: rnd() < 0.1,
          data: i % 211 === 0 ? pick([null, [], 'text']) : data,
          createdAt: '2026-11-28T10:00:00.000Z',
        };
        const schemaSink: SkipSink = { skipped: [] };
        const parsed = parseCampaignRow(row, schemaSink);
        const expected = parsed && campaignFacts(parsed, row.createdAt);
        const sink: SkipSink = { skipped: [] };
        const context = JSON.stringify(row);
        expect(readCampaign(row, sink), context).toEqual(expected);
        expect(sink.skipped, context).toEqual(schemaSink.skipped);
        if (plainCampaign(row)) plain++;
      }
      // the plain documents (a quarter unmutated, and mutations the schema takes) were read without it
      expect(plain).toBeGreaterThan(3_000);
    });
  });
}
