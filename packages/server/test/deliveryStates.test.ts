import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DecisionTrace, type DeliveryState, type DeliveryStatesAnswer } from '@adplane/shared';
import { edgeRequest } from './edgeClient.js';
import { bumpConfigVersion } from '../src/store/configVersion.js';
import { as, buildTestApp, createAs, forEachStore, login } from './helpers.js';
import { sampleBody } from './resourceSamples.js';
import { midHourClock } from './testTime.js';

/**
 * GET /api/deliveryStates through the real app on both config stores: each reason a campaign,
 * creative, demand tag, channel or deal does not serve appears, and clears when it is fixed; the edge
 * really does not serve a campaign the state calls not serving, and serves it once the state says it
 * serves (VAST requests through the edge's own door, traced with debug=1); the states are scoped to
 * the caller's tenant; an api-role process (no edge) answers the same from its own compile.
 */
const day = (ms: number, offset: number) => new Date(ms + offset * 86_400_000).toISOString().slice(0, 10);
const BID = 90_000_000; // $90 CPM: above every seeded campaign, so ours wins while it may
const PER_IMP = BID / 1000;

forEachStore((t) => {
  describe('delivery states', () => {
    let app: FastifyInstance;
    let cookie: string;
    let channelUid = '';
    let channelId = 0;
    let now = 0;

    beforeAll(async () => {
      const clock = midHourClock();
      app = await buildTestApp(t.store, {}, { clock });
      now = clock.now();
      cookie = await login(app, 'demand');
      const channel = await createAs(app, cookie, 'channels', { ...sampleBody('channels', 901), floorCpm: 0 });
      channelUid = channel.uid;
      channelId = channel.id;
    });
    afterAll(async () => {
      await app?.close();
    });

    const statesOf = async (kind: string, ids: number[], server = app, who = cookie) => {
      const res = await as(server, who, {
        method: 'GET',
        url: `/api/deliveryStates?kind=${kind}&ids=${ids.join(',')}`,
      });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as DeliveryStatesAnswer).states;
    };
    const stateOf = async (kind: string, id: number): Promise<DeliveryState> => (await statesOf(kind, [id]))[0]!;
    const codes = (s: DeliveryState) => s.reasons.map((r) => r.code);

    const creative = (name: string, approval: 'pending' | 'approved' | 'rejected') =>
      createAs(app, cookie, 'creatives', {
        ...sampleBody('creatives'),
        name,
        approval,
        mediaFiles: [
          {
            url: `https://cdn.example.com/${encodeURIComponent(name)}.mp4`,
            mime: 'video/mp4',
            duration: 15,
            width: 640,
            height: 360,
            bitrate: 800,
          },
        ],
      });
    const campaign = (name: string, extra: Record<string, unknown>) =>
      createAs(app, cookie, 'campaigns', {
        name,
        startDate: day(now, -2),
        endDate: day(now, 30),
        bidCpm: BID,
        channelScope: 'all',
        pacing: 'asap',
        ...extra,
      });
    const put = async (kind: string, id: number, changes: Record<string, unknown>) => {
      const row = (await as(app, cookie, { method: 'GET', url: `/api/demand/${kind}/${id}` })).json() as Record<
        string,
        unknown
      >;
      const res = await as(app, cookie, {
        method: 'PUT',
        url: `/api/demand/${kind}/${id}`,
        payload: { ...row, ...changes },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    /** The campaign that won a VAST request on our channel, as the edge's trace names it, and the VAST. */
    const serve = async (n: number) => {
      await app.edge.snapshots.rebuild();
      const res = await edgeRequest(app, {
        cookie,
        method: 'GET',
        url: `/vast/${channelUid}?w=640&h=360&ip=8.8.8.8&device_id=state-${n}&debug=1`,
      });
      expect(res.statusCode, res.body).toBe(200);
      const { vast, trace } = res.json() as { vast: string; trace: DecisionTrace };
      return { vast, winner: trace.winner?.source === 'campaign' ? trace.winner.id : null };
    };

    it('a campaign whose only creative is pending does not serve, and serves once it is approved', async () => {
      const pending = await creative('Spring spot', 'pending');
      const id = (await campaign('Pending only', { creativeIds: [pending.id] })).id;
      const before = await stateOf('campaigns', id);
      expect(before).toMatchObject({ id, serving: false });
      expect(before.reasons).toEqual([{ code: 'creative_pending', message: 'Creative pending approval: Spring spot' }]);
      expect(codes(await stateOf('creatives', pending.id))).toEqual(['creative_pending']);
      // the edge agrees: it never picks the campaign
      expect((await serve(1)).winner).not.toBe(id);

      await put('creatives', pending.id, { approval: 'approved' });
      expect(await stateOf('campaigns', id)).toEqual({ id, serving: true, reasons: [] });
      expect(await stateOf('creatives', pending.id)).toEqual({ id: pending.id, serving: true, reasons: [] });
      const after = await serve(2);
      expect(after.winner).toBe(id);
      expect(after.vast).toContain('Spring%20spot.mp4');
      await put('campaigns', id, { status: 0 });
    });

    it('a rejected creative, no creative, and every reason at once', async () => {
      const rejected = await creative('Bad spot', 'rejected');
      const none = (await campaign('No creative', { creativeIds: [] })).id;
      const many = (
        await campaign('Everything wrong', {
          status: 0,
          creativeIds: [rejected.id],
          totalBudget: 0,
          startDate: day(now, -20),
          endDate: day(now, -10),
        })
      ).id;
      const [a, b] = await statesOf('campaigns', [none, many]);
      expect(a!.reasons).toEqual([
        { code: 'no_creative', message: 'No approved creative that can serve: it has no creative' },
      ]);
      expect(codes(b!)).toEqual(['paused', 'creative_rejected', 'flight_ended', 'budget_zero_total']);
      expect(b!.reasons[1]!.message).toBe('Creative rejected: Bad spot');
    });

    it('a $0 total budget never spends: not serving until it is raised, and the edge never picks it', async () => {
      const spot = await creative('Zero spot', 'approved');
      const id = (await campaign('Zero budget', { creativeIds: [spot.id], totalBudget: 0 })).id;
      expect((await stateOf('campaigns', id)).reasons).toEqual([
        { code: 'budget_zero_total', message: 'Total budget is $0: it never spends' },
      ]);
      expect((await serve(3)).winner).not.toBe(id);
      await put('campaigns', id, { totalBudget: 1_000 * PER_IMP });
      expect((await stateOf('campaigns', id)).serving).toBe(true);
      expect((await serve(4)).winner).toBe(id);
      await put('campaigns', id, { status: 0 });
    });

    it("today's budget spent once the edge counted it, and the flight not started yet", async () => {
      const spot = await creative('Daily spot', 'approved');
      const id = (await campaign('One a day', { creativeIds: [spot.id], dailyBudget: PER_IMP })).id;
      const later = (await campaign('Later', { creativeIds: [spot.id], startDate: day(now, 5) })).id;
      expect((await stateOf('campaigns', id)).serving).toBe(true);
      expect((await stateOf('campaigns', later)).reasons).toEqual([
        { code: 'flight_not_started', message: `The flight has not started: starts ${day(now, 5)}` },
      ]);
      const { vast, winner } = await serve(5);
      expect(winner).toBe(id);
      const impression = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(vast)![1]!;
      expect(
        (await edgeRequest(app, { method: 'GET', url: impression.slice(impression.indexOf('/ev')) })).statusCode,
      ).toBe(200);
      await app.edge.pacing.delivery.flush();
      expect((await stateOf('campaigns', id)).reasons).toEqual([
        { code: 'budget_spent_daily', message: "Today's budget spent" },
      ]);
      expect((await serve(6)).winner).not.toBe(id);
      await put('campaigns', id, { status: 0 });
    });

    it('a demand tag on no channel is never called, until a channel lists it', async () => {
      const tag = await createAs(app, cookie, 'tags', { ...sampleBody('tags', 902) });
      expect((await stateOf('tags', tag.id)).reasons).toEqual([
        { code: 'no_channel', message: 'Not on any channel: nothing calls it' },
      ]);
      await put('channels', channelId, { demand: [{ tagId: tag.id, priority: 1 }] });
      expect(await stateOf('tags', tag.id)).toEqual({ id: tag.id, serving: true, reasons: [] });
      await put('channels', channelId, { status: 0 });
      expect(codes(await stateOf('tags', tag.id))).toEqual(['channels_not_serving']);
      expect(codes(await stateOf('channels', channelId))).toEqual(['paused']);
      await put('channels', channelId, { status: 1, demand: [] });
      const capped = await createAs(app, cookie, 'tags', { ...sampleBody('tags', 903), dailyImpCap: 0 });
      expect((await stateOf('tags', capped.id)).reasons).toEqual([
        { code: 'cap_zero', message: 'A cap is 0, so it is never called: daily impression cap' },
        { code: 'no_channel', message: 'Not on any channel: nothing calls it' },
      ]);
    });

    it('a demand tag whose daily request cap the edge reached today: not serving until tomorrow', async () => {
      const tag = await createAs(app, cookie, 'tags', {
        ...sampleBody('tags', 906),
        dailyRequestCap: 1,
        timeoutMs: 200,
      });
      await put('channels', channelId, { demand: [{ tagId: tag.id, priority: 1 }] });
      try {
        expect((await stateOf('tags', tag.id)).serving).toBe(true);
        // the call is counted when the edge makes it, whatever the partner answers
        await serve(9);
        await app.edge.pacing.delivery.flush();
        expect((await stateOf('tags', tag.id)).reasons).toEqual([
          { code: 'daily_cap_reached', message: "Today's cap reached" },
        ]);
      } finally {
        await put('channels', channelId, { demand: [] });
      }
    });

    it('an unused creative and a deal no campaign buys through, until a campaign uses them', async () => {
      const spot = await creative('Unused spot', 'approved');
      const deal = await createAs(app, cookie, 'deals', { ...sampleBody('deals', 904) });
      expect(codes(await stateOf('creatives', spot.id))).toEqual(['no_campaign']);
      expect(codes(await stateOf('deals', deal.id))).toEqual(['no_campaign']);
      await campaign('Uses them', { creativeIds: [spot.id], dealIds: [deal.id], startDate: day(now, 5) });
      expect((await stateOf('creatives', spot.id)).serving).toBe(true);
      expect((await stateOf('deals', deal.id)).serving).toBe(true);
    });

    it("a channel of a tenant without campaigns or tags has no demand; another tenant's row is not found", async () => {
      const acme = await login(app, 'acme');
      const channel = await createAs(app, acme, 'channels', { ...sampleBody('channels', 905) });
      const [state] = await statesOf('channels', [channel.id], app, acme);
      expect(state!.reasons).toEqual([
        { code: 'no_demand', message: 'No demand: no active demand tag or campaign can reach it' },
      ]);
      // another tenant's row is not found
      const res = await as(app, acme, { method: 'GET', url: `/api/deliveryStates?kind=channels&ids=${channelId}` });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ field: 'ids' });
    });

    it('campaigns of a tenant without the DSP view do not buy, and buy again once it has it', async () => {
      const spot = await creative('Dsp spot', 'approved');
      const id = (await campaign('Needs the DSP view', { creativeIds: [spot.id] })).id;
      const admin = await login(app, 'admin');
      const tenant = await t.store.db
        .selectFrom('users')
        .select('id')
        .where('username', '=', 'demand')
        .executeTakeFirstOrThrow();
      const showDsp = async (on: boolean) => {
        await t.store.db
          .updateTable('users')
          .set({ show_dsp: on ? 1 : 0 })
          .where('id', '=', tenant.id)
          .execute();
        await bumpConfigVersion(t.store.db);
      };
      try {
        await showDsp(false);
        const [state] = await statesOf('campaigns', [id], app, admin);
        expect(state!.reasons).toEqual([
          {
            code: 'no_dsp_view',
            message: 'The account does not have the DSP view: its campaigns and deals do not buy',
          },
        ]);
        expect((await serve(7)).winner).toBeNull();
      } finally {
        await showDsp(true);
      }
      expect((await statesOf('campaigns', [id], app, admin))[0]!.serving).toBe(true);
      expect((await serve(8)).winner).toBe(id);
      await put('campaigns', id, { status: 0 });
    });

    it('refuses a bad query with the field named', async () => {
      const kind = await as(app, cookie, { method: 'GET', url: '/api/deliveryStates?kind=targetings&ids=1' });
      expect(kind.statusCode).toBe(400);
      expect(kind.json()).toMatchObject({ field: 'kind' });
      const ids = await as(app, cookie, { method: 'GET', url: '/api/deliveryStates?kind=campaigns&ids=x' });
      expect(ids.statusCode).toBe(400);
      expect(ids.json()).toMatchObject({ field: 'ids' });
      // signed out: refused as every guarded route refuses (403)
      const signedOut = await as(app, null, { method: 'GET', url: '/api/deliveryStates?kind=campaigns&ids=1' });
      expect(signedOut.statusCode).toBe(403);
    });

    it('an api-role process answers the same from its own compile of the store', async () => {
      const apiOnly = await buildTestApp(t.store, {}, { role: 'api' });
      try {
        const spot = await creative('Api spot', 'pending');
        const id = (await campaign('Api pending', { creativeIds: [spot.id] })).id;
        const apiCookie = await login(apiOnly, 'demand');
        expect(await statesOf('campaigns', [id], apiOnly, apiCookie)).toEqual(await statesOf('campaigns', [id]));
        expect(codes((await statesOf('campaigns', [id], apiOnly, apiCookie))[0]!)).toEqual(['creative_pending']);
      } finally {
        await apiOnly.close();
      }
    });
  });
});
