import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkTraffic, createTrafficCheckState, type TrafficFacts } from './checkTraffic.js';
import { IVT_REASONS, type TrafficVerdict } from './reasons.js';

/**
 * Pre-bid IVT cases as JSON files (fixtures/*.json): the request's facts, and the expected flag and
 * reason. Facts a file leaves out take the defaults below (a VAST tag call with nothing stated).
 * `repeat` sends the same request `times` times, `everyMs` apart (optionally round-robin over
 * `sources` or `ips`): every request before the last must be clean, the last one is the expectation.
 * Add a case by adding a file.
 */
interface Fixture {
  description: string;
  facts: Partial<TrafficFacts>;
  repeat?: { times: number; everyMs: number; sources?: string[]; ips?: string[] };
  expect: TrafficVerdict;
}

const DEFAULT_FACTS: TrafficFacts = {
  origin: 'vast',
  source: 'channel-1',
  ip: '',
  ipFromConnection: false,
  ua: '',
  environment: '',
  bundle: '',
  storeUrl: '',
  deviceId: '',
  deviceIdType: '',
  lmt: null,
  deviceType: 0,
  os: '',
  now: Date.UTC(2026, 10, 23, 12),
};

const DIR = fileURLToPath(new URL('./fixtures/', import.meta.url));
const FIXTURES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const read = (file: string): Fixture => JSON.parse(readFileSync(DIR + file, 'utf8')) as Fixture;

describe('pre-bid IVT fixtures', () => {
  it.each(FIXTURES)('%s', (file) => {
    const f = read(file);
    const state = createTrafficCheckState();
    const facts: TrafficFacts = { ...DEFAULT_FACTS, ...f.facts };
    const times = f.repeat?.times ?? 1;
    let verdict: TrafficVerdict = { ivt: false, reason: '' };
    for (let i = 0; i < times; i++) {
      const r = f.repeat;
      const request = {
        ...facts,
        now: facts.now + i * (r?.everyMs ?? 0),
        source: r?.sources ? r.sources[i % r.sources.length]! : facts.source,
        ip: r?.ips ? r.ips[i % r.ips.length]! : facts.ip,
      };
      verdict = checkTraffic(request, state);
      if (i < times - 1) expect({ request: i + 1, ...verdict }).toEqual({ request: i + 1, ivt: false, reason: '' });
    }
    expect(verdict).toEqual(f.expect);
  });

  it('cover every reason, and clean traffic from each kind of device', () => {
    const fixtures = FIXTURES.map(read);
    const reasons = new Set(fixtures.map((f) => f.expect.reason).filter(Boolean));
    expect([...reasons].sort()).toEqual(Object.keys(IVT_REASONS).sort());
    const cleanUas = fixtures.filter((f) => !f.expect.ivt).map((f) => f.facts.ua ?? '');
    for (const marker of [
      'Roku/',
      'AFT',
      'Tizen',
      'Web0S',
      'Apple TV',
      'CrKey',
      'iPhone',
      'Windows NT',
      'Android 13; SM-S918B Build',
    ]) {
      expect(
        cleanUas.some((ua) => ua.includes(marker)),
        marker,
      ).toBe(true);
    }
  });
});

describe('checkTraffic', () => {
  const clean: TrafficFacts = {
    ...DEFAULT_FACTS,
    ua: 'Roku/DVP-12.5 (12.5.0.4178)',
    ip: '73.162.18.44',
    environment: 'ctv',
    bundle: '151908',
  };

  it('answers shared frozen verdicts (nothing allocated per request)', () => {
    const a = checkTraffic(clean);
    expect(a).toBe(checkTraffic({ ...clean }));
    expect(Object.isFrozen(a)).toBe(true);
    const flagged = checkTraffic({ ...clean, ua: '' });
    expect(flagged).toBe(checkTraffic({ ...clean, ua: '', ip: '1.2.3.4' }));
  });

  it('leaves the rate rule out without a state, and when told to', () => {
    const noRate = createTrafficCheckState({ rate: false });
    for (let i = 0; i < 100; i++) {
      expect(checkTraffic({ ...clean, deviceId: '6d92078a-8246-4ba4-ae5b-76104861e7dc' }).ivt).toBe(false);
      expect(checkTraffic({ ...clean, deviceId: '6d92078a-8246-4ba4-ae5b-76104861e7dc' }, noRate).ivt).toBe(false);
    }
  });

  it('takes its rate limits from the state', () => {
    const strict = createTrafficCheckState({ rate: { maxPerDevice: 2, windowMs: 1_000 } });
    const f = { ...clean, deviceId: '6d92078a-8246-4ba4-ae5b-76104861e7dc' };
    expect(checkTraffic(f, strict).ivt).toBe(false);
    expect(checkTraffic({ ...f, now: f.now + 10 }, strict).ivt).toBe(false);
    expect(checkTraffic({ ...f, now: f.now + 20 }, strict).reason).toBe('device_rate');
    // two windows later the device starts afresh
    expect(checkTraffic({ ...f, now: f.now + 2_100 }, strict).ivt).toBe(false);
  });
});
