import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Profile } from '@adplane/shared';
import { TestClock } from '../src/clock.js';
import { archiveOldCreatives, OLD_CREATIVE_DAYS } from '../src/resources/oldCreatives.js';
import { listActivity } from '../src/store/activity.js';
import { as, buildTestApp, createAs, forEachStore, grantDsp, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';
import { statsRow } from './statsEngines.js';
import { hourText } from './testTime.js';

const DAY_MS = 24 * 3_600_000;

/** "Delete old creatives automatically": the tenant's creatives unused for 30 days are archived, each logged. */
forEachStore((t) => {
  let app: FastifyInstance;
  const clock = new TestClock(Date.now(), { running: true });
  const ids = { idle: 0, served: 0, inCampaign: 0, otherTenant: 0 };
  let cookie = '';

  beforeAll(async () => {
    app = await buildTestApp(t.store, {}, { clock });
    await grantDsp(t.store, t.users.demand.id);
    await grantDsp(t.store, t.users.acme.id);
    cookie = await login(app, 'demand');
    const profile = (await as(app, cookie, { method: 'GET', url: '/api/demand/info' })).json<Profile>();
    const saved = await as(app, cookie, {
      method: 'PUT',
      url: '/api/demand/info',
      payload: { name: profile.name, delOldCreatives: 1 },
    });
    expect(saved.json<Profile>().delOldCreatives).toBe(1);
    ids.idle = (await createAs(app, cookie, 'creatives', sampleBody('creatives', 901))).id;
    ids.served = (await createAs(app, cookie, 'creatives', sampleBody('creatives', 902))).id;
    ids.inCampaign = (await createAs(app, cookie, 'creatives', sampleBody('creatives', 903))).id;
    await createAs(app, cookie, 'campaigns', { ...sampleBody('campaigns', 903), creativeIds: [ids.inCampaign] });
    // acme has not asked for its old creatives to go
    ids.otherTenant = (await createAs(app, await login(app, 'acme'), 'creatives', sampleBody('creatives', 904))).id;
    // the served creative's last impression: 10 days from now, inside the window once the clock is 31 days on
    await app.stats.write([
      statsRow({
        hour: hourText(clock.now() + 10 * DAY_MS),
        tenant_id: t.users.demand.id,
        creative_id: ids.served,
        imps: 3,
      }),
    ]);
  });
  afterAll(async () => {
    await app.close();
  });

  const mine = (archived: number[]) => archived.filter((id) => Object.values(ids).includes(id));
  const archivedFlag = async (id: number) =>
    (await as(app, cookie, { method: 'GET', url: `/api/demand/creatives/${id}` })).json<{ archived: boolean }>()
      .archived;

  it('archives nothing fresh', async () => {
    expect(mine(await archiveOldCreatives(t.store, app.stats, clock.now()))).toEqual([]);
    expect(await archivedFlag(ids.idle)).toBe(false);
  });

  it(`archives, after ${OLD_CREATIVE_DAYS} days unused, only the creative with no impression and no live campaign`, async () => {
    clock.advance((OLD_CREATIVE_DAYS + 1) * DAY_MS);
    cookie = await login(app, 'demand'); // the session ended with the days gone by
    expect(mine(await archiveOldCreatives(t.store, app.stats, clock.now()))).toEqual([ids.idle]);
    expect(await archivedFlag(ids.idle)).toBe(true);
    expect(await archivedFlag(ids.served)).toBe(false);
    expect(await archivedFlag(ids.inCampaign)).toBe(false);
    const log = await listActivity(t.store.db, {
      tenantId: t.users.demand.id,
      kind: 'creatives',
      entityId: ids.idle,
    });
    expect(log[0]).toMatchObject({ action: 'archive', userId: null, adminId: null, tenantId: t.users.demand.id });
    expect(log[0].after).toMatchObject({ archived: true });
  });

  it('is idempotent: a second run archives nothing and logs nothing more', async () => {
    expect(mine(await archiveOldCreatives(t.store, app.stats, clock.now()))).toEqual([]);
    const log = await listActivity(t.store.db, { tenantId: null, kind: 'creatives', entityId: ids.idle });
    expect(log.filter((e) => e.action === 'archive')).toHaveLength(1);
  });

  it('leaves the tenants without the setting alone, and the served creative until its impression is 30 days old', async () => {
    clock.advance(OLD_CREATIVE_DAYS * DAY_MS);
    expect(mine(await archiveOldCreatives(t.store, app.stats, clock.now()))).toEqual([ids.served]);
    const acme = await login(app, 'acme');
    const other = await as(app, acme, { method: 'GET', url: `/api/demand/creatives/${ids.otherTenant}` });
    expect(other.json<{ archived: boolean }>().archived).toBe(false);
  });
});
