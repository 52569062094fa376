import { type Limit, UNLIMITED } from '@adplane/shared';
import { type FrequencyCapRule } from '../../delivery/types.js';
import { type PacingMode } from '../../delivery/pacing.js';
import { type ChannelAssignment } from '../targeting/channelAssignment.js';
import { type CompiledTargeting } from '../targeting/compiledTargeting.js';
import { type CampaignFacts } from './campaigns.js';
import { type KeepsMade } from './kept.js';
import { type SnapCampaign, type SnapCreative } from './types.js';

/** What a column holds for an absent creation minute; budgets say 'unlimited' with -1. */
const ABSENT = -1;

/**
 * The compiled campaigns' values as columns by ordinal, written once when a campaign is compiled and
 * never changed after (a snapshot that still serves reads what it was built with): numbers in typed
 * arrays outside V8's heap, what books repeat (an advertiser's name, a targeting, a list of creatives,
 * of deals, of suppliers, a frequency cap, a channel assignment) as a number into one table of them, and the names as strings.
 */
class Columns {
  count = 0;
  private capacity = 0;
  ids = new Int32Array(0);
  tenants = new Int32Array(0);
  advertisers = new Int32Array(0);
  flightStarts = new Int32Array(0);
  flightEnds = new Int32Array(0);
  timezones = new Int8Array(0);
  createdAtMinutes = new Int32Array(0);
  /** Bit 0: even pacing. */
  flags = new Uint8Array(0);
  bids = new Float64Array(0);
  totalBudgets = new Float64Array(0);
  dailyBudgets = new Float64Array(0);
  advertiserNames = new Int32Array(0);
  targetings = new Int32Array(0);
  creatives = new Int32Array(0);
  caps = new Int32Array(0);
  deals = new Int32Array(0);
  suppliers = new Int32Array(0);
  channels = new Int32Array(0);
  readonly names: string[] = [];
  /** The values the reference columns number, each once (by identity; strings by value). */
  readonly shared: unknown[] = [];
  private readonly sharedAt = new Map<unknown, number>();

  add(c: SnapCampaign): number {
    const at = this.count++;
    if (at >= this.capacity) this.grow();
    this.ids[at] = c.id;
    this.tenants[at] = c.tenantId;
    this.advertisers[at] = c.advertiserId;
    this.flightStarts[at] = c.flightStartHour;
    this.flightEnds[at] = c.flightEndHour;
    this.timezones[at] = c.timezone;
    this.createdAtMinutes[at] = c.createdAtMinute ?? ABSENT;
    this.flags[at] = c.pacing === 'even' ? 1 : 0;
    this.bids[at] = c.bidCpm;
    this.totalBudgets[at] = c.totalBudget === UNLIMITED ? -1 : c.totalBudget;
    this.dailyBudgets[at] = c.dailyBudget === UNLIMITED ? -1 : c.dailyBudget;
    this.names[at] = c.name;
    this.advertiserNames[at] = this.share(c.advertiserName);
    this.targetings[at] = this.share(c.targeting);
    this.creatives[at] = this.share(c.creatives);
    this.caps[at] = this.share(c.frequencyCap);
    this.deals[at] = this.share(c.dealIds);
    this.suppliers[at] = this.share(c.supplierIds);
    this.channels[at] = this.share(c.channels ?? null);
    return at;
  }

  private share(value: unknown): number {
    let n = this.sharedAt.get(value);
    if (n === undefined) {
      n = this.shared.length;
      this.shared.push(value);
      this.sharedAt.set(value, n);
    }
    return n;
  }

  private grow(): void {
    const n = Math.max(1024, this.capacity * 2);
    const grown = <A extends Int32Array | Int8Array | Uint8Array | Float64Array>(a: A): A => {
      const b = new (a.constructor as new (n: number) => A)(n);
      b.set(a);
      return b;
    };
    this.ids = grown(this.ids);
    this.tenants = grown(this.tenants);
    this.advertisers = grown(this.advertisers);
    this.flightStarts = grown(this.flightStarts);
    this.flightEnds = grown(this.flightEnds);
    this.timezones = grown(this.timezones);
    this.createdAtMinutes = grown(this.createdAtMinutes);
    this.flags = grown(this.flags);
    this.bids = grown(this.bids);
    this.totalBudgets = grown(this.totalBudgets);
    this.dailyBudgets = grown(this.dailyBudgets);
    this.advertiserNames = grown(this.advertiserNames);
    this.targetings = grown(this.targetings);
    this.creatives = grown(this.creatives);
    this.caps = grown(this.caps);
    this.deals = grown(this.deals);
    this.suppliers = grown(this.suppliers);
    this.channels = grown(this.channels);
    this.capacity = n;
  }
}

/**
 * A number read from a Float64Array as V8 keeps it: a whole number within int32 as a small integer,
 * where the array's double would be boxed wherever it is stored.
 */
const small = (v: number): number => (v === (v | 0) ? v | 0 : v);
const limit = (v: number): Limit => (v < 0 ? UNLIMITED : small(v));

/**
 * A compiled campaign as the snapshot hands it out: its ordinal in the book's columns, read through
 * the SnapCampaign fields (two fields an object, where a plain campaign has eighteen).
 */
class BookedCampaign implements SnapCampaign {
  constructor(
    private readonly columns: Columns,
    private readonly at: number,
  ) {}

  get id(): number {
    return this.columns.ids[this.at]!;
  }
  get tenantId(): number {
    return this.columns.tenants[this.at]!;
  }
  get name(): string {
    return this.columns.names[this.at]!;
  }
  get advertiserId(): number {
    return this.columns.advertisers[this.at]!;
  }
  get advertiserName(): string {
    return this.columns.shared[this.columns.advertiserNames[this.at]!] as string;
  }
  get flightStartHour(): number {
    return this.columns.flightStarts[this.at]!;
  }
  get flightEndHour(): number {
    return this.columns.flightEnds[this.at]!;
  }
  get timezone(): number {
    return this.columns.timezones[this.at]!;
  }
  get totalBudget(): Limit {
    return limit(this.columns.totalBudgets[this.at]!);
  }
  get dailyBudget(): Limit {
    return limit(this.columns.dailyBudgets[this.at]!);
  }
  get pacing(): PacingMode {
    return this.columns.flags[this.at]! & 1 ? 'even' : 'asap';
  }
  get frequencyCap(): FrequencyCapRule | null {
    return this.columns.shared[this.columns.caps[this.at]!] as FrequencyCapRule | null;
  }
  get createdAtMinute(): number | undefined {
    const minute = this.columns.createdAtMinutes[this.at]!;
    return minute === ABSENT ? undefined : minute;
  }
  get bidCpm(): number {
    return small(this.columns.bids[this.at]!);
  }
  get targeting(): CompiledTargeting | null {
    return this.columns.shared[this.columns.targetings[this.at]!] as CompiledTargeting | null;
  }
  get creatives(): readonly SnapCreative[] {
    return this.columns.shared[this.columns.creatives[this.at]!] as readonly SnapCreative[];
  }
  get dealIds(): readonly number[] | undefined {
    return this.columns.shared[this.columns.deals[this.at]!] as readonly number[] | undefined;
  }
  get supplierIds(): readonly number[] | undefined {
    return this.columns.shared[this.columns.suppliers[this.at]!] as readonly number[] | undefined;
  }
  get channels(): ChannelAssignment | null {
    return this.columns.shared[this.columns.channels[this.at]!] as ChannelAssignment | null;
  }
}

/**
 * A campaign that outlives the columns it was read from (a departed one, kept for a day) as a plain
 * object of its values; a campaign that is one already (built by hand) as it is.
 */
export function plainCampaign(c: SnapCampaign): SnapCampaign {
  if (!(c instanceof BookedCampaign)) return c;
  return {
    id: c.id,
    tenantId: c.tenantId,
    name: c.name,
    advertiserId: c.advertiserId,
    advertiserName: c.advertiserName,
    flightStartHour: c.flightStartHour,
    flightEndHour: c.flightEndHour,
    timezone: c.timezone,
    totalBudget: c.totalBudget,
    dailyBudget: c.dailyBudget,
    pacing: c.pacing,
    frequencyCap: c.frequencyCap,
    createdAtMinute: c.createdAtMinute,
    bidCpm: c.bidCpm,
    targeting: c.targeting,
    creatives: c.creatives,
    dealIds: c.dealIds,
    supplierIds: c.supplierIds,
    channels: c.channels,
  };
}

/**
 * The snapshot compiler's compiled campaigns across builds (kept.ts's KeepsMade, by the row's id): a
 * campaign made again is added to the columns at a new ordinal; an unchanged one keeps its object
 * and ordinal. Ordinals are never reused: when the columns hold more than twice the live campaigns
 * (and 10,000 more), the next build starts new columns and makes every campaign again, and the old
 * ones go with the snapshots that read them.
 */
export class CampaignBook implements KeepsMade<CampaignFacts, SnapCampaign> {
  private columns = new Columns();
  private last: ReadonlyMap<number, SnapCampaign> = new Map();

  take(row: CampaignFacts, stillValid: (made: SnapCampaign) => boolean, make: () => SnapCampaign): SnapCampaign {
    const last = this.last.get(row.id);
    if (last !== undefined && stillValid(last)) return last;
    return new BookedCampaign(this.columns, this.columns.add(make()));
  }

  settle(made: ReadonlyMap<number, SnapCampaign>): void {
    this.last = made;
    if (this.columns.count > 2 * made.size + 10_000) {
      this.columns = new Columns();
      this.last = new Map();
    }
  }
}
