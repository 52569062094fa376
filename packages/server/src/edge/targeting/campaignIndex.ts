import { type RequestContext } from '../request/context.js';
import { Bitset, narrow } from './bitset.js';
import { type CodeSet, type CompiledTargeting } from './compiledTargeting.js';

/**
 * Inverted bit sets over one tenant's campaigns, per targeting dimension, so that finding the
 * campaigns a request may see costs a few word-wise ANDs instead of a scan: for each dimension,
 * `any` holds the campaigns with no include rule there, `include[v]` those that include v and
 * `exclude[v]` those that exclude v. What the index cannot decide alone (US states, lists,
 * categories, day-parts, flight, budget) is checked on the few campaigns that survive.
 */
interface DimensionIndex {
  any: Bitset;
  include: Map<string, Bitset>;
  exclude: Map<string, Bitset>;
}

type Dimension = 'country' | 'device' | 'os' | 'browser' | 'tvFamily' | 'playerSize';
const DIMENSIONS: Dimension[] = ['country', 'device', 'os', 'browser', 'tvFamily', 'playerSize'];

function ruleOf(t: CompiledTargeting | null, d: Dimension): CodeSet | null {
  if (!t) return null;
  switch (d) {
    case 'country':
      if (t.geo.include.size) return { include: true, values: t.geo.include };
      return t.geo.exclude.size ? { include: false, values: t.geo.exclude } : null;
    case 'device':
      return t.devices;
    case 'os':
      return t.os;
    case 'browser':
      return t.browsers;
    case 'tvFamily':
      return t.tvFamilies;
    case 'playerSize':
      return t.playerSizes ? { include: true, values: t.playerSizes } : null;
  }
}

function valueOf(ctx: RequestContext, d: Dimension): string {
  switch (d) {
    case 'country':
      return ctx.geo.country;
    case 'device':
      return ctx.platform.device;
    case 'os':
      return ctx.platform.os;
    case 'browser':
      return ctx.platform.browser;
    case 'tvFamily':
      return ctx.platform.tvFamily;
    case 'playerSize':
      return ctx.playerSize;
  }
}

export class CampaignIndex<T> {
  private readonly dims = new Map<Dimension, DimensionIndex>();
  private readonly all: Bitset;

  constructor(readonly items: readonly T[], targetingOf: (item: T) => CompiledTargeting | null) {
    const n = items.length;
    this.all = new Bitset(n);
    for (let i = 0; i < n; i++) this.all.set(i);
    for (const d of DIMENSIONS) {
      const index: DimensionIndex = { any: new Bitset(n), include: new Map(), exclude: new Map() };
      const bits = (map: Map<string, Bitset>, v: string) => {
        let b = map.get(v);
        if (!b) map.set(v, (b = new Bitset(n)));
        return b;
      };
      items.forEach((item, i) => {
        // Country exclusion also applies when there is an include list: keep both sides.
        const t = targetingOf(item);
        const rule = ruleOf(t, d);
        if (!rule || !rule.include) index.any.set(i);
        if (rule) for (const v of rule.values) bits(rule.include ? index.include : index.exclude, v).set(i);
        if (d === 'country' && t?.geo.include.size && t.geo.exclude.size) for (const v of t.geo.exclude) bits(index.exclude, v).set(i);
      });
      this.dims.set(d, index);
    }
  }

  /** Positions whose indexed dimensions pass the request, as a bit set over `items`. */
  private passing(ctx: RequestContext): Uint32Array {
    const out = new Uint32Array(this.all.words);
    for (const d of DIMENSIONS) {
      const index = this.dims.get(d)!;
      const v = valueOf(ctx, d);
      narrow(out, index.any.words, v ? index.include.get(v)?.words : undefined, v ? index.exclude.get(v)?.words : undefined);
    }
    return out;
  }

  /**
   * Visits the items whose indexed dimensions pass the request, in their original order, until
   * `visit` answers false; returns how many passed the index (visited or not). Callers that keep
   * items ranked (campaigns by bid) stop as soon as they have what they need.
   */
  scan(ctx: RequestContext, visit: (item: T) => boolean): number {
    const out = this.passing(ctx);
    let passed = 0;
    for (let k = 0; k < out.length; k++) passed += popcount(out[k]!);
    for (let k = 0; k < out.length; k++) {
      let word = out[k]!;
      while (word !== 0) {
        const low = word & -word;
        if (!visit(this.items[(k << 5) + 31 - Math.clz32(low)]!)) return passed;
        word ^= low;
      }
    }
    return passed;
  }

  /** Items whose indexed dimensions pass the request, in their original order. */
  candidates(ctx: RequestContext): T[] {
    const result: T[] = [];
    this.scan(ctx, (item) => {
      result.push(item);
      return true;
    });
    return result;
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
