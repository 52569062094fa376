import { describe, expect, it } from 'vitest';
import { type DecisionTrace, type DeliveryState, type DeliveryStatesAnswer } from '@adplane/shared';
import { forEachStoreAndDeliveryEngine } from './deliveryEngines.js';
import { edgeRequest } from './edgeClient.js';
import { freshAddress } from './helpers.js';
import { publisherTenant } from './tenantFixture.js';
import { midHourClock } from './testTime.js';

/**
 * What a capped supply deal delivered against its caps, as GET /api/deliveryStates answers it with
 * the deal's state (`delivered`: delivery control's counts over its life and today), through the
 * real app on both config stores and both delivery engines: impressions served on the deal through
 * the edge (a local bidder bids on it, the player fires the impression of each decision the deal
 * won) are read back, a deal without caps carries none, and a paused deal keeps what it delivered.
 */
const SERVED = 3;

forEachStoreAndDeliveryEngine((engine, t) => {
  const deployment = engine.deployment();
  const publisher = publisherTenant(
    t,
    async (p) => {
      await p.rtbTag('capBid', 'Capped deal bidder', 'name=capbid&price=40&deal=SD-DELIVERED');
      await p.vastChannel('chCap', 'Capped deal channel', { demand: ['capBid'] });
      const deal = (name: string, dealId: string, caps: Record<string, unknown>) =>
        p.create(name, 'supplydeals', {
          name,
          dealId,
          channelIds: [p.ids.chCap!.id],
          tagIds: [p.ids.capBid!.id],
          ...caps,
        });
      await deal('capped', 'SD-DELIVERED', { impCap: 50, dailyImpCap: 20 });
      await deal('dailyOnly', 'SD-DAILY', { dailyImpCap: 5 });
      await deal('uncapped', 'SD-OPEN', {});
    },
    {
      listen: false,
      programmatic: {},
      signInFrom: freshAddress(),
      // today's count is the tenant's day: mid-hour, no day turns during the test
      clock: midHourClock(),
      settings: () => ({ redisUrl: deployment.redisUrl }),
      deliveryPrefix: deployment.prefix,
    },
  );
  const { ids } = publisher;

  const statesOf = async (names: string[]): Promise<DeliveryState[]> => {
    const res = await publisher.request({
      method: 'GET',
      url: `/api/deliveryStates?kind=supplydeals&ids=${names.map((n) => ids[n]!.id).join(',')}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<DeliveryStatesAnswer>().states;
  };

  describe(`a supply deal's delivery against its caps (${engine.engine})`, () => {
    it('answers nothing delivered yet for capped deals, and no count for a deal without caps', async () => {
      const states = await statesOf(['capped', 'dailyOnly', 'uncapped']);
      expect(states.map((s) => s.delivered)).toEqual([{ imps: 0, today: 0 }, { imps: 0, today: 0 }, undefined]);
      expect(states[2]).not.toHaveProperty('delivered');
    });

    it('reads back the impressions served on the deal through the edge', async () => {
      const uid = ids.chCap!.uid;
      /** One traced decision; its impression fired when the bid on the deal won. */
      const serveOnDeal = async (): Promise<boolean> => {
        const res = await publisher.request({ method: 'GET', url: `/vast/${uid}?w=640&h=360&ip=8.8.8.8&debug=1` });
        expect(res.statusCode, res.body).toBe(200);
        const { vast, trace } = res.json<{ vast: string; trace: DecisionTrace }>();
        // (on Redis the deal is offered once this process holds a lease of its caps: asked at the first call)
        if (trace.winner?.dealId !== 'SD-DELIVERED') return false;
        const impression = /<Impression><!\[CDATA\[([^\]]*\/ev\?e=impression[^\]]*)\]\]>/.exec(vast)![1]!;
        const ev = await edgeRequest(publisher.app, {
          method: 'GET',
          url: impression.slice(impression.indexOf('/ev')),
        });
        expect(ev.statusCode).toBe(200);
        return true;
      };
      let served = 0;
      await expect
        .poll(async () => (served < SERVED && (await serveOnDeal()) ? ++served : served), { timeout: 10_000 })
        .toBe(SERVED);
      // the bid named SD-DELIVERED: the impressions count against its caps, not the other deals'
      await expect
        .poll(async () => (await statesOf(['capped', 'dailyOnly', 'uncapped'])).map((s) => s.delivered))
        .toEqual([{ imps: SERVED, today: SERVED }, { imps: 0, today: 0 }, undefined]);
      const [capped] = await statesOf(['capped']);
      expect(capped).toMatchObject({ serving: true, reasons: [] });
    });

    it('keeps what a paused deal delivered', async () => {
      const path = `/api/demand/supplydeals/${ids.capped!.id}`;
      const row = (await publisher.request({ method: 'GET', url: path })).json<Record<string, unknown>>();
      const put = await publisher.request({ method: 'PUT', url: path, payload: { ...row, status: 0 } });
      expect(put.statusCode, put.body).toBe(200);
      const [paused] = await statesOf(['capped']);
      expect(paused).toMatchObject({ serving: false, delivered: { imps: SERVED, today: SERVED } });
      expect(paused!.reasons.map((r) => r.code)).toEqual(['paused']);
    });
  });
});
