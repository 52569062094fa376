import { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as, buildTestApp, forEachStore, login } from '../../../test/helpers.js';
import { ParsedRows } from './parsedRows.js';

/**
 * The rows a rebuild keeps (parsedRows.ts): each id's stamp, value and skip reasons at a slot of flat
 * arrays. A rebuild parses only what changed, forgets what was deleted, gives its slot to the next
 * new row, and answers in the order ids were first seen.
 */
forEachStore((t) => {
  describe('ParsedRows', () => {
    let app: FastifyInstance;
    let demand: string;
    beforeAll(async () => {
      app = await buildTestApp(t.store);
      demand = await login(app, 'demand');
    });
    afterAll(() => app.close());

    it('parses only the changed rows, forgets deleted ones and reuses their slots', async () => {
      let parsed: number[] = [];
      const rows = new ParsedRows('channels', (row) => {
        parsed.push(row.id);
        return row.name?.startsWith('Broken') ? null : { id: row.id, name: row.name };
      });
      const load = async () => {
        parsed = [];
        const sink = { skipped: [] };
        return (await rows.load(t.store.db, sink)).map((r) => r.id);
      };
      const all = await load();
      expect(all.length).toBeGreaterThan(2);
      expect([...parsed].sort()).toEqual([...all].sort());

      // nothing changed: nothing parsed, the same rows in the same order
      expect(await load()).toEqual(all);
      expect(parsed).toEqual([]);

      // one row stamped later: that one alone is parsed again
      const [first, second] = all as [number, number];
      await sql`update supply_channels set updated_at = ${new Date(Date.now() + 1000).toISOString()} where id = ${second}`.execute(
        t.store.db,
      );
      expect(await load()).toEqual(all);
      expect(parsed).toEqual([second]);

      // a row deleted behind the build's back: the count does not add up, every stamp is read, it is gone
      await sql`delete from entity_refs where from_kind = 'channels' and from_id = ${first}`
        .execute(t.store.db)
        .catch(() => undefined);
      await sql`delete from supply_channels where id = ${first}`.execute(t.store.db);
      const afterDelete = await load();
      expect(afterDelete).toEqual(all.filter((id) => id !== first));
      expect(parsed).toEqual([]);

      // a new row takes the freed slot, and comes last (first seen last); one its parser refuses is left out
      const created = await as(app, demand, {
        method: 'POST',
        url: '/api/demand/channels',
        payload: { name: 'Slot probe' },
      });
      expect(created.statusCode, created.body).toBe(201);
      const refused = await as(app, demand, {
        method: 'POST',
        url: '/api/demand/channels',
        payload: { name: 'Broken probe' },
      });
      expect(refused.statusCode, refused.body).toBe(201);
      const afterCreate = await load();
      expect(afterCreate).toEqual([...afterDelete, created.json().id as number]);
      expect([...parsed].sort()).toEqual([created.json().id as number, refused.json().id as number].sort());

      // the refused row, fixed, is parsed again and served
      await as(app, demand, {
        method: 'PUT',
        url: `/api/demand/channels/${refused.json().id as number}`,
        payload: { ...(refused.json() as Record<string, unknown>), name: 'Fixed probe' },
      });
      expect(await load()).toEqual([...afterDelete, created.json().id as number, refused.json().id as number]);
    });
  });
});
