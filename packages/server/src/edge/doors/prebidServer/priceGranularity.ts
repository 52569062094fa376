import { isObj } from '../../ortb/bidRequestReader.js';

/**
 * Price granularity of the Prebid Server auction (`ext.prebid.targeting.pricegranularity`): the
 * price bucket a bid's `hb_pb` key carries, so that the publisher's ad server needs one line item
 * per bucket, not per cent. The rules are Prebid Server's (Go, exchange/price_granularity.go and the
 * request defaults of endpoints/openrtb2): a named granularity or a custom one of ranges; each
 * range starts where the previous one ends (a stated `min` is overwritten); the price is floored to
 * its range's increment counted from the range's min, a price above the top range's max is capped
 * at that max, and the bucket is printed with `precision` decimals (2 unless stated, at most 15).
 * The arithmetic is plain IEEE doubles, as Go's, so the buckets match Prebid Server's to the digit,
 * float quirks included (0.30 in `medium` is "0.20" there too).
 */
interface GranularityRange {
  min: number;
  max: number;
  increment: number;
}

export interface PriceGranularity {
  precision: number;
  ranges: readonly GranularityRange[];
}

const DEFAULT_PRECISION = 2;
const MAX_PRECISION = 15;

const named = (...ranges: [number, number][]): PriceGranularity => {
  let min = 0;
  return {
    precision: DEFAULT_PRECISION,
    ranges: ranges.map(([max, increment]) => {
      const r = { min, max, increment };
      min = max;
      return r;
    }),
  };
};

/** Prebid's named granularities (the same buckets Prebid.js uses on the page). */
export const NAMED_GRANULARITIES: Readonly<Record<string, PriceGranularity>> = {
  low: named([5, 0.5]),
  medium: named([20, 0.1]),
  med: named([20, 0.1]),
  high: named([20, 0.01]),
  auto: named([5, 0.05], [10, 0.1], [20, 0.5]),
  dense: named([3, 0.01], [8, 0.05], [20, 0.5]),
};

/** What Prebid Server uses when targeting is asked without a granularity. */
export const DEFAULT_GRANULARITY = NAMED_GRANULARITIES.medium!;

export type GranularityRead = { ok: true; value: PriceGranularity } | { ok: false; field: string; reason: string };

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * A granularity from the request: a name, or `{ precision?, ranges: [{ min?, max, increment }] }`,
 * with Prebid Server's defaults (an object without ranges is `medium`) and its validation (precision
 * an integer 0..15, ranges ordered by increasing max, increments above zero).
 */
export function readGranularity(value: unknown, field: string): GranularityRead {
  if (typeof value === 'string') {
    const found = NAMED_GRANULARITIES[value];
    return found
      ? { ok: true, value: found }
      : {
          ok: false,
          field,
          reason: `must be one of ${Object.keys(NAMED_GRANULARITIES).join(', ')} or an object with ranges`,
        };
  }
  if (!isObj(value)) return { ok: false, field, reason: 'must be a granularity name or an object with ranges' };
  const { precision, ranges } = value;
  if (
    precision !== undefined &&
    precision !== null &&
    (!Number.isInteger(precision) || (precision as number) < 0 || (precision as number) > MAX_PRECISION)
  ) {
    return { ok: false, field: `${field}.precision`, reason: `must be an integer from 0 to ${MAX_PRECISION}` };
  }
  if (ranges !== undefined && ranges !== null && !Array.isArray(ranges))
    return { ok: false, field: `${field}.ranges`, reason: 'must be an array' };
  if (!ranges || ranges.length === 0) return { ok: true, value: DEFAULT_GRANULARITY };
  if (ranges.length > 100) return { ok: false, field: `${field}.ranges`, reason: 'must hold at most 100 ranges' };
  const out: GranularityRange[] = [];
  let prevMax = 0;
  for (let i = 0; i < ranges.length; i++) {
    const r: unknown = ranges[i];
    const at = `${field}.ranges[${i}]`;
    if (!isObj(r)) return { ok: false, field: at, reason: 'must be an object' };
    if (!isNum(r.max)) return { ok: false, field: `${at}.max`, reason: 'must be a number' };
    if (!isNum(r.increment)) return { ok: false, field: `${at}.increment`, reason: 'must be a number' };
    if (r.min !== undefined && !isNum(r.min)) return { ok: false, field: `${at}.min`, reason: 'must be a number' };
    if (r.max <= prevMax)
      return {
        ok: false,
        field: `${at}.max`,
        reason: "must be above the previous range's max (ranges ordered by increasing max)",
      };
    if (r.increment <= 0) return { ok: false, field: `${at}.increment`, reason: 'must be a number above 0' };
    // Prebid Server sets each range's min to the previous max, whatever the request says.
    out.push({ min: prevMax, max: r.max, increment: r.increment });
    prevMax = r.max;
  }
  return { ok: true, value: { precision: typeof precision === 'number' ? precision : DEFAULT_PRECISION, ranges: out } };
}

/** The `hb_pb` bucket of a CPM: floored to its range's increment, capped at the top max; '' when no range holds it. */
export function priceBucket(cpm: number, granularity: PriceGranularity): string {
  let bucketMax = 0;
  let bucketMin = 0;
  let increment = 0;
  for (const r of granularity.ranges) {
    if (r.max > bucketMax) bucketMax = r.max;
    // the last range holding the price wins (a price on a boundary takes the upper range's increment)
    if (cpm >= r.min && cpm <= r.max) {
      increment = r.increment;
      bucketMin = r.min;
    }
  }
  if (cpm > bucketMax) return formatFixed(bucketMax, granularity.precision);
  if (increment > 0)
    return formatFixed(Math.floor((cpm - bucketMin) / increment) * increment + bucketMin, granularity.precision);
  return '';
}

/**
 * `x` with `precision` decimals as Go's strconv.FormatFloat(x, 'f', precision, 64) prints it:
 * correctly rounded from the double's exact value, an exact half rounding to even. (toFixed rounds
 * an exact half up, so 2.5 with no decimals would read "3" where Prebid Server says "2".)
 */
export function formatFixed(x: number, precision: number): string {
  if (!Number.isFinite(x) || Math.abs(x) >= 1e21) return x.toFixed(precision);
  const negative = x < 0;
  // 100 decimals hold the exact value of every double a price can be (its binary fraction ends well before).
  const exact = Math.abs(x).toFixed(100);
  const dot = exact.indexOf('.');
  const digits = exact.slice(0, dot) + exact.slice(dot + 1, dot + 1 + precision);
  const rest = exact.slice(dot + 1 + precision);
  const first = rest.charCodeAt(0) - 48;
  const tail = /[1-9]/.test(rest.slice(1));
  const lastOdd = (digits.charCodeAt(digits.length - 1) - 48) % 2 === 1;
  const up = first > 5 || (first === 5 && (tail || lastOdd));
  const rounded = up ? addOne(digits) : digits;
  const intLen = rounded.length - precision;
  const text = precision > 0 ? `${rounded.slice(0, intLen)}.${rounded.slice(intLen)}` : rounded;
  return negative && /[1-9]/.test(rounded) ? `-${text}` : text;
}

/** A decimal digit string plus one in its last place ("199" -> "200", "99" -> "100"). */
function addOne(digits: string): string {
  const out = digits.split('');
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] === '9') out[i] = '0';
    else {
      out[i] = String.fromCharCode(out[i]!.charCodeAt(0) + 1);
      return out.join('');
    }
  }
  return `1${out.join('')}`;
}
