import {
  ChannelInput,
  parseChannelRow,
  parseDemandTagRow,
  SeededRandom,
  type SkipSink,
  type StoredRow,
  TagInput,
} from '@adplane/shared';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, buildTestApp, forEachStore, login } from '../../../test/helpers.js';
import { ParsedRows } from './parsedRows.js';
import { channelFacts, tagFacts } from './sharedValues.js';
import { plainChannel, plainTag, readChannel, readTag } from './supplyRead.js';

/**
 * The edge reads demand tags and channels without their schemas when the document is plain
 * (supplyRead.ts): on generated documents and mutations of them (each field given values of other
 * types, at and past its bounds, lists with repeats or too long), and on every row a real store
 * holds, what it reads must be what the schema gives (as the snapshot keeps it: tagFacts,
 * channelFacts), and a document the schema refuses must be refused with the schema's reason.
 */

/** Values each field is given in turn: of every type the schemas meet, at and past their bounds. */
const ODD: unknown[] = [
  undefined,
  null,
  0,
  -0,
  -1,
  1,
  1.5,
  49,
  50,
  100,
  101,
  10_000,
  10_001,
  2 ** 53,
  1e15,
  1e15 + 1,
  '5',
  '',
  '  ',
  'unlimited',
  'VAST',
  'RTB',
  'PreBid',
  'ctv',
  'display',
  'priority',
  'auction',
  'second',
  '4.0',
  '1.0',
  true,
  false,
  [],
  {},
  [1, 1],
  [3, 2],
  [0],
  ['1'],
  Array.from({ length: 1001 }, (_, i) => i + 1),
  { type: 'cpm', cpm: 2_000_000 },
  { type: 'cpm', cpm: -1 },
  { type: 'cpm', cpm: 1.5 },
  { type: 'revshare', percent: 100 },
  { type: 'revshare', percent: 100.5 },
  { type: 'revshare', percent: 12.5, extra: 1 },
  { type: 'flat', amount: 1 },
  { placement_id: 1 },
  [{ tagId: 1 }],
  [{ tagId: 1, priority: 2, extra: true }],
  [{ tagId: 1 }, { tagId: 1, priority: 3 }],
  [{ tagId: 0 }],
  [{ tagId: 2, priority: 101 }],
  [{ tagId: 2, priority: null }],
  [null],
  Array.from({ length: 201 }, (_, i) => ({ tagId: i + 1 })),
  'https://dsp.example.com/bid',
  '  https://dsp.example.com/bid  ',
  'HTTP://DSP.EXAMPLE.COM/VAST?w={{width}}',
  'ftp://dsp.example.com/',
  'https://sync.example.com/u?uid=$UID',
  'https://sync.example.com/u',
  'Example.COM',
  ' example.com ',
  'not a domain',
  'a'.repeat(65),
  'a'.repeat(2049),
  'a'.repeat(4097),
  'a'.repeat(256),
  ' spaced name ',
  { schema: { fields: ['mediaType'] }, values: { video: 2.5 } },
  { schema: { fields: ['mediaType'] }, values: { 'a|b': 2.5 } },
];

/** One generated document a field at a time, then mutated in one to three of `fields`. */
function documents(
  seed: number,
  count: number,
  base: (rnd: SeededRandom) => Record<string, unknown>,
  fields: readonly string[],
): StoredRow[] {
  const rnd = new SeededRandom(seed);
  const rows: StoredRow[] = [];
  for (let i = 0; i < count; i++) {
    const data = base(rnd);
    let name: string | undefined = rnd.pick(['Sports run', 'x', undefined]);
    // most documents mutated in one to three fields
    const mutations = i % 4 === 0 ? 0 : 1 + rnd.int(3);
    for (let m = 0; m < mutations; m++) {
      const field = rnd.pick([...fields, 'name']);
      const value = rnd.pick(ODD);
      if (field === 'name') name = typeof value === 'string' ? value : undefined;
      else data[field] = value;
    }
    if (i % 97 === 0) data.name = 'From the document';
    if (i % 53 === 0) data.unknownField = 'dropped by the schema';
    rows.push({
      id: 1000 + i,
      tenantId: rnd.pick([3, null]),
      uid: rnd.pick([null, 'a1b2c3d4e5f60718']),
      ...(name === undefined ? {} : { name }),
      status: rnd.pick([0, 1, 2]),
      archived: rnd.chance(0.1),
      data: i % 211 === 0 ? rnd.pick([null, [], 'text']) : data,
    });
  }
  return rows;
}

const TAG_FIELDS = Object.keys(TagInput.in.shape).filter((f) => f !== 'name' && f !== 'status');
const CHANNEL_FIELDS = Object.keys(ChannelInput.shape).filter((f) => f !== 'name' && f !== 'status');

function tagDocument(rnd: SeededRandom): Record<string, unknown> {
  const integration = rnd.pick(['VAST', 'RTB', 'RTB', undefined]);
  return {
    integration,
    // each integration's address given, mostly (its schema refuses a VAST tag without a VAST URL)
    vastUrl: rnd.pick([integration === 'RTB' ? '' : 'https://ads.example.com/vast?w={{width}}', undefined]),
    endpoint: rnd.pick([integration === 'RTB' ? 'http://127.0.0.1:9/0/1' : '', 'https://dsp.example.com/rtb']),
    partner: rnd.pick(['', undefined]),
    partnerParams: rnd.pick([{}, undefined]),
    price: rnd.pick([{ type: 'revshare', percent: 80 }, { type: 'cpm', cpm: 2_500_000 }, undefined]),
    floorCpm: rnd.pick([0, 500_000, undefined]),
    timeoutMs: rnd.pick([1000, 300, undefined]),
    qpsLimit: rnd.pick(['unlimited', 200, 0, undefined]),
    dailyRequestCap: rnd.pick(['unlimited', 1_000_000, undefined]),
    dailyImpCap: rnd.pick(['unlimited', 5000, undefined]),
    priority: rnd.pick([5, 1, 100, undefined]),
    targetingId: rnd.pick([null, undefined, 4]),
    advertiserId: rnd.pick([null, undefined, 9]),
    userSyncUrl: rnd.pick(['', undefined, 'https://sync.example.com/u?r=${REDIRECT}']),
  };
}

function channelDocument(rnd: SeededRandom): Record<string, unknown> {
  return {
    subpublisherId: rnd.pick([null, undefined, 6]),
    integration: rnd.pick(['VAST', 'RTB', 'PreBid', undefined]),
    environment: rnd.pick(['web', 'app', 'ctv', undefined]),
    format: rnd.pick(['video', 'display', undefined]),
    domain: rnd.pick(['', undefined, 'news.example.com']),
    floorCpm: rnd.pick([0, 1_000_000, undefined]),
    floorRules: rnd.pick([null, undefined]),
    payout: rnd.pick([{ type: 'revshare', percent: 70 }, { type: 'cpm', cpm: 1_000_000 }, undefined]),
    targetingId: rnd.pick([null, undefined, 4]),
    demandMode: rnd.pick(['priority', 'auction', undefined]),
    vastVersion: rnd.pick(['4.2', '3.0', undefined]),
    auctionPrice: rnd.pick(['first', 'second', undefined]),
    timeoutMs: rnd.pick([1500, 50, 10_000, undefined]),
    demand: rnd.pick([
      [],
      undefined,
      [
        { tagId: 1, priority: 1 },
        { tagId: 2, priority: 2 },
      ],
      [{ tagId: 7 }],
    ]),
    ivtIds: rnd.pick([[], undefined, [3]]),
    blockIVT: rnd.pick([false, true, undefined]),
  };
}

/** The row read both ways agrees, the reason of a refused one too; whether it was read without the schema. */
function agree(kind: 'tags' | 'channels', row: StoredRow): boolean {
  const schemaSink: SkipSink = { skipped: [] };
  const sink: SkipSink = { skipped: [] };
  const context = JSON.stringify(row);
  if (kind === 'tags') {
    const t = parseDemandTagRow(row, schemaSink);
    expect(readTag(row, sink), context).toEqual(t && tagFacts(t));
  } else {
    const c = parseChannelRow(row, schemaSink);
    expect(readChannel(row, sink), context).toEqual(c && channelFacts(c));
  }
  expect(sink.skipped, context).toEqual(schemaSink.skipped);
  return !!(kind === 'tags' ? plainTag(row) : plainChannel(row));
}

describe('tags and channels read without the schema', () => {
  it('read what the schema reads for demand tags, and refuse what it refuses with its reason', () => {
    let plain = 0;
    for (const row of documents(11, 8_000, tagDocument, TAG_FIELDS)) if (agree('tags', row)) plain++;
    // the plain documents (a quarter unmutated, and mutations the schema takes) were read without it
    expect(plain).toBeGreaterThan(1_200);
  });

  it('read what the schema reads for channels, and refuse what it refuses with its reason', () => {
    let plain = 0;
    for (const row of documents(12, 8_000, channelDocument, CHANNEL_FIELDS)) if (agree('channels', row)) plain++;
    expect(plain).toBeGreaterThan(1_200);
  });
});

/** Every stored row of a real store (the demo workspace and rows made through the API), read as a build reads it. */
forEachStore((t) => {
  describe('tags and channels of a store read without the schema', () => {
    let app: FastifyInstance;
    beforeAll(async () => {
      app = await buildTestApp(t.store);
      const demand = await login(app, 'demand');
      const made = [
        {
          url: '/api/demand/tags',
          payload: {
            name: 'Sync partner',
            integration: 'RTB',
            endpoint: ' https://bid.example.com/rtb ',
            userSyncUrl: 'https://sync.example.com/u?r=${REDIRECT}',
            qpsLimit: 50,
          },
        },
        {
          url: '/api/demand/channels',
          payload: {
            name: 'Floors by size',
            domain: 'News.Example.com',
            floorRules: { schema: { fields: ['mediaType'] }, values: { video: 2.5, '*': 1 }, default: 0.5 },
            payout: { type: 'cpm', cpm: 1_500_000 },
          },
        },
      ];
      for (const { url, payload } of made) {
        const res = await as(app, demand, { method: 'POST', url, payload });
        expect(res.statusCode, res.body).toBe(201);
      }
    });
    afterAll(() => app.close());

    for (const kind of ['tags', 'channels'] as const)
      it(`reads every stored ${kind === 'tags' ? 'demand tag' : 'channel'} as the schema does`, async () => {
        let plain = 0;
        let read = 0;
        const rows = new ParsedRows(kind, (row) => {
          read++;
          if (agree(kind, row)) plain++;
          return null;
        });
        await rows.load(t.store.db, { skipped: [] });
        expect(read).toBeGreaterThan(3);
        // the demo's VAST and RTB tags and its channels are plain; its Prebid tags are the schema's
        expect(plain).toBeGreaterThan(read / 2);
      });
  });
});
