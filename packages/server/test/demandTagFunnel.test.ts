import { beforeAll, expect, it } from 'vitest';
import { freshAddress } from './helpers.js';
import { forEachStoreAndStatsEngine } from './statsEngines.js';
import { publisherTenant } from './tenantFixture.js';
import { isoDay, midHourClock } from './testTime.js';
import { edgeRequest } from './edgeClient.js';

/**
 * The fill funnel of a demand tag from real edge traffic (docs/ad-server.md, Counters): every tag a
 * request considers is counted on its own row (`source_reqs`, with why it did not fill), the ones
 * offered the request add `source_opps` and their call; refused and never-reached tags are there
 * too. Through the real app, its edge, a local demand server, a flush and POST /api/rrun.
 */
const US_IP = '8.8.8.8';
const REQUESTS = 3;

forEachStoreAndStatsEngine((t, s) => {
  const publisher = publisherTenant(
    t,
    async (p) => {
      await p.create('brazil', 'targetings', { name: 'Brazil only', rules: { countries: { values: ['BR'] } } });
      await p.vastTag('refused', 'Brazil demand', {
        answer: 'inline?price=5',
        price: { cpm: 5 },
        targeting: 'brazil',
      });
      await p.vastTag('hang', 'Hanging demand', { answer: 'hang', price: { cpm: 9 }, timeoutMs: 200 });
      // above every campaign of the demo workspace, so it wins each auction
      await p.vastTag('fill', 'Filling demand', { answer: 'inline?price=50', price: { cpm: 50 } });
      await p.vastTag('capped', 'Capped demand', {
        answer: 'status?code=500',
        price: { cpm: 3 },
        dailyRequestCap: 1,
      });
      await p.vastChannel('auction', 'Funnel auction', {
        timeoutMs: 2000,
        demand: ['refused', 'hang', 'fill', 'capped'],
      });
      // a waterfall: something always fills before the hanging tag's turn (a campaign at tier 0, or the filling tag)
      await p.vastChannel('waterfall', 'Funnel waterfall', {
        waterfall: true,
        timeoutMs: 2000,
        demand: [['fill'], ['hang']],
      });
    },
    { listen: false, vastDemand: true, statsEngine: s, signInFrom: freshAddress(), clock: midHourClock() },
  );
  const { ids } = publisher;

  beforeAll(async () => {
    for (let i = 0; i < REQUESTS; i++) {
      for (const channel of ['auction', 'waterfall']) {
        const res = await edgeRequest(publisher.app, {
          method: 'GET',
          url: `/vast/${ids[channel]!.uid}?w=640&h=360&ip=${US_IP}`,
        });
        expect(res.statusCode).toBe(200);
        expect(res.body).toMatch(/<Ad[\s>]/);
      }
    }
    await publisher.app.edge.flush();
  });

  const rrun = (body: Record<string, unknown>) =>
    publisher.request({
      method: 'POST',
      url: '/api/rrun',
      payload: {
        startDate: isoDay(publisher.app.clock.now(), -1),
        endDate: isoDay(publisher.app.clock.now()),
        ...body,
      },
    });

  const funnelOf = async (tag: string, channel = 'auction') => {
    const filters = { tag: [ids[tag]!.id], channel: [ids[channel]!.id] };
    const totals = await rrun({
      metrics: ['source_reqs', 'source_opps', 'demandCalls', 'responses', 'timeouts', 'bids', 'wins', 'reqs', 'opps'],
      filters,
    });
    expect(totals.statusCode, totals.body).toBe(200);
    const byReason = await rrun({ dimensions: ['nofill_reason'], metrics: ['source_reqs'], filters });
    expect(byReason.statusCode, byReason.body).toBe(200);
    const reasons = Object.fromEntries(
      byReason
        .json<Record<string, unknown>[]>()
        .filter((r) => !r.total && r.nofill_reason !== '')
        .map((r) => [r.nofill_reason, r.source_reqs]),
    );
    const sums = totals.json<Record<string, unknown>[]>().at(-1)!;
    expect(sums.total).toBe(true);
    delete sums.total;
    return { sums, reasons };
  };

  it('counts a tag refused by its targeting: considered on every request, never offered, the rule as its reason', async () => {
    expect(await funnelOf('refused')).toEqual({
      sums: {
        source_reqs: REQUESTS,
        source_opps: 0,
        demandCalls: 0,
        responses: 0,
        timeouts: 0,
        bids: 0,
        wins: 0,
        // a report filtered by a tag counts by demand: its requests and opportunities are the tag's
        reqs: REQUESTS,
        opps: 0,
      },
      reasons: { 'targeting.country': REQUESTS },
    });
  });

  it('counts a tag that times out: considered, offered and called each time, timeout as its reason', async () => {
    expect(await funnelOf('hang')).toEqual({
      sums: {
        source_reqs: REQUESTS,
        source_opps: REQUESTS,
        demandCalls: REQUESTS,
        responses: 0,
        timeouts: REQUESTS,
        bids: 0,
        wins: 0,
        reqs: REQUESTS,
        opps: REQUESTS,
      },
      reasons: { timeout: REQUESTS },
    });
  });

  it('counts a tag that fills: every stage, no reason', async () => {
    expect(await funnelOf('fill')).toEqual({
      sums: {
        source_reqs: REQUESTS,
        source_opps: REQUESTS,
        demandCalls: REQUESTS,
        responses: REQUESTS,
        timeouts: 0,
        bids: REQUESTS,
        wins: REQUESTS,
        reqs: REQUESTS,
        opps: REQUESTS,
      },
      reasons: {},
    });
  });

  it('counts a tag its daily request cap refuses as considered, not offered, not called', async () => {
    expect(await funnelOf('capped')).toEqual({
      sums: {
        source_reqs: REQUESTS,
        source_opps: 1,
        demandCalls: 1,
        responses: 1,
        timeouts: 0,
        bids: 0,
        wins: 0,
        reqs: REQUESTS,
        opps: 1,
      },
      reasons: { http_500: 1, daily_request_cap: REQUESTS - 1 },
    });
  });

  it('counts a waterfall tag never reached as considered, with filled_earlier', async () => {
    expect(await funnelOf('hang', 'waterfall')).toEqual({
      sums: {
        source_reqs: REQUESTS,
        source_opps: 0,
        demandCalls: 0,
        responses: 0,
        timeouts: 0,
        bids: 0,
        wins: 0,
        reqs: REQUESTS,
        opps: 0,
      },
      reasons: { filled_earlier: REQUESTS },
    });
  });

  it('keeps the channel funnel on its requests: each counted once, with the request-level reasons', async () => {
    const res = await rrun({
      metrics: ['reqs', 'opps', 'source_reqs', 'source_opps', 'demandCalls'],
      filters: { channel: [ids.auction!.id] },
    });
    // 4 tags considered per request; 3 offered and called (the capped one twice refused)
    expect(res.json<Record<string, unknown>[]>().at(-1)).toEqual({
      total: true,
      reqs: REQUESTS,
      opps: REQUESTS,
      source_reqs: 4 * REQUESTS,
      source_opps: 2 * REQUESTS + 1,
      demandCalls: 2 * REQUESTS + 1,
    });
    const reasons = await rrun({
      dimensions: ['nofill_reason'],
      metrics: ['reqs'],
      filters: { channel: [ids.auction!.id] },
      hideErrors: true,
    });
    const filled = reasons.json<Record<string, unknown>[]>().find((r) => r.nofill_reason === '');
    expect(filled).toMatchObject({ reqs: REQUESTS });
  });

  it('refuses an unknown metric with 400 naming it', async () => {
    const res = await rrun({ metrics: ['source_reqs', 'source_requests'] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ field: 'metrics.1' });
  });
});
