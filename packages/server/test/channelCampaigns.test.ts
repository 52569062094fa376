import {
  type ActivityEntry,
  campaignRunsOn,
  channelCampaignsPath,
  type ChannelScope,
  type DecisionTrace,
  type ListItem,
} from '@adplane/shared';
import { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfigVersion } from '../src/store/configVersion.js';
import { edgeRequest } from './edgeClient.js';
import { as, buildTestApp, createAs, forEachStore, freshAddress, login } from './helpers.js';
import { publisherTenant } from './tenantFixture.js';

/**
 * A channel's campaigns set from the channel (PUT /api/demand/channels/:id/campaigns), through the
 * real app on each store: the body is the exact set of the account's live campaigns that run on the
 * channel, and each campaign whose assignment disagrees is saved with the smallest change ('all'
 * stays or becomes "all but this one", "only these" gains or loses the channel, "all but these" loses
 * or gains it), each save with its history entry and a new config version; a campaign the channel
 * was the last of is refused (it would run nowhere), as are other accounts' and unknown campaigns,
 * naming `campaignIds`, with nothing written. Only who may edit channels and campaigns may do it.
 * Then a VAST player on the channel meets the campaigns assigned to it, and not the others.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const usd = (n: number) => Math.round(n * 1_000_000);
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';

type Send = (options: InjectOptions) => Promise<LightMyRequestResponse>;

/** The live campaigns of the caller's account that run on the channel now (demo campaigns too), by id. */
async function runningOn(send: Send, channelId: number): Promise<number[]> {
  const res = await send({ method: 'GET', url: '/api/demand/campaigns/list' });
  expect(res.statusCode, res.body).toBe(200);
  return res
    .json<ListItem[]>()
    .filter(
      (c) =>
        c.archived !== true &&
        campaignRunsOn(c.channelScope as ChannelScope, c.channelIds as number[] | undefined, channelId),
    )
    .map((c) => Number(c.id));
}

/** PUT the channel's campaigns: those running now, plus `add`, less `drop`. */
async function assign(send: Send, channelId: number, change: { add?: number[]; drop?: number[] }) {
  const now = await runningOn(send, channelId);
  const campaignIds = [...new Set([...now, ...(change.add ?? [])])].filter((id) => !change.drop?.includes(id));
  return send({ method: 'PUT', url: channelCampaignsPath(channelId), payload: { campaignIds } });
}

forEachStore((t) => {
  describe('the route', () => {
    let app: FastifyInstance;
    let cookie: string;
    const send: Send = (options) => as(app, cookie, options);
    const channel = (name: string) => createAs(app, cookie, 'channels', { name });
    const campaign = async (name: string, channelScope: ChannelScope, channelIds: number[] = []) =>
      (
        await createAs(app, cookie, 'campaigns', {
          name,
          startDate: day(-1),
          bidCpm: usd(4),
          channelScope,
          channelIds,
        })
      ).id;
    const assignmentOf = async (id: number) => {
      const res = await send({ method: 'GET', url: `/api/demand/campaigns/${id}` });
      expect(res.statusCode, res.body).toBe(200);
      const { channelScope, channelIds } = res.json<{ channelScope: string; channelIds: number[] }>();
      return { channelScope, channelIds };
    };
    const historyOf = async (id: number) =>
      (await send({ method: 'GET', url: `/api/demand/campaigns/${id}/history` })).json<ActivityEntry[]>();

    beforeAll(async () => {
      app = await buildTestApp(t.store);
      cookie = await login(app, 'demand', undefined, freshAddress());
    });
    afterAll(() => app.close());

    it('rewrites each campaign that disagrees, minimally, with a history entry and a config version each', {
      timeout: 60_000,
    }, async () => {
      const a = (await channel('Assign A')).id;
      const b = (await channel('Assign B')).id;
      const c = (await channel('Assign C')).id;
      const ids = {
        keepAll: await campaign('Assign keeps all', 'all'),
        allOff: await campaign('Assign all, not A', 'all'),
        onlyB: await campaign('Assign only B', 'include', [b]),
        onlyAB: await campaign('Assign only A and B', 'include', [a, b]),
        notA: await campaign('Assign all but A', 'exclude', [a]),
        notAC: await campaign('Assign all but A and C', 'exclude', [a, c]),
        notB: await campaign('Assign all but B', 'exclude', [b]),
      };
      const historyBefore = await historyOf(ids.keepAll);
      const versionBefore = await readConfigVersion(t.store.db);

      const res = await assign(send, a, {
        add: [ids.keepAll, ids.onlyB, ids.notA, ids.notAC],
        drop: [ids.allOff, ids.onlyAB, ids.notB],
      });
      expect(res.statusCode, res.body).toBe(200);
      const answer = res.json<{ channelId: number; campaignIds: number[]; changed: number[] }>();
      expect(answer.channelId).toBe(a);
      expect([...answer.changed].sort((x, y) => x - y)).toEqual(
        [ids.allOff, ids.onlyB, ids.onlyAB, ids.notA, ids.notAC, ids.notB].sort((x, y) => x - y),
      );
      expect(answer.campaignIds).toEqual(expect.arrayContaining([ids.keepAll, ids.onlyB, ids.notA, ids.notAC]));
      expect(answer.campaignIds).not.toEqual(expect.arrayContaining([ids.allOff]));

      // to run here: 'all' stays, "only" gains A, "all but" loses A (none left: all channels)
      expect(await assignmentOf(ids.keepAll)).toEqual({ channelScope: 'all', channelIds: [] });
      expect(await assignmentOf(ids.onlyB)).toEqual({ channelScope: 'include', channelIds: [b, a] });
      expect(await assignmentOf(ids.notA)).toEqual({ channelScope: 'all', channelIds: [] });
      expect(await assignmentOf(ids.notAC)).toEqual({ channelScope: 'exclude', channelIds: [c] });
      // not to run here: "only" loses A, "all but" gains it, 'all' becomes all but A
      expect(await assignmentOf(ids.onlyAB)).toEqual({ channelScope: 'include', channelIds: [b] });
      expect(await assignmentOf(ids.notB)).toEqual({ channelScope: 'exclude', channelIds: [b, a] });
      expect(await assignmentOf(ids.allOff)).toEqual({ channelScope: 'exclude', channelIds: [a] });
      expect(await runningOn(send, a)).toEqual(expect.arrayContaining(answer.campaignIds));
      expect((await runningOn(send, a)).length).toBe(answer.campaignIds.length);

      // each changed campaign has the entry a save writes, with what it was and what it is
      const [latest] = await historyOf(ids.onlyAB);
      expect(latest).toMatchObject({
        action: 'update',
        kind: 'campaigns',
        before: { channelScope: 'include', channelIds: [a, b] },
        after: { channelScope: 'include', channelIds: [b] },
      });
      expect((await historyOf(ids.allOff))[0]).toMatchObject({
        action: 'update',
        before: { channelScope: 'all' },
        after: { channelScope: 'exclude', channelIds: [a] },
      });
      // the campaign left as it was has no new entry
      expect(await historyOf(ids.keepAll)).toEqual(historyBefore);
      expect(await readConfigVersion(t.store.db)).toBeGreaterThanOrEqual(versionBefore + 6);

      // the same set again changes nothing, and moves no version
      const version = await readConfigVersion(t.store.db);
      const again = await send({
        method: 'PUT',
        url: channelCampaignsPath(a),
        payload: { campaignIds: answer.campaignIds },
      });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toMatchObject({ changed: [] });
      expect(await readConfigVersion(t.store.db)).toBe(version);
      // channel B's and C's campaigns did not move
      expect(await runningOn(send, b)).not.toContain(ids.notB);
      expect(await runningOn(send, c)).not.toContain(ids.notAC);
    });

    it('refuses a campaign the channel is the last of, naming it and campaignIds, and writes nothing', async () => {
      const a = (await channel('Stranding A')).id;
      const onlyA = await campaign('Stranded only A', 'include', [a]);
      const everywhere = await campaign('Stranding all', 'all');
      const version = await readConfigVersion(t.store.db);
      const res = await assign(send, a, { drop: [onlyA, everywhere] });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        field: 'campaignIds',
        message: expect.stringMatching(/Campaign 'Stranded only A' \(\d+\) runs only on this channel.*Pause/),
      });
      // the other campaign of the refused request is untouched
      expect((await send({ method: 'GET', url: `/api/demand/campaigns/${everywhere}` })).json()).toMatchObject({
        channelScope: 'all',
        channelIds: [],
      });
      expect(await readConfigVersion(t.store.db)).toBe(version);
    });

    it("refuses other accounts', unknown and archived campaigns and bad bodies, naming campaignIds", async () => {
      const a = (await channel('Refusing A')).id;
      const admin = await login(app, 'admin', undefined, freshAddress());
      const acme = t.users.acme!.id;
      const theirs = await as(app, admin, {
        method: 'POST',
        url: '/api/demand/campaigns',
        payload: { tenantId: acme, name: 'Acme campaign', startDate: day(-1), bidCpm: usd(2), channelScope: 'all' },
      });
      expect(theirs.statusCode, theirs.body).toBe(201);
      const archived = await campaign('Refused archived', 'all');
      const gone = await send({ method: 'POST', url: `/api/demand/campaigns/${archived}/archive`, payload: {} });
      expect(gone.statusCode, gone.body).toBe(200);
      const version = await readConfigVersion(t.store.db);

      const refused = async (payload: unknown, message?: RegExp) => {
        const res = await send({ method: 'PUT', url: channelCampaignsPath(a), payload: payload as object });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json<{ field: string }>().field).toMatch(/^campaignIds/);
        if (message) expect(res.json<{ message: string }>().message).toMatch(message);
      };
      const running = await runningOn(send, a);
      await refused({ campaignIds: [...running, theirs.json<{ id: number }>().id] }, /does not exist in the account/);
      await refused({ campaignIds: [...running, 987_654_321] }, /Campaign 987654321 does not exist/);
      await refused({ campaignIds: [...running, archived] }, /'Refused archived'.*is archived/);
      await refused({});
      await refused({ campaignIds: 'all' });
      await refused({ campaignIds: [running[0], running[0]] }, /twice/);
      await refused({ campaignIds: [-1] });
      expect(await readConfigVersion(t.store.db)).toBe(version);

      // a channel of another account, an unknown one, an archived one
      const acmeCookie = await login(app, 'acme', undefined, freshAddress());
      const acmeChannel = await createAs(app, acmeCookie, 'channels', { name: 'Acme channel of its own' });
      for (const id of [acmeChannel.id, 987_654_321]) {
        const res = await send({ method: 'PUT', url: channelCampaignsPath(id), payload: { campaignIds: [] } });
        expect(res.statusCode, res.body).toBe(404);
      }
      const old = (await channel('Refusing archived channel')).id;
      expect((await send({ method: 'POST', url: `/api/demand/channels/${old}/archive`, payload: {} })).statusCode).toBe(
        200,
      );
      const closed = await send({ method: 'PUT', url: channelCampaignsPath(old), payload: { campaignIds: [] } });
      expect(closed.statusCode, closed.body).toBe(409);
      const bad = await send({ method: 'PUT', url: channelCampaignsPath('x'), payload: { campaignIds: [] } });
      expect(bad.statusCode, bad.body).toBe(400);
    });

    it('is for those who may edit channels and campaigns', async () => {
      const a = (await channel('Rights A')).id;
      const mine = await campaign('Rights campaign', 'all');
      const body = { campaignIds: (await runningOn(send, a)).filter((id) => id !== mine) };
      const put = (who: string | null, id = a) =>
        as(app, who, { method: 'PUT', url: channelCampaignsPath(id), payload: body });

      // signed out: refused as every guarded route refuses it
      expect((await put(null)).statusCode).toBe(403);
      // a subpublisher reads its channels, an advertiser its campaigns: neither edits
      for (const role of ['sub', 'adv']) {
        const res = await put(await login(app, role, undefined, freshAddress()));
        expect(res.statusCode, `${role}: ${res.body}`).toBe(403);
      }
      // an account without the DSP view edits its channels but has no campaigns to edit
      const acme = await login(app, 'acme', undefined, freshAddress());
      const acmeChannel = await createAs(app, acme, 'channels', { name: 'Acme rights channel' });
      const noDsp = await put(acme, acmeChannel.id);
      expect(noDsp.statusCode, noDsp.body).toBe(403);
      expect(await assignmentOf(mine)).toEqual({ channelScope: 'all', channelIds: [] });

      // a team member of the account may; its history names who did it
      const manager = await login(app, 'manager', undefined, freshAddress());
      const done = await put(manager);
      expect(done.statusCode, done.body).toBe(200);
      expect(done.json()).toMatchObject({ changed: [mine] });
      expect(await assignmentOf(mine)).toEqual({ channelScope: 'exclude', channelIds: [a] });
      expect((await historyOf(mine))[0]).toMatchObject({ action: 'update', userId: t.users.manager!.id });
      // a platform admin may, on any account's channel
      const admin = await login(app, 'admin', undefined, freshAddress());
      const back = await as(app, admin, {
        method: 'PUT',
        url: channelCampaignsPath(a),
        payload: { campaignIds: [...body.campaignIds, mine] },
      });
      expect(back.statusCode, back.body).toBe(200);
      expect(await assignmentOf(mine)).toEqual({ channelScope: 'all', channelIds: [] });
    });
  });

  describe('the edge', () => {
    const MEDIA = {
      onlyB: 'https://cdn.assign-only-b.example/spot.mp4',
      everywhere: 'https://cdn.assign-everywhere.example/spot.mp4',
    } as const;
    const publisher = publisherTenant(
      t,
      async (p) => {
        for (const name of ['onlyB', 'everywhere'] as const)
          await p.videoSpot(`${name}Spot`, {
            name: `Assign ${name} spot`,
            width: 640,
            height: 360,
            bitrate: 900,
            advertiser: `assign-${name.toLowerCase()}.example`,
            mediaUrl: MEDIA[name],
          });
        await p.vastChannel('vastA', 'Assign VAST A', {});
        await p.vastChannel('vastB', 'Assign VAST B', {});
        const campaign = (name: keyof typeof MEDIA, bid: number, assignment: Record<string, unknown>) =>
          p.create(name, 'campaigns', {
            name: `Assign ${name}`,
            startDate: day(-1),
            endDate: day(30),
            bidCpm: usd(bid),
            creativeIds: [p.ids[`${name}Spot`]!.id],
            ...assignment,
          });
        await campaign('onlyB', 95, { channelScope: 'include', channelIds: [p.ids.vastB!.id] });
        await campaign('everywhere', 90, { channelScope: 'all' });
      },
      { listen: false, trustProxy: 'loopback', signInFrom: freshAddress() },
    );
    const { ids } = publisher;
    const servedOnA = async () => {
      const res = await edgeRequest(publisher.app, {
        url: `/vast/${ids.vastA!.uid}?w=640&h=360&ip=8.8.8.8`,
        headers: { 'user-agent': UA },
      });
      expect(res.statusCode, res.body).toBe(200);
      return Object.entries(MEDIA).find(([, url]) => res.body.includes(url))?.[0] ?? 'none';
    };
    /** The campaigns the channel's assignment left out of a decision on A (the debug trace). */
    const leftOutOfA = async () => {
      const res = await publisher.request({
        method: 'GET',
        url: `/vast/${ids.vastA!.uid}?w=640&h=360&ip=8.8.8.8&debug=1`,
        headers: { 'user-agent': UA },
      });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json<{ trace: DecisionTrace }>().trace.indexedOutCampaigns ?? [])
        .filter((c) => c.reason === 'channel_not_assigned')
        .map((c) => c.id);
    };

    it('serves on the channel the campaigns assigned from it, and not those taken off it', {
      timeout: 60_000,
    }, async () => {
      const send = publisher.request;
      expect(await servedOnA()).toBe('everywhere');
      expect(await leftOutOfA()).toContain(ids.onlyB!.id);

      // from the channel: "only B" runs on A too, "all channels" not on A
      const res = await assign(send, ids.vastA!.id, { add: [ids.onlyB!.id], drop: [ids.everywhere!.id] });
      expect(res.statusCode, res.body).toBe(200);
      await expect.poll(servedOnA, { timeout: 10_000 }).toBe('onlyB');
      const out = await leftOutOfA();
      expect(out).toContain(ids.everywhere!.id);
      expect(out).not.toContain(ids.onlyB!.id);

      // and back: "only B" leaves A (B stays), "all but A" runs everywhere again
      const back = await assign(send, ids.vastA!.id, { add: [ids.everywhere!.id], drop: [ids.onlyB!.id] });
      expect(back.statusCode, back.body).toBe(200);
      await expect.poll(servedOnA, { timeout: 10_000 }).toBe('everywhere');
      expect(await leftOutOfA()).toContain(ids.onlyB!.id);
      const onB = await edgeRequest(publisher.app, {
        url: `/vast/${ids.vastB!.uid}?w=640&h=360&ip=8.8.8.8`,
        headers: { 'user-agent': UA },
      });
      expect(onB.body).toContain(MEDIA.onlyB);
    });
  });
});
