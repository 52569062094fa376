import { type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { forEachStore } from '../../../test/helpers.js';
import { type EntityTables } from '../../store/entityTables.js';
import { buildRequestContext } from '../request/context.js';
import { plainCampaign } from './campaignBook.js';
import { SnapshotCompiler } from './compileSnapshot.js';
import { type Snapshot } from './types.js';

/**
 * A rebuild after a few changes merges them into the last build's campaigns (campaignDelta.ts) and
 * keeps the last tags and channels when nothing they are made from changed. Random edits (campaigns
 * edited, added, deleted, paused; targetings and creatives switched or rewritten; channels and demand
 * tags switched; a tenant paused;
 * the clock moved past flight ends) are applied one after another, and after each the snapshot the
 * long-lived compiler builds must say what a new compiler building from scratch says: the same
 * campaigns with the same values, the same reasons for every row set aside, the same index contents
 * and the same campaigns passing each request, on each channel (campaigns are assigned to channels
 * at random: all, only some, all but some) and from no channel (0: a supplier's request).
 */
const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
];
const IPS = ['8.8.8.8', '81.2.69.142', '2.16.0.1'];
const HOUR = 3_600_000;

/** A small deterministic random source (mulberry32), so that a failing sequence can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A compiled targeting's sets and maps as sorted lists, to compare by value. */
const sets = (_key: string, value: unknown) =>
  value instanceof Set
    ? [...(value as Set<string>)].sort()
    : value instanceof Map
      ? [...(value as Map<unknown, unknown>)]
      : value;

/** What must agree between an updated snapshot and one built from scratch. */
function view(snap: Snapshot, now: number) {
  const campaigns = [...snap.campaigns.values()]
    .map((c) => {
      const p = plainCampaign(c);
      return {
        ...p,
        targeting: p.targeting && JSON.stringify(p.targeting, sets),
        creatives: p.creatives.map((cr) => cr.id),
      };
    })
    .sort((a, b) => a.id - b.id);
  const aside = Object.fromEntries(
    Object.entries(snap.setAside ?? {}).map(([kind, map]) => [
      kind,
      [...(map as ReadonlyMap<number, unknown>)].sort((a, b) => a[0] - b[0]),
    ]),
  );
  const channelIds = [0, ...[...snap.channels.values()].map((c) => c.id).sort((a, b) => a - b)];
  const index = [...snap.campaignIndex]
    .sort((a, b) => a[0] - b[0])
    .map(([tenantId, idx]) => {
      const bids = idx.items.map((c) => c.bidCpm);
      // best bid first, whatever order a tie was shuffled into
      expect(bids).toEqual([...bids].sort((a, b) => b - a));
      const passing = channelIds.flatMap((channelId) =>
        IPS.flatMap((ip) =>
          UAS.map((ua) =>
            idx
              .candidates(buildRequestContext({ ip }, { remoteAddress: '', userAgent: ua }, now), channelId)
              .map((c) => c.id)
              .sort((a, b) => a - b),
          ),
        ),
      );
      return { tenantId, items: idx.items.map((c) => c.id).sort((a, b) => a - b), passing };
    });
  return {
    campaigns,
    aside,
    index,
    channels: [...snap.channels.values()]
      .sort((a, b) => a.id - b.id)
      .map((c) => ({ id: c.id, serving: c.serving, tags: c.demand.map((d) => d.tag.id) })),
    tags: [...snap.tags.keys()].sort((a, b) => a - b),
    skipped: snap.skipped,
  };
}

forEachStore((t) => {
  describe('a rebuild by what changed', () => {
    it('builds what a build from scratch builds, over random edits', async () => {
      const db = t.store.db as unknown as Kysely<EntityTables>;
      const rnd = random(20261128);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
      let stamp = Date.now();
      /** A stamp later than any before it, as the API writes updated_at. */
      const later = () => new Date((stamp += 1000)).toISOString();

      const demandTenants = (await db.selectFrom('campaigns').select('tenant_id').distinct().execute()).map(
        (r) => r.tenant_id!,
      );
      const creatives = await db.selectFrom('creatives').selectAll().execute();
      const targetings = await db.selectFrom('targetings').selectAll().execute();
      const channels = await db.selectFrom('supply_channels').select(['id', 'tenant_id']).execute();
      const template = await db.selectFrom('campaigns').selectAll().executeTakeFirstOrThrow();
      expect(demandTenants.length).toBeGreaterThan(0);
      const ownCreatives = (tenantId: number) => creatives.filter((c) => c.tenant_id === tenantId).map((c) => c.id);
      const ownTargetings = (tenantId: number) => targetings.filter((x) => x.tenant_id === tenantId).map((x) => x.id);
      let now = Date.now();
      const day = (offsetDays: number) => new Date(now + offsetDays * 24 * HOUR).toISOString().slice(0, 10);
      /** A campaign's document with random values from what its tenant has. */
      const campaignData = (tenantId: number, base: Record<string, unknown>) => {
        const mine = ownCreatives(tenantId);
        const targets = ownTargetings(tenantId);
        const ownChannels = channels.filter((c) => c.tenant_id === tenantId).map((c) => c.id);
        const some = ownChannels.filter(() => rnd() < 0.5);
        const channelScope = some.length ? pick(['all', 'all', 'include', 'exclude']) : 'all';
        return JSON.stringify({
          ...base,
          bidCpm: pick([1_000_000, 2_000_000, 2_000_000, 3_500_000]),
          totalBudget: pick(['unlimited', 0, 50_000_000]),
          startDate: day(-3),
          endDate: pick([null, day(0), day(1), day(5)]),
          targetingId: targets.length && rnd() < 0.7 ? pick(targets) : null,
          creativeIds: mine.length ? mine.filter(() => rnd() < 0.6) : [],
          frequencyCap: rnd() < 0.3 ? { count: 3, periodHours: 24 } : null,
          channelScope,
          channelIds: channelScope === 'all' ? [] : some,
        });
      };
      // a few dozen campaigns more, over the tenants that have campaigns
      const { id: _id, ...row } = template;
      for (let i = 0; i < 40; i++) {
        const tenantId = pick(demandTenants);
        await db
          .insertInto('campaigns')
          .values({
            ...row,
            uid: null,
            tenant_id: tenantId,
            name: `Differential ${i}`,
            status: rnd() < 0.85 ? 1 : 0,
            data: campaignData(tenantId, JSON.parse(template.data) as Record<string, unknown>),
            updated_at: later(),
          } as never)
          .execute();
      }

      const kept = new SnapshotCompiler();
      await kept.compile(t.store.db, now);
      let merged = 0;
      for (let step = 0; step < 90; step++) {
        const campaigns = await db.selectFrom('campaigns').selectAll().execute();
        const edit = rnd();
        if (edit < 0.45) {
          const c = pick(campaigns);
          const data = JSON.parse(c.data) as Record<string, unknown>;
          await db
            .updateTable('campaigns')
            .set({
              data: campaignData(c.tenant_id!, data),
              status: rnd() < 0.8 ? 1 : 0,
              archived: rnd() < 0.05 ? 1 : 0,
              name: `${c.name.split(' ~')[0]} ~${step}`,
              updated_at: later(),
            })
            .where('id', '=', c.id)
            .execute();
        } else if (edit < 0.55) {
          const tenantId = pick(demandTenants);
          await db
            .insertInto('campaigns')
            .values({
              ...row,
              uid: null,
              tenant_id: tenantId,
              name: `Added ${step}`,
              data: campaignData(tenantId, JSON.parse(template.data) as Record<string, unknown>),
              updated_at: later(),
            } as never)
            .execute();
        } else if (edit < 0.62) {
          const c = pick(campaigns.filter((x) => x.name.startsWith('Differential') || x.name.startsWith('Added')));
          await (db as unknown as Kysely<{ entity_refs: { from_kind: string; from_id: number } }>)
            .deleteFrom('entity_refs')
            .where('from_kind', '=', 'campaigns')
            .where('from_id', '=', c.id)
            .execute()
            .catch(() => undefined);
          await db.deleteFrom('campaigns').where('id', '=', c.id).execute();
        } else if (edit < 0.75 && targetings.length) {
          // a targeting switched, or given another targeting's rules
          const x = pick(targetings);
          const other = pick(targetings);
          await db
            .updateTable('targetings')
            .set(
              rnd() < 0.5
                ? { status: rnd() < 0.5 ? 0 : 1, updated_at: later() }
                : { data: other.data, updated_at: later() },
            )
            .where('id', '=', x.id)
            .execute();
        } else if (edit < 0.84 && creatives.length) {
          const cr = pick(creatives);
          await db
            .updateTable('creatives')
            .set({ status: rnd() < 0.5 ? 0 : 1, archived: rnd() < 0.1 ? 1 : 0, updated_at: later() })
            .where('id', '=', cr.id)
            .execute();
        } else if (edit < 0.9) {
          // a channel or a demand tag switched: the supply is compiled again
          const table = rnd() < 0.5 ? 'supply_channels' : 'demand_tags';
          const x = pick(await db.selectFrom(table).select('id').execute());
          await db
            .updateTable(table)
            .set({ status: rnd() < 0.6 ? 0 : 1, updated_at: later() })
            .where('id', '=', x.id)
            .execute();
        } else if (edit < 0.95) {
          // an account change reaches every campaign of its tenant
          const tenantId = pick(demandTenants);
          await (db as unknown as Kysely<{ users: { id: number; status: number; updated_at: string } }>)
            .updateTable('users')
            .set({ status: rnd() < 0.5 ? 0 : 1, updated_at: later() })
            .where('id', '=', tenantId)
            .execute();
        } else {
          // the clock moves on, past some flights' end
          now += pick([1, 5, 13, 30]) * HOUR;
        }
        const updated = await kept.compile(t.store.db, now);
        if (!kept.lastBuildFull) merged++;
        const scratch = await new SnapshotCompiler().compile(t.store.db, now);
        expect(view(updated, now), `step ${step}`).toEqual(view(scratch, now));
      }
      // most edits were merged, not compiled whole: the comparison above covered the merge
      expect(merged).toBeGreaterThan(20);
    });
  });
});
