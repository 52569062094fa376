import { describe, expect, it } from 'vitest';
import {
  formatFixed,
  NAMED_GRANULARITIES,
  type PriceGranularity,
  priceBucket,
  readGranularity,
} from './priceGranularity.js';

const g = (name: string): PriceGranularity => NAMED_GRANULARITIES[name]!;
const custom = (value: unknown): PriceGranularity => {
  const read = readGranularity(value, 'pg');
  if (!read.ok) throw new Error(`${read.field} ${read.reason}`);
  return read.value;
};

// Prebid Server's own cases (exchange/price_granularity_test.go), so that hb_pb matches it to the digit.
const custom1 = custom({
  precision: 2,
  ranges: [
    { max: 5, increment: 0.03 },
    { max: 10, increment: 0.1 },
  ],
});
const custom2 = custom({
  precision: 2,
  ranges: [
    { max: 1.5, increment: 1 },
    { max: 10, increment: 1.2 },
  ],
});

describe('priceBucket (hb_pb)', () => {
  it.each([
    [1.87, 'low', '1.50'],
    [1.87, 'medium', '1.80'],
    [1.87, 'med', '1.80'],
    [1.87, 'high', '1.87'],
    [1.87, 'auto', '1.85'],
    [1.87, 'dense', '1.87'],
    [5.72, 'low', '5.00'],
    [5.72, 'medium', '5.70'],
    [5.72, 'high', '5.72'],
    [5.72, 'auto', '5.70'],
    [5.72, 'dense', '5.70'],
    [0, 'low', '0.00'],
    [Number.MAX_VALUE, 'low', '5.00'],
    // above the top max: capped at it
    [25, 'medium', '20.00'],
    [21, 'dense', '20.00'],
    // a boundary price takes the upper range's increment, counted from that range's min
    [5, 'auto', '5.00'],
    [12.74, 'auto', '12.50'],
    [9.99, 'dense', '9.50'],
    [4.2, 'medium', '4.20'],
  ])('%s in %s is %s', (cpm, name, bucket) => {
    expect(priceBucket(cpm, g(name))).toBe(bucket);
  });

  it('floors in doubles as Prebid Server does, quirks included', () => {
    // 0.3 / 0.1 is 2.9999999999999996 in IEEE doubles: Go floors it to 2 too
    expect(priceBucket(0.3, g('medium'))).toBe('0.20');
  });

  it('reads custom granularities: each range starts at the previous max, whatever min says', () => {
    expect(priceBucket(1.87, custom1)).toBe('1.86');
    expect(priceBucket(5.72, custom1)).toBe('5.70');
    expect(priceBucket(10, custom1)).toBe('10.00');
    expect(priceBucket(1.87, custom2)).toBe('1.50');
    expect(priceBucket(5.72, custom2)).toBe('5.10');
    expect(priceBucket(5, custom2)).toBe('3.90');
    expect(priceBucket(10, custom2)).toBe('9.90');
    expect(
      custom({
        ranges: [
          { min: 7, max: 5, increment: 0.05 },
          { min: 99, max: 20, increment: 1 },
        ],
      }).ranges,
    ).toEqual([
      { min: 0, max: 5, increment: 0.05 },
      { min: 5, max: 20, increment: 1 },
    ]);
  });

  it('prints the precision asked, rounding to nearest as Go does', () => {
    const one = (precision: number) => custom({ precision, ranges: [{ max: 5, increment: 0.05 }] });
    expect(priceBucket(1.876, one(0))).toBe('2');
    expect(priceBucket(1.876, one(2))).toBe('1.85');
    expect(priceBucket(1.876, one(15))).toBe('1.850000000000000');
    expect(priceBucket(1.876, custom({ ranges: [{ max: 5, increment: 1.877 }] }))).toBe('0.00');
    // default precision 2
    expect(priceBucket(3.333, custom({ ranges: [{ max: 10, increment: 0.01 }] }))).toBe('3.33');
  });

  it('has no bucket for a price no range holds', () => {
    expect(priceBucket(-1.876, g('low'))).toBe('');
  });

  it('defaults an object without ranges to medium', () => {
    expect(custom({})).toEqual(g('medium'));
    expect(custom({ precision: 3, ranges: [] })).toEqual(g('medium'));
  });

  it('refuses what Prebid Server refuses, naming the field', () => {
    const bad = (value: unknown) => {
      const r = readGranularity(value, 'ext.prebid.targeting.pricegranularity');
      return r.ok ? null : `${r.field}: ${r.reason}`;
    };
    expect(bad('fine')).toMatch(/^ext\.prebid\.targeting\.pricegranularity: must be one of low, medium/);
    expect(bad(7)).toMatch(/granularity name or an object/);
    expect(bad({ precision: -1, ranges: [{ max: 5, increment: 1 }] })).toMatch(
      /precision: must be an integer from 0 to 15/,
    );
    expect(bad({ precision: 16, ranges: [{ max: 5, increment: 1 }] })).toMatch(/precision/);
    expect(bad({ ranges: [{ max: 5, increment: 0 }] })).toMatch(/ranges\[0\]\.increment: must be a number above 0/);
    expect(
      bad({
        ranges: [
          { max: 5, increment: 1 },
          { max: 5, increment: 1 },
        ],
      }),
    ).toMatch(/ranges\[1\]\.max: must be above/);
    expect(bad({ ranges: [{ max: '5', increment: 1 }] })).toMatch(/ranges\[0\]\.max: must be a number/);
    expect(bad({ ranges: 'x' })).toMatch(/ranges: must be an array/);
  });
});

describe('formatFixed', () => {
  it('rounds an exact half to even, as strconv.FormatFloat does', () => {
    expect(formatFixed(2.5, 0)).toBe('2');
    expect(formatFixed(3.5, 0)).toBe('4');
    expect(formatFixed(0.5, 0)).toBe('0');
    expect(formatFixed(0.125, 2)).toBe('0.12');
    expect(formatFixed(0.375, 2)).toBe('0.38');
    // 1.005 is 1.00499999999999989... as a double: down
    expect(formatFixed(1.005, 2)).toBe('1.00');
    expect(formatFixed(9.999, 2)).toBe('10.00');
    expect(formatFixed(20, 2)).toBe('20.00');
    expect(formatFixed(-1.5, 0)).toBe('-2');
  });
});
