import { createServer, maxHeaderSize } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  CASE_CLASSES,
  check,
  type Disagreement,
  generate,
  inputSeed,
  laneReads,
  llhttpReads,
  newTally,
} from './edgeLaneFuzz.js';
import { DEFAULT_LIMITS, headLimits } from './edgeLaneHead.js';

/**
 * The lane's reading held to llhttp's on generated and mutated requests (http/edgeLaneFuzz.ts:
 * every class of input, each read whole and cut at every boundary). EDGE_LANE_FUZZ_INPUTS raises
 * the count (bench/edgeLaneFuzz.ts runs a million); EDGE_LANE_FUZZ_SEED picks another run. A
 * disagreement names its seed and bytes: `generate(seed)` gives the input again.
 */
const INPUTS = Number(process.env.EDGE_LANE_FUZZ_INPUTS ?? 12_000);
const SEED = Number(process.env.EDGE_LANE_FUZZ_SEED ?? 20_261_128);
const POLICY = { every: 256, sample: 64 };

describe('the edge lane against llhttp', () => {
  it("reads llhttp's readings of Object.prototype's names, repeated headers and the limits node:http sets", () => {
    const limits = DEFAULT_LIMITS;
    const names = Object.getOwnPropertyNames(Object.prototype).filter((n) => n !== '__proto__');
    const head = `GET / HTTP/1.1\r\nHost: x\r\n${names.map((n) => `${n}: evil\r\n`).join('')}Constructor: again\r\nSet-Cookie: a\r\nset-cookie: b\r\nCookie: c\r\nCookie: d\r\nUser-Agent: first\r\nUser-Agent: second\r\n\r\n`;
    const bytes = Buffer.from(head);
    const lane = laneReads([bytes], limits);
    expect(lane.end).toBe('idle');
    expect(lane.requests[0]!.headers).toEqual(llhttpReads([bytes], limits).requests[0]!.headers);
    expect(Object.fromEntries(lane.requests[0]!.headers)).toMatchObject({
      constructor: 'evil, again',
      tostring: 'evil',
      'set-cookie': ['a', 'b'],
      cookie: 'c; d',
      'user-agent': 'first',
    });
    // a head over node:http's limit, or with more lines than it keeps, is node:http's
    const small = { ...limits, maxHeadBytes: 40 };
    expect(laneReads([Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(30)}\r\n\r\n`)], small).end).toBe(
      'handover',
    );
    expect(
      laneReads([Buffer.from('GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n')], { ...limits, maxHeaders: 2 }).end,
    ).toBe('handover');
    expect(
      laneReads([Buffer.from('GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\n\r\n')], { ...limits, maxHeaders: 2 }).end,
    ).toBe('idle');
  });

  it("reads with the limits node:http reads the server's requests with", () => {
    expect(headLimits(createServer())).toMatchObject({ maxHeadBytes: maxHeaderSize, maxHeaders: 1000 });
    expect(headLimits(createServer({ maxHeaderSize: 2000 }))).toMatchObject({ maxHeadBytes: 2000 });
    const server = createServer();
    server.maxHeadersCount = 5;
    expect(headLimits(server).maxHeaders).toBe(5);
    server.maxHeadersCount = 0;
    expect(headLimits(server).maxHeaders).toBe(0);
  });

  it(
    `reads ${INPUTS} generated requests as llhttp does, however they are cut, and hands node:http the rest whole`,
    () => {
      const tally = newTally();
      const found: Disagreement[] = [];
      for (let i = 0; i < INPUTS && found.length < 5; i++) {
        const disagreement = check(generate(inputSeed(SEED, i)), POLICY, tally);
        if (disagreement) found.push(disagreement);
      }
      expect(found).toEqual([]);
      // every class was generated, mutated or not, and the lane took requests, handed over and refused
      for (const kind of CASE_CLASSES)
        expect(tally.byClass[kind], kind).toBeGreaterThan(INPUTS / CASE_CLASSES.length / 2);
      expect(tally.mutated).toBeGreaterThan(INPUTS / 4);
      expect(tally.laneRequests).toBeGreaterThan(INPUTS / 4);
      for (const end of ['handover', 'refused', 'waiting', 'idle'] as const)
        expect(tally.byEnd[end], end).toBeGreaterThan(INPUTS / 500);
    },
    30_000 + INPUTS * 20,
  );
});
