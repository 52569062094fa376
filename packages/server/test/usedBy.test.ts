import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type UsedByGroup } from '@adplane/shared';
import { as, buildTestApp, createAs, forEachStore, freshAddress, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';

/**
 * GET {api}/:id/usedBy: who uses a row, from the kinds' declared references, grouped by kind, in the
 * caller's scope: a demand tag its channels, a list its targetings, a targeting its users, a deal its
 * campaigns, an advertiser its campaigns, tags and creatives.
 */
forEachStore((t) => {
  let app: FastifyInstance;
  const cookies: Record<string, string> = {};
  const run = `${Date.now() % 100_000}`;

  beforeAll(async () => {
    app = await buildTestApp(t.store);
    for (const user of ['demand', 'acme', 'adv', 'sub'])
      cookies[user] = await login(app, user, undefined, freshAddress());
  });
  afterAll(async () => {
    await app?.close();
  });

  const usedBy = (user: string, path: string) =>
    as(app, cookies[user], { method: 'GET', url: `/api/demand/${path}/usedBy` });
  const names = (groups: UsedByGroup[]) => groups.map((g) => [g.kind, g.items.map((i) => i.name)]);

  it('answers who uses a tag, a list, a targeting, a deal and an advertiser, grouped by kind', async () => {
    const tag = await createAs(app, cookies.demand, 'tags', { ...sampleBody('tags', 1), name: `Used tag ${run}` });
    const apps = await createAs(app, cookies.demand, 'applists', {
      ...sampleBody('applists', 1),
      name: `Used apps ${run}`,
    });
    const targeting = await createAs(app, cookies.demand, 'targetings', {
      name: `Uses apps ${run}`,
      rules: { appLists: { mode: 'include', ids: [apps.id] } },
    });
    await createAs(app, cookies.demand, 'channels', {
      ...sampleBody('channels', 1),
      name: `B channel ${run}`,
      demand: [{ tagId: tag.id, priority: 1 }],
      targetingId: targeting.id,
    });
    const paused = await createAs(app, cookies.demand, 'channels', {
      ...sampleBody('channels', 2),
      name: `A channel ${run}`,
      status: 0,
      demand: [{ tagId: tag.id, priority: 1 }],
    });
    const deal = await createAs(app, cookies.demand, 'deals', {
      ...sampleBody('deals', 1),
      name: `Used deal ${run}`,
      dealId: `D-${run}`,
    });
    const advertiser = t.users.adv.id;
    const campaign = await createAs(app, cookies.demand, 'campaigns', {
      ...sampleBody('campaigns', 1),
      name: `Deal campaign ${run}`,
      dealIds: [deal.id],
      targetingId: targeting.id,
      advertiserId: advertiser,
    });

    const tagUsers = await usedBy('demand', `tags/${tag.id}`);
    expect(tagUsers.statusCode, tagUsers.body).toBe(200);
    const groups = tagUsers.json<UsedByGroup[]>();
    expect(names(groups)).toEqual([['channels', [`A channel ${run}`, `B channel ${run}`]]]);
    expect(groups[0]).toMatchObject({ label: 'Channel', plural: 'Channels' });
    expect(groups[0]!.items[0]).toEqual({
      kind: 'channels',
      id: paused.id,
      name: `A channel ${run}`,
      status: 0,
      archived: false,
      fields: ['demand'],
    });

    expect(names((await usedBy('demand', `applists/${apps.id}`)).json())).toEqual([
      ['targetings', [`Uses apps ${run}`]],
    ]);
    expect(names((await usedBy('demand', `targetings/${targeting.id}`)).json())).toEqual([
      ['channels', [`B channel ${run}`]],
      ['campaigns', [`Deal campaign ${run}`]],
    ]);
    expect(names((await usedBy('demand', `deals/${deal.id}`)).json())).toEqual([
      ['campaigns', [`Deal campaign ${run}`]],
    ]);
    const advUsers = (await usedBy('demand', `advs/${advertiser}`)).json<UsedByGroup[]>();
    expect(advUsers.find((g) => g.kind === 'campaigns')!.items.map((i) => i.id)).toContain(campaign.id);

    // archived users stay listed, marked, after the live ones
    expect(
      (
        await as(app, cookies.demand, {
          method: 'POST',
          url: `/api/demand/campaigns/${campaign.id}/archive`,
          payload: {},
        })
      ).statusCode,
    ).toBe(200);
    expect((await usedBy('demand', `deals/${deal.id}`)).json<UsedByGroup[]>()[0]!.items[0]).toMatchObject({
      id: campaign.id,
      archived: true,
    });
    // a row nobody uses answers no groups
    expect(
      (
        await usedBy(
          'demand',
          `deals/${(await createAs(app, cookies.demand, 'deals', { ...sampleBody('deals', 2), dealId: `E-${run}` })).id}`,
        )
      ).json(),
    ).toEqual([]);
  });

  it('keeps other tenants out and shows only the users the caller may see', async () => {
    const tag = await createAs(app, cookies.demand, 'tags', {
      ...sampleBody('tags', 2),
      name: `Scoped tag ${run}`,
      advertiserId: t.users.adv.id,
    });
    await createAs(app, cookies.demand, 'channels', {
      ...sampleBody('channels', 3),
      name: `Scoped channel ${run}`,
      demand: [{ tagId: tag.id, priority: 1 }],
    });
    expect((await usedBy('acme', `tags/${tag.id}`)).statusCode).toBe(404);
    // the adv user reads its tag, but channels are not its to see
    const adv = await usedBy('adv', `tags/${tag.id}`);
    expect(adv.statusCode, adv.body).toBe(200);
    expect(adv.json()).toEqual([]);
    expect((await usedBy('sub', `tags/${tag.id}`)).statusCode).toBe(403);
    expect((await usedBy('adv', `advs/${t.users.adv.id}`)).statusCode).toBe(403);
    const bad = await usedBy('demand', 'tags/abc');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ field: 'id' });
    expect((await as(app, null, { method: 'GET', url: `/api/demand/tags/${tag.id}/usedBy` })).statusCode).toBe(403);
  });
});
