import { type Kysely, type Migration } from 'kysely';
import { type Dialect } from '../db.js';

/**
 * Campaigns say where among the tenant's channels they run (`channelScope`: 'all', 'include' or
 * 'exclude', with `channelIds`). Every campaign stored before the field ran on every channel of its
 * account: it is written down as the explicit choice 'all' with no channel, so that no stored campaign
 * is left without a choice. A document that is not an object is left as it is (the typed parser
 * skips and counts it).
 *
 * The rewrite is written out here, not read from the schema, so that this migration keeps its meaning
 * when the schema moves on; `down` takes the two fields out again.
 */
type Doc = Record<string, unknown>;

const TABLE = 'campaigns';
/** Rows read per round: a book of a million campaigns is never held at once. */
const PAGE = 1000;

async function rewrite(db: Kysely<unknown>, convert: (doc: Doc) => Doc | null): Promise<void> {
  const d = db as unknown as Kysely<Record<string, { id: number; data: string }>>;
  for (let after = 0; ; ) {
    const rows = await d
      .selectFrom(TABLE)
      .select(['id', 'data'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute();
    if (!rows.length) return;
    for (const row of rows) {
      let doc: unknown;
      try {
        doc = JSON.parse(row.data);
      } catch {
        continue;
      }
      if (!doc || typeof doc !== 'object' || Array.isArray(doc)) continue;
      const next = convert(doc as Doc);
      if (next)
        await d
          .updateTable(TABLE)
          .set({ data: JSON.stringify(next) })
          .where('id', '=', row.id)
          .execute();
    }
    after = rows.at(-1)!.id;
  }
}

/** The document with the explicit 'all', or null when it already states a scope. */
function withChannelScope(doc: Doc): Doc | null {
  if ('channelScope' in doc) return null;
  return { ...doc, channelScope: 'all', channelIds: [] };
}

export const campaignChannelScope = (_dialect: Dialect): Migration => ({
  async up(db: Kysely<unknown>) {
    await rewrite(db, withChannelScope);
  },
  async down(db: Kysely<unknown>) {
    await rewrite(db, (doc) => {
      if (!('channelScope' in doc) && !('channelIds' in doc)) return null;
      const { channelScope: _scope, channelIds: _ids, ...rest } = doc;
      return rest;
    });
  },
});
