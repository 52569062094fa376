import { type SkipSink, type StoredRow } from '@adplane/shared';
import { type Kysely } from 'kysely';
import { ENTITY_TABLES, type EntityKind, type EntityTables } from '../../store/entityTables.js';
import { type StoreDb } from './loadRows.js';

/**
 * Parsed rows kept between snapshot builds, keyed by id and stamped with the row's updated_at (and
 * archived flag, which setEntityArchived changes with updated_at too): a rebuild reads the stamps of
 * the rows updated lately (see staleIds), then fetches and parses just the rows that changed. Parsing every stored document through
 * its schema is what makes a cold build slow; a change to a few rows should not pay for 100,000.
 */
type Parser<T> = (row: StoredRow, sink?: SkipSink) => T | null;

interface Entry<T> {
  /** updated_at in ms, times 4, plus archived * 2 and status: a number compares and keeps smaller than text. */
  stamp: number;
  value: T | null;
  /** Why the stored row was skipped, reported again on every build. */
  skipped: SkipSink['skipped'];
}

const CHUNK = 500;
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

export class ParsedRows<T> {
  private entries = new Map<number, Entry<T>>();
  /** Newest updated_at seen (epoch ms), and when every head was last read. */
  private newest = -Infinity;
  private lastFull = 0;

  constructor(
    private readonly kind: EntityKind,
    private readonly parse: Parser<T>,
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
    const incremental = Number.isFinite(this.newest) && Date.now() - this.lastFull < FULL_EVERY_MS;
    const stale: number[] = [];
    const take = (heads: Head[]) => {
      for (const h of heads) {
        const id = Number(h.id);
        const updated = stampText(h.updated_at);
        const ms = Date.parse(updated);
        if (ms > this.newest) this.newest = ms;
        const stamp = ms * 4 + Number(h.archived) * 2 + (Number(h.status) === 1 ? 1 : 0);
        const entry = this.entries.get(id);
        if (!entry || entry.stamp !== stamp) {
          stale.push(id);
          this.entries.set(id, { stamp, value: null, skipped: NONE });
        }
      }
    };
    if (incremental) {
      // ISO text: SQLite compares the stored ISO text, PostgreSQL casts it to the column's timestamptz
      const since = new Date(this.newest - MARGIN_MS).toISOString();
      const [heads, count] = await Promise.all([
        this.table(db).select(['id', 'updated_at', 'archived', 'status']).where('updated_at', '>=', since as never).execute(),
        this.table(db).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      take(heads as Head[]);
      if (this.entries.size === Number(count.n)) return stale;
    }
    const heads = (await this.table(db).select(['id', 'updated_at', 'archived', 'status']).execute()) as Head[];
    this.lastFull = Date.now();
    const seen = new Set<number>();
    for (const h of heads) seen.add(Number(h.id));
    for (const id of this.entries.keys()) if (!seen.has(id)) this.entries.delete(id);
    take(heads);
    return stale;
  }

  /** Current parsed rows (invalid ones skipped and reported to `sink`). */
  async load(db: StoreDb, sink: SkipSink): Promise<T[]> {
    const stale = await this.staleIds(db);
    for (let i = 0; i < stale.length; i += CHUNK) {
      const rows = await this.table(db)
        .select(['id', 'tenant_id', 'uid', 'name', 'status', 'archived', 'data'])
        .where('id', 'in', stale.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) {
        let data: unknown = null;
        try {
          data = JSON.parse(r.data);
        } catch {
          // left null: the typed parser skips and counts it
        }
        const row: StoredRow = { id: Number(r.id), tenantId: r.tenant_id === null ? null : Number(r.tenant_id), uid: r.uid, name: r.name, status: Number(r.status), archived: Number(r.archived) === 1, data };
        const entry = this.entries.get(row.id);
        if (!entry) continue;
        const own: SkipSink = { skipped: [] };
        entry.value = this.parse(row, own);
        entry.skipped = own.skipped.length ? own.skipped : NONE;
      }
    }
    const out: T[] = [];
    for (const e of this.entries.values()) {
      if (e.value) out.push(e.value);
      else sink.skipped.push(...e.skipped);
    }
    return out;
  }
}
