import { type Kysely, sql } from 'kysely';
import { DynamicFloorSettings, type DynamicFloorTable } from '@adplane/shared';
import { type Dialect } from './db.js';
import { parseJson, toJson } from './json.js';
import { type EntityTables } from './entityTables.js';
import { type Database } from './schema.js';

type Db = Kysely<Database>;

/** An ISO instant as stored; PostgreSQL's timestamptz may come back as a Date. */
const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));

/** A live channel whose floor follows its clearing prices, with what its floors are computed from. */
export interface DynamicChannel {
  id: number;
  tenantId: number;
  settings: DynamicFloorSettings;
  /** The channel's static floor (micro-dollars CPM): the default of a channel with too few impressions. */
  floorCpm: number;
}

/** What a computation was made for: a channel whose settings or static floor changed is due again at once. */
export const computedFor = (c: Pick<DynamicChannel, 'settings' | 'floorCpm'>): string =>
  toJson({ settings: c.settings, floorCpm: c.floorCpm });

/**
 * The live channels in dynamic floor mode, every tenant's (the api role's computation reads them all).
 * The mode is a field of the channel's document; a document whose dynamic settings do not read is left out.
 */
export async function listDynamicChannels(db: Db, dialect: Dialect): Promise<DynamicChannel[]> {
  const mode =
    dialect === 'sqlite' ? sql<string>`json_extract(data, '$.floorMode')` : sql<string>`(data::jsonb ->> 'floorMode')`;
  const rows = await db
    .withTables<EntityTables>()
    .selectFrom('supply_channels')
    .select(['id', 'tenant_id', 'data'])
    .where('archived', '=', 0)
    .where('tenant_id', 'is not', null)
    .where(mode, '=', 'dynamic')
    .orderBy('id')
    .execute();
  const out: DynamicChannel[] = [];
  for (const row of rows) {
    const doc = parseJson<{ dynamicFloor?: unknown; floorCpm?: unknown }>(row.data, {});
    const settings = DynamicFloorSettings.safeParse(doc.dynamicFloor);
    if (!settings.success) continue;
    const floorCpm = typeof doc.floorCpm === 'number' && doc.floorCpm >= 0 ? doc.floorCpm : 0;
    out.push({ id: Number(row.id), tenantId: Number(row.tenant_id), settings: settings.data, floorCpm });
  }
  return out;
}

/** A channel's stored computation: its table, what it was computed for, when the next is due, and until when a run holds it. */
export interface FloorState {
  channelId: number;
  computedFor: string | null;
  table: DynamicFloorTable | null;
  nextRunAt: string;
  leasedUntil: string | null;
}

export async function floorStates(db: Db, channelIds: readonly number[]): Promise<Map<number, FloorState>> {
  if (!channelIds.length) return new Map();
  const rows = await db
    .selectFrom('dynamic_floors')
    .select(['channel_id', 'computed_for', 'floors', 'next_run_at', 'leased_until'])
    .where('channel_id', 'in', [...channelIds])
    .execute();
  return new Map(
    rows.map((r) => [
      Number(r.channel_id),
      {
        channelId: Number(r.channel_id),
        computedFor: r.computed_for,
        table: parseJson<DynamicFloorTable | null>(r.floors, null),
        nextRunAt: iso(r.next_run_at),
        leasedUntil: r.leased_until === null ? null : iso(r.leased_until),
      },
    ]),
  );
}

/**
 * Take a channel's computation until `leaseUntil` (one conditional write, so of several api
 * processes one computes it): a channel without a row gets one, held; one still due (its run come,
 * or computed for other settings) whose last lease ran out (or was given back) is held again. A process that stops mid-run leaves its lease, and the channel
 * is due again when it runs out.
 */
export async function claimFloorRun(
  db: Db,
  channel: DynamicChannel,
  now: string,
  leaseUntil: string,
): Promise<boolean> {
  const key = computedFor(channel);
  const inserted = await db
    .insertInto('dynamic_floors')
    .values({
      channel_id: channel.id,
      tenant_id: channel.tenantId,
      computed_for: null,
      floors: null,
      computed_at: null,
      next_run_at: now,
      leased_until: leaseUntil,
    })
    .onConflict((oc) => oc.column('channel_id').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return true;
  const result = await db
    .updateTable('dynamic_floors')
    .set({ leased_until: leaseUntil })
    .where('channel_id', '=', channel.id)
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<=', now)]))
    // still due: another process may have computed it since this one looked
    .where((eb) => eb.or([eb('next_run_at', '<=', now), eb('computed_for', 'is', null), eb('computed_for', '!=', key)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Store a computed table while the run's lease stands, and when the next is due; false when the
 * lease was lost (another process took the channel after it ran out): nothing is written then.
 */
export async function saveFloorTable(
  db: Db,
  channelId: number,
  leaseUntil: string,
  done: { computedFor: string; table: DynamicFloorTable; nextRunAt: string },
): Promise<boolean> {
  const result = await db
    .updateTable('dynamic_floors')
    .set({
      computed_for: done.computedFor,
      floors: toJson(done.table),
      computed_at: done.table.computedAt,
      next_run_at: done.nextRunAt,
      leased_until: null,
    })
    .where('channel_id', '=', channelId)
    .where('leased_until', '=', leaseUntil)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Every computed table by channel id (the edge's snapshot reads them with the channels). */
export async function loadFloorTables(db: Db): Promise<Map<number, DynamicFloorTable>> {
  const rows = await db
    .selectFrom('dynamic_floors')
    .select(['channel_id', 'floors'])
    .where('floors', 'is not', null)
    .execute();
  const out = new Map<number, DynamicFloorTable>();
  for (const r of rows) {
    const table = parseJson<DynamicFloorTable | null>(r.floors, null);
    if (table) out.set(Number(r.channel_id), table);
  }
  return out;
}
