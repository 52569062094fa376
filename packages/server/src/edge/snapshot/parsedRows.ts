import { type SkipSink, type StoredRow } from '@adplane/shared';
import { type Kysely } from 'kysely';
import { ENTITY_TABLES, type EntityKind, type EntityTables } from '../../store/entityTables.js';
import { type StoreDb } from './loadRows.js';

/**
 * Parsed rows kept between snapshot builds, keyed by id and stamped with the row's updated_at (and
 * archived flag, which setEntityArchived changes with updated_at too): a rebuild reads only ids and
 * stamps, then fetches and parses just the rows that changed. Parsing every stored document through
 * its schema is what makes a cold build slow; a change to a few rows should not pay for 100,000.
 */
type Parser<T> = (row: StoredRow, sink?: SkipSink) => T | null;

interface Entry<T> {
  stamp: string;
  value: T | null;
  /** Why the stored row was skipped, reported again on every build. */
  skipped: SkipSink['skipped'];
}

const CHUNK = 500;

export class ParsedRows<T> {
  private entries = new Map<number, Entry<T>>();

  constructor(
    private readonly kind: EntityKind,
    private readonly parse: Parser<T>,
  ) {}

  /** Current parsed rows (invalid ones skipped and reported to `sink`). */
  async load(db: StoreDb, sink: SkipSink): Promise<T[]> {
    const table = (db as unknown as Kysely<EntityTables>).selectFrom(ENTITY_TABLES[this.kind]);
    const heads = await table.select(['id', 'updated_at', 'archived', 'status']).execute();
    const seen = new Set<number>();
    const stale: number[] = [];
    for (const h of heads) {
      const id = Number(h.id);
      seen.add(id);
      const stamp = `${String(h.updated_at)}|${Number(h.archived)}|${Number(h.status)}`;
      const entry = this.entries.get(id);
      if (!entry || entry.stamp !== stamp) {
        stale.push(id);
        this.entries.set(id, { stamp, value: null, skipped: [] });
      }
    }
    for (const id of this.entries.keys()) if (!seen.has(id)) this.entries.delete(id);
    for (let i = 0; i < stale.length; i += CHUNK) {
      const rows = await (db as unknown as Kysely<EntityTables>)
        .selectFrom(ENTITY_TABLES[this.kind])
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
        entry.skipped = own.skipped;
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
