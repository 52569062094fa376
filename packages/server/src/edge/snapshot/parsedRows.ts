import { type SkipSink, type StoredRow } from '@adplane/shared';
import { type Kysely } from 'kysely';
import { type Clock, systemClock } from '../../clock.js';
import { ENTITY_TABLES, type EntityKind, type EntityTables } from '../../store/entityTables.js';
import { type StoreDb } from './loadRows.js';

/**
 * Parsed rows kept between snapshot builds, keyed by id and stamped with the row's updated_at (and
 * archived flag, which setEntityArchived changes with updated_at too): a rebuild reads the stamps of
 * the rows updated lately (see staleIds), then fetches and parses just the rows that changed. Parsing every stored document through
 * its schema is what makes a cold build slow; a change to a few rows should not pay for 100,000.
 */
type Parser<T> = (row: LoadedRow, sink?: SkipSink) => T | null;

/** A stored row as loaded: its meta columns and document, and when it was created (the created_at column, ISO text). */
interface LoadedRow extends StoredRow {
  createdAt: string;
}

const CHUNK = 500;
/** A refresh reading this many rows or more, and at least half the held ones, reads ranges of ids (RANGE rows each). */
const RANGES_FROM = 20_000;
const RANGE = 5_000;
const NONE: SkipSink['skipped'] = [];
/** Rows stamped this long before the newest stamp seen are read again: clock skew between API nodes, late commits. */
const MARGIN_MS = 5_000;
/** A full read of every id and stamp this often at least, whatever the counts say. */
const FULL_EVERY_MS = 10 * 60_000;

type Head = { id: unknown; updated_at: unknown; archived: unknown; status: unknown };

/** updated_at as text with its milliseconds (PostgreSQL hands a Date, SQLite the ISO text). */
function stampText(v: unknown): string {
  return v instanceof Date ? v.toISOString() : String(v);
}

/**
 * A row's stamp: updated_at in ms, times 4, plus archived * 2 and status (a number compares and keeps
 * smaller than text).
 */
const stampOf = (updatedMs: number, archived: unknown, status: unknown): number =>
  updatedMs * 4 + Number(archived) * 2 + (Number(status) === 1 ? 1 : 0);

/**
 * Where parsed values sit, by slot: an array of them (SlotArray), or columns a kind packs its values
 * into, outside V8's heap (campaignColumns.ts), answering a new object for each build to read.
 */
export interface SlotValues<T> {
  get(slot: number): T | null;
  set(slot: number, value: T | null): void;
}

/** Parsed values as they are, one array entry per slot. */
class SlotArray<T> implements SlotValues<T> {
  private readonly values: (T | null)[] = [];
  get(slot: number): T | null {
    return this.values[slot] ?? null;
  }
  set(slot: number, value: T | null): void {
    this.values[slot] = value;
  }
}

/**
 * Each id has a slot (IdSlots); the slot's id and stamp sit in typed arrays, its parsed value in the
 * kind's SlotValues, the reasons it was skipped in a map of the few skipped. The store's 100,000
 * rows are then no objects of their own and no boxed stamps (a stamp is past the small integers V8
 * keeps unboxed): less for every full collection of the edge's heap to mark.
 */
export class ParsedRows<T> {
  /** id to slot. */
  private readonly slots = new IdSlots();
  /** Each slot's id, NaN for a free slot, and when its id was first seen (`load` answers in that order). */
  private ids = new Float64Array(1024);
  private seen = new Float64Array(1024);
  private seenCount = 0;
  /** The held slots in the order their ids were first seen; null when a slot was taken or freed since. */
  private order: Int32Array | null = null;
  /** Whether a freed slot was ever taken again. */
  private reused = false;
  private stamps = new Float64Array(1024);
  /** Slots handed out so far (free ones are reused first). */
  private slotCount = 0;
  /** Why a stored row was skipped, by slot (only those skipped), reported again on every build. */
  private readonly skips = new Map<number, SkipSink['skipped']>();
  private freeSlots: number[] = [];
  /** Newest updated_at seen (epoch ms), and when every head was last read. */
  private newest = -Infinity;
  private lastFull = 0;
  /** The ids the last refresh read again or found dropped. */
  private changed: number[] = [];
  /** Where a row's parser reports why it skipped it. */
  private readonly own: SkipSink = { skipped: [] };

  constructor(
    private readonly kind: EntityKind,
    private readonly parse: Parser<T>,
    private readonly clock: Clock = systemClock,
    private readonly values: SlotValues<T> = new SlotArray<T>(),
  ) {}

  private table(db: StoreDb) {
    return (db as unknown as Kysely<EntityTables>).selectFrom(ENTITY_TABLES[this.kind]);
  }

  /**
   * Ids whose stamp moved since the last build. Normally only the rows updated since the newest
   * stamp seen (minus a margin) are read, with the table's row count: a count that does not add up
   * means rows were deleted, and every head is read again (as on the first build).
   */
  private async staleIds(db: StoreDb): Promise<number[]> {
    const incremental = Number.isFinite(this.newest) && this.clock.now() - this.lastFull < FULL_EVERY_MS;
    const stale: number[] = [];
    const take = (heads: Head[]) => {
      for (const h of heads) {
        const id = Number(h.id);
        const updated = stampText(h.updated_at);
        const ms = Date.parse(updated);
        if (ms > this.newest) this.newest = ms;
        const stamp = stampOf(ms, h.archived, h.status);
        const slot = this.slots.get(id);
        if (slot < 0 || this.stamps[slot] !== stamp) {
          stale.push(id);
          this.keep(slot < 0 ? this.newSlot(id) : slot, stamp);
        }
      }
    };
    if (incremental) {
      // ISO text: SQLite compares the stored ISO text, PostgreSQL casts it to the column's timestamptz
      const since = new Date(this.newest - MARGIN_MS).toISOString();
      const [heads, count] = await Promise.all([
        this.table(db)
          .select(['id', 'updated_at', 'archived', 'status'])
          .where('updated_at', '>=', since as never)
          .execute(),
        this.table(db)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      take(heads as Head[]);
      if (this.slots.size === Number(count.n)) return stale;
    }
    const heads = (await this.table(db).select(['id', 'updated_at', 'archived', 'status']).execute()) as Head[];
    this.lastFull = this.clock.now();
    const seen = new Set<number>();
    for (const h of heads) seen.add(Number(h.id));
    for (let slot = 0; slot < this.slotCount; slot++) {
      const id = this.ids[slot]!;
      if (!Number.isNaN(id) && !seen.has(id)) {
        this.drop(id, slot);
        stale.push(id);
      }
    }
    take(heads);
    return stale;
  }

  /** Current parsed rows (invalid ones skipped and reported to `sink`). */
  async load(db: StoreDb, sink: SkipSink): Promise<T[]> {
    await this.refresh(db);
    return this.rows(sink);
  }

  /**
   * Reads and parses the rows whose stamp moved since the last refresh; `changed` then names them
   * and the rows the store dropped (all of them after the first refresh).
   */
  async refresh(db: StoreDb): Promise<void> {
    if (!Number.isFinite(this.newest) && !this.slots.size) return this.readAll(db);
    const stale = await this.staleIds(db);
    this.changed = stale;
    const columns = ['id', 'tenant_id', 'uid', 'name', 'status', 'archived', 'data', 'created_at'] as const;
    if (stale.length >= RANGES_FROM && stale.length * 2 >= this.slots.size) {
      // most rows (a first build): read in ranges of ids, not in lists of them, RANGE rows a query
      const sorted = Float64Array.from(stale).sort();
      for (let i = 0; i < sorted.length; i += RANGE) {
        const rows = await this.table(db)
          .select(columns)
          .where('id', '>=', sorted[i]!)
          .where('id', '<=', sorted[Math.min(i + RANGE, sorted.length) - 1]!)
          .execute();
        for (const r of rows) this.read(r);
      }
      return;
    }
    for (let i = 0; i < stale.length; i += CHUNK) {
      const rows = await this.table(db)
        .select(columns)
        .where('id', 'in', stale.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) this.read(r);
    }
  }

  /**
   * The first refresh: every row in pages of RANGE by id, each stamped as it is read (one pass over
   * the table, where reading every stamp first would be two).
   */
  private async readAll(db: StoreDb): Promise<void> {
    const ids: number[] = [];
    for (let after = 0; ; ) {
      const rows = await this.table(db)
        .select(['id', 'tenant_id', 'uid', 'name', 'status', 'archived', 'data', 'created_at', 'updated_at'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(RANGE)
        .execute();
      for (const r of rows) {
        const id = Number(r.id);
        const ms = Date.parse(stampText(r.updated_at));
        if (ms > this.newest) this.newest = ms;
        this.keep(this.newSlot(id), stampOf(ms, r.archived, r.status));
        ids.push(id);
        this.read(r);
      }
      if (rows.length < RANGE) break;
      after = ids[ids.length - 1]!;
    }
    this.lastFull = this.clock.now();
    this.changed = ids;
  }

  /** A fetched row, parsed into its slot (a row of a range that was not stale is read again as it is). */
  private read(r: {
    id: unknown;
    tenant_id: unknown;
    uid: string | null;
    name: string;
    status: unknown;
    archived: unknown;
    data: string;
    created_at: unknown;
  }): void {
    const slot = this.slots.get(Number(r.id));
    if (slot < 0) return;
    let data: unknown = null;
    try {
      data = JSON.parse(r.data);
    } catch {
      // left null: the typed parser skips and counts it
    }
    const row: LoadedRow = {
      id: Number(r.id),
      tenantId: r.tenant_id === null ? null : Number(r.tenant_id),
      uid: r.uid,
      name: r.name,
      status: Number(r.status),
      archived: Number(r.archived) === 1,
      data,
      createdAt: stampText(r.created_at),
    };
    const own = this.own;
    own.skipped = [];
    this.values.set(slot, this.parse(row, own));
    if (own.skipped.length) this.skips.set(slot, own.skipped);
    else this.skips.delete(slot);
  }

  /** The ids the last refresh read again or found dropped. */
  get changedIds(): readonly number[] {
    return this.changed;
  }

  /** The parsed row of id `id`, null when the store does not hold it or its parser skipped it. */
  value(id: number): T | null {
    const slot = this.slots.get(id);
    return slot < 0 ? null : this.values.get(slot);
  }

  /** Reports the skipped rows to `sink` (without reading the others). */
  reportSkipped(sink: SkipSink): void {
    for (const skipped of this.skips.values()) sink.skipped.push(...skipped);
  }

  /** Every parsed row, in the order their ids were first seen (invalid ones skipped and reported to `sink`). */
  rows(sink: SkipSink): T[] {
    const out: T[] = [];
    for (const slot of this.inOrder()) {
      const value = this.values.get(slot);
      if (value) out.push(value);
      else sink.skipped.push(...(this.skips.get(slot) ?? NONE));
    }
    return out;
  }

  /** The updated_at (epoch ms) of the row with id `id` as last read, undefined for a row the store does not have. */
  updatedAt(id: number): number | undefined {
    const slot = this.slots.get(id);
    // the stamp is updated_at * 4 plus two flag bits (stampOf)
    return slot < 0 ? undefined : Math.floor(this.stamps[slot]! / 4);
  }

  /** The held slots, their ids first seen first (a reused slot holds an id seen later than the slots after it). */
  private inOrder(): Int32Array {
    if (!this.order) {
      const order = new Int32Array(this.slots.size);
      let n = 0;
      for (let slot = 0; slot < this.slotCount; slot++) if (!Number.isNaN(this.ids[slot]!)) order[n++] = slot;
      const { seen } = this;
      // slots are taken in order until a freed one is taken again
      if (this.reused) order.sort((a, b) => seen[a]! - seen[b]!);
      this.order = order;
    }
    return this.order;
  }

  /** A stale row: its new stamp, its value to be read again. */
  private keep(slot: number, stamp: number): void {
    this.stamps[slot] = stamp;
    this.values.set(slot, null);
    this.skips.delete(slot);
  }

  private newSlot(id: number): number {
    let slot = this.freeSlots.pop();
    if (slot !== undefined) this.reused = true;
    else {
      slot = this.slotCount++;
      this.values.set(slot, null);
      if (slot >= this.stamps.length) {
        const grown = new Float64Array(this.stamps.length * 2);
        grown.set(this.stamps);
        this.stamps = grown;
        const ids = new Float64Array(this.ids.length * 2);
        ids.set(this.ids);
        this.ids = ids;
        const seen = new Float64Array(this.seen.length * 2);
        seen.set(this.seen);
        this.seen = seen;
      }
    }
    this.slots.set(id, slot);
    this.ids[slot] = id;
    this.seen[slot] = this.seenCount++;
    this.order = null;
    return slot;
  }

  /** A row the store no longer has: its slot is free, its value let go. */
  private drop(id: number, slot: number): void {
    this.slots.delete(id);
    this.ids[slot] = Number.NaN;
    this.order = null;
    this.values.set(slot, null);
    this.skips.delete(slot);
    this.stamps[slot] = Number.NaN;
    this.freeSlots.push(slot);
  }
}

/**
 * Row ids to slots in typed arrays (open addressing, linear probing): a Map of the store's 100,000
 * campaigns would be a table on V8's heap for every full collection to mark.
 */
export class IdSlots {
  size = 0;
  /** Ids, NaN where empty; a table twice the size at least. */
  private keys = new Float64Array(2048).fill(Number.NaN);
  private values = new Int32Array(2048);

  /** The id's slot, -1 when it has none. */
  get(id: number): number {
    const mask = this.keys.length - 1;
    for (let i = hashOf(id) & mask; ; i = (i + 1) & mask) {
      const key = this.keys[i]!;
      if (key === id) return this.values[i]!;
      if (Number.isNaN(key)) return -1;
    }
  }

  set(id: number, slot: number): void {
    if ((this.size + 1) * 2 > this.keys.length) this.resize(this.keys.length * 2);
    const mask = this.keys.length - 1;
    let i = hashOf(id) & mask;
    while (!Number.isNaN(this.keys[i]!) && this.keys[i] !== id) i = (i + 1) & mask;
    if (Number.isNaN(this.keys[i]!)) this.size++;
    this.keys[i] = id;
    this.values[i] = slot;
  }

  delete(id: number): void {
    const { keys, values } = this;
    const mask = keys.length - 1;
    let i = hashOf(id) & mask;
    while (keys[i] !== id) {
      if (Number.isNaN(keys[i]!)) return;
      i = (i + 1) & mask;
    }
    // shift back the entries after it that probed past it, so no search stops at the hole
    for (let j = (i + 1) & mask; !Number.isNaN(keys[j]!); j = (j + 1) & mask) {
      const home = hashOf(keys[j]!) & mask;
      if (i <= j ? i < home && home <= j : i < home || home <= j) continue;
      keys[i] = keys[j]!;
      values[i] = values[j]!;
      i = j;
    }
    keys[i] = Number.NaN;
    this.size--;
  }

  private resize(n: number): void {
    const { keys, values } = this;
    this.keys = new Float64Array(n).fill(Number.NaN);
    this.values = new Int32Array(n);
    this.size = 0;
    for (let i = 0; i < keys.length; i++) if (!Number.isNaN(keys[i]!)) this.set(keys[i]!, values[i]!);
  }
}

/** An id's hash (ids are whole numbers, possibly past int32). */
const hashOf = (id: number): number => Math.imul((id | 0) ^ ((id / 4_294_967_296) | 0), 0x9e3779b1) >>> 7;
