import { CHANNEL_SCOPES, type Limit, UNLIMITED } from '@adplane/shared';
import { type FrequencyCapRule } from '../../delivery/types.js';
import { type SlotValues } from './parsedRows.js';
import { type CampaignFacts } from './campaigns.js';

/** One shared empty list: most campaigns name no deal and no supplier. */
const NONE: number[] = [];
/** What a column holds for null (ids, tenant, advertiser, targeting, end date, creation); budgets say 'unlimited' so. */
const ABSENT = -1;

/**
 * The stored campaigns' facts kept between snapshot builds (parsedRows.ts), as columns by slot:
 * numbers in typed arrays (outside V8's heap, nothing for a full collection to mark), the few
 * values books repeat (flight days, lists of ids, frequency caps) interned once and referred to by
 * number, and only the names as strings. A book of 100,000 campaigns is then no object per
 * campaign between builds; each build reads a new facts object per row (`get`), let go after it.
 */
export class CampaignColumns implements SlotValues<CampaignFacts> {
  private capacity = 0;
  private ids = new Int32Array(0);
  private tenants = new Int32Array(0);
  private advertisers = new Int32Array(0);
  private targetings = new Int32Array(0);
  /**
   * Bit 0 set: the row is held; bit 1: status 1 (active); bit 2: archived; bit 3: even pacing;
   * bits 4-5: the channel scope, by its place in CHANNEL_SCOPES.
   */
  private flags = new Uint8Array(0);
  private startDays = new Int32Array(0);
  private endDays = new Int32Array(0);
  private createdAtMinutes = new Int32Array(0);
  private totalBudgets = new Float64Array(0);
  private dailyBudgets = new Float64Array(0);
  private bids = new Float64Array(0);
  private creativeLists = new Int32Array(0);
  private dealLists = new Int32Array(0);
  private supplierLists = new Int32Array(0);
  private channelLists = new Int32Array(0);
  private caps = new Int32Array(0);
  private names: string[] = [];
  private readonly days = new Interned<string>((d) => d);
  private readonly lists = new Interned<number[]>((ids) => ids.join(','));
  private readonly capRules = new Interned<FrequencyCapRule>((c) => `${c.count}/${c.periodHours}`);

  get(slot: number): CampaignFacts | null {
    if (slot >= this.capacity) return null;
    const flags = this.flags[slot]!;
    if (!(flags & 1)) return null;
    const created = this.createdAtMinutes[slot]!;
    return {
      id: this.ids[slot]!,
      tenantId: orNull(this.tenants[slot]!),
      name: this.names[slot]!,
      status: flags & 2 ? 1 : 0,
      archived: (flags & 4) !== 0,
      advertiserId: orNull(this.advertisers[slot]!),
      startDate: this.days.at(this.startDays[slot]!),
      endDate: this.endDays[slot] === ABSENT ? null : this.days.at(this.endDays[slot]!),
      totalBudget: limitOf(this.totalBudgets[slot]!),
      dailyBudget: limitOf(this.dailyBudgets[slot]!),
      bidCpm: small(this.bids[slot]!),
      targetingId: orNull(this.targetings[slot]!),
      creativeIds: this.lists.at(this.creativeLists[slot]!),
      dealIds: this.lists.at(this.dealLists[slot]!),
      supplierIds: this.lists.at(this.supplierLists[slot]!),
      channelScope: CHANNEL_SCOPES[(flags >> 4) & 3]!,
      channelIds: this.lists.at(this.channelLists[slot]!),
      pacing: flags & 8 ? 'even' : 'asap',
      frequencyCap: this.caps[slot] === ABSENT ? null : this.capRules.at(this.caps[slot]!),
      createdAtMinute: created === ABSENT ? undefined : created,
    };
  }

  set(slot: number, c: CampaignFacts | null): void {
    if (slot >= this.capacity) this.grow(slot + 1);
    if (!c) {
      this.flags[slot] = 0;
      this.names[slot] = '';
      return;
    }
    this.ids[slot] = c.id;
    this.tenants[slot] = c.tenantId ?? ABSENT;
    this.names[slot] = c.name;
    this.flags[slot] =
      1 |
      (c.status === 1 ? 2 : 0) |
      (c.archived ? 4 : 0) |
      (c.pacing === 'even' ? 8 : 0) |
      (CHANNEL_SCOPES.indexOf(c.channelScope) << 4);
    this.advertisers[slot] = c.advertiserId ?? ABSENT;
    this.startDays[slot] = this.days.of(c.startDate);
    this.endDays[slot] = c.endDate === null ? ABSENT : this.days.of(c.endDate);
    this.totalBudgets[slot] = budgetOf(c.totalBudget);
    this.dailyBudgets[slot] = budgetOf(c.dailyBudget);
    this.bids[slot] = c.bidCpm;
    this.targetings[slot] = c.targetingId ?? ABSENT;
    this.creativeLists[slot] = this.lists.of(c.creativeIds.length ? c.creativeIds : NONE);
    this.dealLists[slot] = this.lists.of(c.dealIds.length ? c.dealIds : NONE);
    this.supplierLists[slot] = this.lists.of(c.supplierIds.length ? c.supplierIds : NONE);
    this.channelLists[slot] = this.lists.of(c.channelIds.length ? c.channelIds : NONE);
    this.caps[slot] = c.frequencyCap ? this.capRules.of(c.frequencyCap) : ABSENT;
    this.createdAtMinutes[slot] = c.createdAtMinute ?? ABSENT;
  }

  /**
   * The ids of the held campaigns that name one of `targetingIds` or of `creativeIds`: a scan of two
   * columns (and of the interned lists), where reading every campaign's facts would make an object each.
   */
  idsNaming(targetingIds: ReadonlySet<number>, creativeIds: ReadonlySet<number>): number[] {
    const lists = new Set<number>();
    if (creativeIds.size) this.lists.forEach((ids, n) => ids.some((id) => creativeIds.has(id)) && lists.add(n));
    const out: number[] = [];
    if (!targetingIds.size && !lists.size) return out;
    for (let slot = 0; slot < this.capacity; slot++)
      if (this.flags[slot]! & 1 && (targetingIds.has(this.targetings[slot]!) || lists.has(this.creativeLists[slot]!)))
        out.push(this.ids[slot]!);
    return out;
  }

  private grow(least: number): void {
    const n = Math.max(least, this.capacity * 2, 1024);
    const grown = <A extends Int32Array | Uint8Array | Float64Array>(a: A, make: (n: number) => A): A => {
      const b = make(n);
      b.set(a);
      return b;
    };
    const int = (n: number) => new Int32Array(n);
    this.ids = grown(this.ids, int);
    this.tenants = grown(this.tenants, int);
    this.advertisers = grown(this.advertisers, int);
    this.targetings = grown(this.targetings, int);
    this.flags = grown(this.flags, (n) => new Uint8Array(n));
    this.startDays = grown(this.startDays, int);
    this.endDays = grown(this.endDays, int);
    this.createdAtMinutes = grown(this.createdAtMinutes, int);
    this.totalBudgets = grown(this.totalBudgets, (n) => new Float64Array(n));
    this.dailyBudgets = grown(this.dailyBudgets, (n) => new Float64Array(n));
    this.bids = grown(this.bids, (n) => new Float64Array(n));
    this.creativeLists = grown(this.creativeLists, int);
    this.dealLists = grown(this.dealLists, int);
    this.supplierLists = grown(this.supplierLists, int);
    this.channelLists = grown(this.channelLists, int);
    this.caps = grown(this.caps, int);
    this.capacity = n;
  }
}

/** A budget as a column holds it: micro-dollars, or -1 for 'unlimited'. */
const orNull = (v: number): number | null => (v === ABSENT ? null : v);
const budgetOf = (limit: Limit): number => (limit === UNLIMITED ? -1 : limit);
const limitOf = (v: number): Limit => (v < 0 ? UNLIMITED : small(v));
/**
 * A number read from a Float64Array as V8 keeps it in an object: a whole number within int32 as a
 * small integer (in the object itself), where the array's double would be a boxed number each.
 */
const small = (v: number): number => (v === (v | 0) ? v | 0 : v);

/**
 * Values met once, each given a number: a book repeats a few flight days, lists of ids and caps over
 * many campaigns, and every campaign reading one gets the same object (a list's creatives are
 * looked up once per list: campaigns.ts ownCreatives). Values no longer referred to stay: the
 * variety of a book is small, and an edit adds one value at most.
 */
class Interned<T> {
  private readonly values: T[] = [];
  private readonly numbers = new Map<string, number>();

  constructor(private readonly keyOf: (value: T) => string) {}

  of(value: T): number {
    const key = this.keyOf(value);
    let n = this.numbers.get(key);
    if (n === undefined) {
      n = this.values.length;
      this.values.push(value);
      this.numbers.set(key, n);
    }
    return n;
  }

  at(n: number): T {
    return this.values[n]!;
  }

  forEach(each: (value: T, n: number) => void): void {
    this.values.forEach(each);
  }
}
