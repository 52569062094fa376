import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Profile } from '@adplane/shared';
import { TestClock } from '../src/clock.js';
import { as, buildTestApp, forEachStore, login } from './helpers.js';
import { isoDay } from './testTime.js';

const DAY_MS = 24 * 3_600_000;

/** A demand account's contract end (the profile's contactExpired): the admins' account list and drawer say when it has passed or is near. */
forEachStore((t) => {
  let app: FastifyInstance;
  // noon UTC: the account's day is the UTC day whatever its offset of a few hours
  const clock = new TestClock(Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS / 2);
  let demandId = 0;
  beforeAll(async () => {
    app = await buildTestApp(t.store, {}, { clock });
    demandId = t.users.demand.id;
  });
  afterAll(async () => {
    await app.close();
  });

  const setContractEnd = async (date: string | null) => {
    const cookie = await login(app, 'demand');
    const profile = (await as(app, cookie, { method: 'GET', url: '/api/demand/info' })).json<Profile>();
    const saved = await as(app, cookie, {
      method: 'PUT',
      url: '/api/demand/info',
      payload: { name: profile.name, contactExpired: date },
    });
    expect(saved.statusCode, saved.body).toBe(200);
  };
  const asAdmin = async () => {
    const admin = await login(app, 'admin');
    const one = (await as(app, admin, { method: 'GET', url: `/api/demands/${demandId}` })).json<
      Record<string, unknown>
    >();
    const page = (await as(app, admin, { method: 'GET', url: '/api/demands?pageSize=100' })).json<{
      items: Record<string, unknown>[];
    }>();
    const list = (await as(app, admin, { method: 'GET', url: '/api/demands/list' })).json<Record<string, unknown>[]>();
    return {
      one,
      inPage: page.items.find((r) => r.id === demandId)!,
      inList: list.find((r) => r.id === demandId)!,
    };
  };

  it('marks a contract ending within 30 days as expiring, in the drawer, the list page and the shared list', async () => {
    const end = isoDay(clock.now(), 10);
    await setContractEnd(end);
    const { one, inPage, inList } = await asAdmin();
    for (const row of [one, inPage, inList])
      expect(row).toMatchObject({ contactExpired: end, contractState: 'expiring' });
  });

  it('marks it expired once its last day has passed on the app clock, and not before', async () => {
    clock.advance(10 * DAY_MS);
    expect((await asAdmin()).one.contractState).toBe('expiring');
    clock.advance(DAY_MS);
    const { one, inPage, inList } = await asAdmin();
    for (const row of [one, inPage, inList]) expect(row.contractState).toBe('expired');
  });

  it('says nothing of a contract far off or without an end date', async () => {
    await setContractEnd(isoDay(clock.now(), 90));
    expect((await asAdmin()).one.contractState).toBeNull();
    await setContractEnd(null);
    expect((await asAdmin()).one).toMatchObject({ contactExpired: null, contractState: null });
  });
});
