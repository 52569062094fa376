import { systemClock } from '../src/clock.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotCompiler } from '../src/edge/snapshot/compileSnapshot.js';
import { SnapshotHolder } from '../src/edge/snapshot/snapshotHolder.js';
import { as, buildTestApp, forEachStore, login } from './helpers.js';

/**
 * The snapshot's incremental rebuild (edge/snapshot/parsedRows.ts) reads only the rows stamped
 * lately, and falls back to every stamp when the row count says rows were deleted. Each change a
 * user can make must reach the next build, on both config stores.
 */
/** V8's full collection, from a test (`--expose-gc` set at run time reaches a new context's globals). */
function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

forEachStore((t) => {
  describe('a replaced snapshot', () => {
    let app: FastifyInstance;
    beforeAll(async () => {
      app = await buildTestApp(t.store);
    });
    afterAll(() => app.close());

    it('is let go: nothing in the app keeps the first snapshot alive after a rebuild', async () => {
      const gc = fullGc();
      const first = new WeakRef(app.edge.snapshots.current!);
      const demand = await login(app, 'demand');
      expect(
        (await as(app, demand, { method: 'POST', url: '/api/demand/channels', payload: { name: 'Replacement probe' } }))
          .statusCode,
      ).toBe(201);
      await app.edge.snapshots.rebuild();
      expect([...app.edge.snapshots.current!.channels.values()].some((c) => c.name === 'Replacement probe')).toBe(true);
      // a WeakRef holds its target until the end of the job that made or read it
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        gc();
      }
      expect(first.deref()).toBeUndefined();
    });
  });

  describe('snapshot rebuilds', () => {
    let app: FastifyInstance;
    let demand: string;
    const compiler = new SnapshotCompiler();
    const build = () => compiler.compile(t.store.db);
    const channelNamed = async (name: string) => [...(await build()).channels.values()].find((c) => c.name === name);

    beforeAll(async () => {
      app = await buildTestApp(t.store);
      demand = await login(app, 'demand');
      await build();
    });
    afterAll(() => app.close());

    it('sees a new row, an edit, a pause, an archive and a delete made after the first build', async () => {
      const created = await as(app, demand, {
        method: 'POST',
        url: '/api/demand/channels',
        payload: { name: 'Rebuild probe', floorCpm: 1_000_000 },
      });
      expect(created.statusCode).toBe(201);
      const id = created.json().id as number;
      expect((await channelNamed('Rebuild probe'))?.floorCpm).toBe(1_000_000);

      const edited = await as(app, demand, {
        method: 'PUT',
        url: `/api/demand/channels/${id}`,
        payload: { ...(created.json() as Record<string, unknown>), floorCpm: 2_500_000 },
      });
      expect(edited.statusCode, edited.body).toBe(200);
      expect((await channelNamed('Rebuild probe'))?.floorCpm).toBe(2_500_000);

      const paused = await as(app, demand, {
        method: 'PUT',
        url: `/api/demand/channels/${id}`,
        payload: { ...(edited.json() as Record<string, unknown>), status: 0 },
      });
      expect(paused.statusCode, paused.body).toBe(200);
      expect((await channelNamed('Rebuild probe'))?.serving).toBe(false);

      const resumed = await as(app, demand, {
        method: 'PUT',
        url: `/api/demand/channels/${id}`,
        payload: { ...(paused.json() as Record<string, unknown>), status: 1 },
      });
      expect(resumed.statusCode, resumed.body).toBe(200);
      expect((await channelNamed('Rebuild probe'))?.serving).toBe(true);

      // an archived channel stays known (its requests get an empty VAST and a counted reason), not serving
      expect(
        (await as(app, demand, { method: 'POST', url: `/api/demand/channels/${id}/archive`, payload: {} })).statusCode,
      ).toBeLessThan(300);
      expect((await channelNamed('Rebuild probe'))?.serving).toBe(false);

      expect(
        (await as(app, demand, { method: 'POST', url: `/api/demand/channels/${id}/restore`, payload: {} })).statusCode,
      ).toBeLessThan(300);
      expect((await channelNamed('Rebuild probe'))?.serving).toBe(true);

      expect((await as(app, demand, { method: 'DELETE', url: `/api/demand/channels/${id}` })).statusCode).toBeLessThan(
        300,
      );
      expect(await channelNamed('Rebuild probe')).toBeUndefined();
    });

    it('sees a row deleted behind its back and one stamped a little before the newest stamp', async () => {
      const before = await build();
      const victim = [...before.channels.values()][0]!;
      await sql`delete from entity_refs where from_kind = 'channels' and from_id = ${victim.id}`
        .execute(t.store.db)
        .catch(() => undefined);
      await sql`delete from supply_channels where id = ${victim.id}`.execute(t.store.db);
      expect((await build()).channels.has(victim.id)).toBe(false);

      // a write committed late, stamped two seconds before the newest stamp the last build saw. The
      // newest stamp a build saw may be a deleted row's (the probe of the test before): a third channel
      // stamped now, and built, makes the newest stamp the build saw the newest in the table.
      const other = [...before.channels.values()][1]!;
      const third = [...before.channels.values()][2]!;
      await sql`update supply_channels set updated_at = ${new Date(systemClock.now()).toISOString()} where id = ${third.id}`.execute(
        t.store.db,
      );
      await build();
      const newest = await sql<{ m: unknown }>`select max(updated_at) as m from supply_channels`.execute(t.store.db);
      const m = newest.rows[0]!.m;
      const late = new Date((m instanceof Date ? m.getTime() : Date.parse(String(m))) - 2000).toISOString();
      await sql`update supply_channels set data = ${JSON.stringify({ ...JSON.parse(String((await sql<{ data: string }>`select data from supply_channels where id = ${other.id}`.execute(t.store.db)).rows[0]!.data)), floorCpm: 7_770_000 })}, updated_at = ${late} where id = ${other.id}`.execute(
        t.store.db,
      );
      expect((await build()).channels.get(other.id)?.floorCpm).toBe(7_770_000);
    });

    it('checks the version again after a build when a change notice came while it ran (the write may follow its reads)', async () => {
      let during: (() => Promise<void>) | null = null;
      const quiet = { info: () => undefined, error: () => undefined };
      // no polling in the test's time: only the notice can bring the change
      const holder = new SnapshotHolder(t.store.db, quiet, 600_000, systemClock, async (db) => {
        const snap = await compiler.compile(db);
        const write = during;
        during = null;
        await write?.();
        return snap;
      });
      await holder.start();
      const has = (name: string) => [...holder.current!.channels.values()].some((c) => c.name === name);
      try {
        during = async () => {
          // committed after the build read the version and the rows; its notice arrives before the build ends
          expect(
            (
              await as(app, demand, {
                method: 'POST',
                url: '/api/demand/channels',
                payload: { name: 'Heard mid-build' },
              })
            ).statusCode,
          ).toBe(201);
          holder.poke();
        };
        await holder.rebuild();
        expect(has('Heard mid-build')).toBe(false);
        for (const until = Date.now() + 2_000; !has('Heard mid-build') && Date.now() < until; )
          await new Promise((r) => setTimeout(r, 10));
        expect(has('Heard mid-build')).toBe(true);
      } finally {
        holder.stop();
      }
    });

    it('compiles in steps with the event loop turning between them, the snapshot it replaces left as it was built', async () => {
      let steps = 0;
      let onStep = (): void => {};
      const stepped = new SnapshotCompiler(systemClock, async () => {
        steps++;
        onStep();
        await new Promise<void>((resolve) => setImmediate(resolve));
      });
      const serving = await stepped.compile(t.store.db);
      const campaign = [...serving.campaigns.values()].find((c) => c.tenantId === t.users.demand!.id)!;
      const bid = campaign.bidCpm;
      const url = `/api/demand/campaigns/${campaign.id}`;
      const body = (await as(app, demand, { method: 'GET', url })).json() as Record<string, unknown>;
      const moved = await as(app, demand, { method: 'PUT', url, payload: { ...body, bidCpm: bid + 10_000 } });
      expect(moved.statusCode, moved.body).toBe(200);
      try {
        // what a request served from the current snapshot reads at each step of the next build
        const seen: number[] = [];
        onStep = () => seen.push(serving.campaigns.get(campaign.id)!.bidCpm);
        steps = 0;
        const next = await stepped.compile(t.store.db);
        // one campaign changed: the build merges it into the last one's campaigns (campaignDelta.ts), in fewer steps
        expect(stepped.lastBuildFull).toBe(false);
        expect(steps).toBeGreaterThanOrEqual(4);
        expect(new Set(seen)).toEqual(new Set([bid]));
        expect(next.campaigns.get(campaign.id)!.bidCpm).toBe(bid + 10_000);
      } finally {
        const back = await as(app, demand, { method: 'PUT', url, payload: { ...body, bidCpm: bid } });
        expect(back.statusCode, back.body).toBe(200);
      }
    });

    it("serves a tenant's campaigns only while it has the DSP view (campaigns are DSP mode)", async () => {
      const tenantId = t.users.demand!.id;
      const live = () =>
        build().then((snap) => [...snap.campaigns.values()].filter((c) => c.tenantId === tenantId).length);
      expect(await live()).toBeGreaterThan(0);
      await sql`update users set show_dsp = 0 where id = ${tenantId}`.execute(t.store.db);
      try {
        expect(await live()).toBe(0);
      } finally {
        await sql`update users set show_dsp = 1 where id = ${tenantId}`.execute(t.store.db);
      }
      expect(await live()).toBeGreaterThan(0);
    });
  });
});
