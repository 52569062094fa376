import { type DecisionTrace, type FloorRulesInput } from '@adplane/shared';
import { expect, it } from 'vitest';
import { edgeRequest } from './edgeClient.js';
import { forEachStore } from './helpers.js';
import { publisherTenant } from './tenantFixture.js';

/**
 * Floor rules through the real app: a channel's rule set (the request's country, device type and
 * size) picks the floor in force, sent as `imp.bidfloor` to an RTB demand tag (a local bidder) and
 * held on its answer (a bid under it loses); an OpenRTB channel does the same from the bid request's
 * device; a channel without rules takes its account's (the profile's); the API refuses a rule set
 * whose key does not fit its fields, naming it.
 */
const DESKTOP_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36';

const CHANNEL_RULES: FloorRulesInput = {
  schema: { fields: ['country', 'deviceType', 'size'] },
  values: { 'US|desktop|640x360': 8, 'US|*|*': 7, 'US|smarttv|*': 9, '*|*|*': 0.5 },
  default: 0.1,
};

forEachStore((t) => {
  const publisher = publisherTenant(
    t,
    async (p) => {
      // bids $7.50 on every impression (the demo workspace's campaigns bid less: under these floors too)
      await p.rtbTag('bidder', 'Local RTB', 'name=floored&price=7.5');
      await p.vastChannel('floored', 'Floored channel', { demand: ['bidder'] });
      await p.vastChannel('plain', 'Channel without rules', { demand: ['bidder'] });
      await p.openRtbChannel('inbound', 'Inbound RTB', { demand: ['bidder'] });
      // VAST demand whose answer states its price ($7.50)
      await p.vastTag('priced', 'Priced VAST demand', { answer: 'inline?price=7.5', price: { revshare: 100 } });
      await p.vastChannel('vastFloored', 'Floored VAST demand', { demand: ['priced'] });
      for (const name of ['floored', 'inbound', 'vastFloored']) {
        const res = await p.edit(name, { floorRules: CHANNEL_RULES });
        expect(res.statusCode, res.body).toBe(200);
      }
    },
    { listen: false, programmatic: {}, vastDemand: true },
  );
  const { ids } = publisher;
  const sentFloors = () =>
    publisher.bidders.requestsOf('floored').map((r) => [r.body.imp[0]!.bidfloor, r.body.imp[0]!.bidfloorcur]);
  const vast = (uid: string, query: string) =>
    edgeRequest(publisher.app, {
      method: 'GET',
      url: `/vast/${uid}?ip=8.8.8.8&ua=${encodeURIComponent(DESKTOP_UA)}&${query}`,
    });
  const traceOf = async (uid: string, query: string) => {
    const res = await publisher.request({
      method: 'GET',
      url: `/vast/${uid}?ip=8.8.8.8&ua=${encodeURIComponent(DESKTOP_UA)}&${query}&debug=1`,
    });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { trace: DecisionTrace }).trace;
  };

  it('a VAST request gets the floor of the most specific rule it matches: sent as bidfloor, a bid under it loses', async () => {
    const before = sentFloors().length;
    // US, desktop, 640x360: the exact rule, $8; the $7.50 bid is under it
    const exact = await vast(ids.floored!.uid, 'w=640&h=360');
    expect(exact.statusCode).toBe(200);
    expect(exact.body).not.toContain('adm-imp?name=floored');
    // US, desktop, another size: `US|*|*`, $7; the bid wins
    const country = await vast(ids.floored!.uid, 'w=1280&h=720');
    expect(country.body).toContain('adm-imp?name=floored');
    expect(sentFloors().slice(before)).toEqual([
      [8, 'USD'],
      [7, 'USD'],
    ]);

    const trace = await traceOf(ids.floored!.uid, 'w=640&h=360');
    expect(trace.channel).toMatchObject({
      floorCpm: 8_000_000,
      floor: { source: 'channel', rule: 'us|desktop|640x360', floorCpm: 8_000_000 },
    });
    expect(trace.sources).toContainEqual(expect.objectContaining({ source: 'rtb_tag', fate: 'below_floor' }));
  });

  it("VAST demand's stated price is held to the floor in force the same way", async () => {
    const under = await traceOf(ids.vastFloored!.uid, 'w=640&h=360');
    expect(under.channel?.floor).toMatchObject({ rule: 'us|desktop|640x360', floorCpm: 8_000_000 });
    expect(under.sources).toContainEqual(
      expect.objectContaining({ source: 'vast_tag', id: ids.priced!.id, fate: 'below_floor' }),
    );
    const over = await traceOf(ids.vastFloored!.uid, 'w=1280&h=720');
    expect(over.channel?.floor).toMatchObject({ rule: 'us|*|*', floorCpm: 7_000_000 });
    expect(over.winner).toMatchObject({ source: 'vast_tag', id: ids.priced!.id });
  });

  it('an OpenRTB request matches by its device: a connected TV gets `US|smarttv|*` ($9), a desktop `US|*|*` ($7)', async () => {
    const post = (devicetype: number) =>
      edgeRequest(publisher.app, {
        method: 'POST',
        url: `/rtb/${ids.inbound!.uid}`,
        payload: {
          id: `floors-${devicetype}`,
          tmax: 1000,
          site: { page: 'https://news.example.com/v' },
          device: { ip: '8.8.8.8', ua: DESKTOP_UA, devicetype },
          imp: [{ id: '1', video: { mimes: ['video/mp4'], w: 640, h: 480, protocols: [2, 3, 5, 6] } }],
        },
      });
    const before = sentFloors().length;
    // nothing reaches $9: no bid
    const tv = await post(3);
    expect(tv.statusCode, tv.body).toBe(204);
    const desktop = await post(2);
    expect(desktop.statusCode, desktop.body).toBe(200);
    expect((desktop.json() as { seatbid: { bid: { crid: string }[] }[] }).seatbid[0]!.bid[0]!.crid).toBe('cr-floored');
    expect(sentFloors().slice(before)).toEqual([
      [9, 'USD'],
      [7, 'USD'],
    ]);
  });

  it("a channel without rules takes its account's (the profile's), its default when no rule matches", async () => {
    const info = await publisher.request({ method: 'GET', url: '/api/demand/info' });
    expect(info.json()).toMatchObject({ floorRules: null });
    const accountRules: FloorRulesInput = {
      schema: { fields: ['mediaType', 'size'] },
      values: { 'video|1280x720': 2.75 },
      default: 1.25,
    };
    const saved = await publisher.request({
      method: 'PUT',
      url: '/api/demand/info',
      payload: { ...(info.json() as Record<string, unknown>), floorRules: accountRules },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      floorRules: { ...accountRules, schema: { delimiter: '|' }, currency: 'USD' },
    });
    await publisher.app.edge.snapshots.rebuild();

    const before = sentFloors().length;
    await vast(ids.plain!.uid, 'w=1280&h=720');
    await vast(ids.plain!.uid, 'w=640&h=360');
    expect(sentFloors().slice(before)).toEqual([
      [2.75, 'USD'],
      [1.25, 'USD'],
    ]);
    expect((await traceOf(ids.plain!.uid, 'w=640&h=360')).channel?.floor).toEqual({
      source: 'account',
      rule: null,
      floorCpm: 1_250_000,
    });
    // the channel's own rules still win over the account's
    expect((await traceOf(ids.floored!.uid, 'w=1280&h=720')).channel?.floor?.source).toBe('channel');
  });

  it('refuses a rule set whose key does not have one part per field, naming the key', async () => {
    const res = await publisher.edit('floored', {
      floorRules: { schema: { fields: ['country', 'size'] }, values: { 'US|640x360': 2, US: 1 } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('floorRules.values.US');
    expect(res.body).toContain('must have 2 parts (country|size), has 1');
    const field = await publisher.edit('floored', { floorRules: { schema: { fields: ['gptSlot'] }, values: {} } });
    expect(field.statusCode).toBe(400);
    expect(field.body).toContain('floorRules.schema.fields.0');
  });
});
