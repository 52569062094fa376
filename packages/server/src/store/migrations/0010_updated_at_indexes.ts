import { type Migration } from 'kysely';
import { type Dialect } from '../db.js';
import { ENTITY_TABLES, type EntityKind } from '../entityTables.js';

/**
 * `(updated_at)` on the tables the edge's snapshot reads: a rebuild asks each table for the rows
 * updated since its last build (edge/snapshot/parsedRows.ts), which without this index reads every
 * row's stamp. The list is fixed here: a kind the snapshot reads later gets its index in its own migration.
 */
const SNAPSHOT_KINDS: EntityKind[] = [
  'channels',
  'tags',
  'campaigns',
  'creatives',
  'targetings',
  'applists',
  'publists',
  'crelists',
];

export const updatedAtIndexes = (_dialect: Dialect): Migration => ({
  async up(db) {
    for (const kind of SNAPSHOT_KINDS) {
      const table = ENTITY_TABLES[kind];
      await db.schema.createIndex(`${table}_updated_at`).ifNotExists().on(table).column('updated_at').execute();
    }
  },
  async down(db) {
    for (const kind of SNAPSHOT_KINDS)
      await db.schema.dropIndex(`${ENTITY_TABLES[kind]}_updated_at`).ifExists().execute();
  },
});
