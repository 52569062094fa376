import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TAG_TEST_PATH, type TagTestAnswer } from '@adplane/shared';
import { SAMPLE_UA_BY_OS } from '../src/edge/doors/tagTest/sampleUserAgents.js';
import { startDemandServer, type DemandServer } from './demandServers.js';
import { as, buildTestApp, createAs, onSqliteStore, login } from './helpers.js';
import { schemaErrors } from './vastSchema.js';
import { edgeRequest } from './edgeClient.js';

/**
 * "Test this tag" through the real app: POST /api/edge/test runs the edge's real decision (snapshot,
 * auction, a local demand server called over HTTP) in the context the person picked.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

onSqliteStore((t) => {
  let app: FastifyInstance;
  let demand: DemandServer;
  let cookie: string;
  const ids: Record<string, number> = {};

  async function create(name: string, kind: string, body: Record<string, unknown>) {
    ids[name] = (await createAs(app, cookie, kind, body)).id;
    return ids[name]!;
  }

  const test = (payload: object, who = cookie) => as(app, who, { method: 'POST', url: TAG_TEST_PATH, payload });
  const answer = async (payload: object) => {
    const res = await test(payload);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as TagTestAnswer;
  };

  beforeAll(async () => {
    demand = await startDemandServer();
    app = await buildTestApp(t.store);
    cookie = await login(app, 'demand');
  });

  afterAll(async () => {
    await app?.close();
    await demand?.close();
  });

  it('tests a channel saved a moment ago: it fills from the campaign, in the chosen country, device and player size', async () => {
    const germany = await create('germany', 'targetings', {
      name: 'Germany only (tag test)',
      rules: { countries: { mode: 'include', values: ['DE'] } },
    });
    const creative = await create('creative', 'creatives', {
      name: 'Tag test spot',
      format: 'video',
      videoSource: 'media',
      approval: 'approved',
      clickUrl: 'https://brand.example.com/test',
      mediaFiles: [
        {
          url: 'https://cdn.example.com/test.mp4',
          mime: 'video/mp4',
          duration: 15,
          width: 640,
          height: 360,
          bitrate: 800,
        },
      ],
    });
    await create('campaign', 'campaigns', {
      name: 'Tag test campaign',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: 19_000_000,
      channelScope: 'all',
      creativeIds: [creative],
      targetingId: germany,
    });
    // No rebuild here: the test waits for the snapshot to include the new rows.
    const channel = await create('channel', 'channels', {
      name: 'Tag test channel',
      vastVersion: '4.1',
      demandMode: 'auction',
      payout: { type: 'revshare', percent: 70 },
    });

    const filled = await answer({
      channelId: channel,
      context: { country: 'DE', device: 'smarttv', os: 'roku', width: 1280, height: 720 },
    });
    expect(filled.tested).toMatchObject({ kind: 'channel', id: channel, name: 'Tag test channel', format: 'video' });
    expect(filled.trace.result).toBe('filled');
    expect(filled.trace.winner).toMatchObject({
      source: 'campaign',
      id: ids.campaign,
      fate: 'won',
      clearingCpm: 19_000_000,
      payoutCpm: 13_300_000,
    });
    expect(filled.trace.context).toMatchObject({
      country: 'DE',
      device: 'smarttv',
      os: 'roku',
      playerSize: 'xlarge',
      width: 1280,
      height: 720,
    });
    expect(schemaErrors('4.1', filled.vast)).toBe('');
    expect(filled.vast).toContain('https://cdn.example.com/test.mp4');
    expect(filled.vast).toContain('/ev?e=impression');

    // The chosen country really is what targeting sees: from France the country index sets the campaign aside.
    const france = await answer({ channelId: channel, context: { country: 'FR', device: 'desktop' } });
    expect(france.trace.context.country).toBe('FR');
    expect(france.trace.winner?.id).not.toBe(ids.campaign);
    expect(france.trace.sources.some((s) => s.id === ids.campaign && s.fate !== 'filtered')).toBe(false);
    expect(france.trace.indexedOut).toBeGreaterThan(0);
  });

  it("tests a demand tag alone: the local demand server is called with the chosen context, the tenant's campaigns stay out", async () => {
    const tag = await create('tag', 'tags', {
      name: 'Tag test demand',
      vastUrl: `${demand.url}/inline?price=8&w={{width}}&bundle={{app_bundle}}`,
      price: { type: 'revshare', percent: 50 },
      timeoutMs: 1500,
    });
    const result = await answer({
      tagId: tag,
      context: { country: 'US', usState: 'CA', os: 'android', appBundle: 'com.example.tv', width: 640, height: 360 },
    });
    expect(result.tested).toMatchObject({ kind: 'tag', id: tag, name: 'Tag test demand', format: 'video' });
    expect(result.trace.result).toBe('filled');
    expect(result.trace.sources.map((s) => s.source)).toEqual(['vast_tag']);
    expect(result.trace.winner).toMatchObject({ source: 'vast_tag', id: tag, fate: 'won', bidCpm: 4_000_000 });
    expect(result.trace.channel).toMatchObject({ mode: 'auction', vastVersion: '4.2', floorCpm: 0 });
    expect(result.trace.context).toMatchObject({
      country: 'US',
      usState: 'CA',
      device: 'mobile',
      os: 'android',
      appBundle: 'com.example.tv',
    });
    expect(schemaErrors('4.2', result.vast)).toBe('');
    expect(result.vast).toContain(`${demand.url}/track/imp`);

    const call = demand.calls.find(
      (c) => c.pathname === '/inline' && c.searchParams.get('bundle') === 'com.example.tv',
    )!;
    expect(call.searchParams.get('w')).toBe('640');

    // A paused tag is not called, and the trace says why.
    await as(app, cookie, {
      method: 'PUT',
      url: `/api/demand/tags/${tag}`,
      payload: {
        name: 'Tag test demand',
        vastUrl: `${demand.url}/inline?price=8`,
        price: { type: 'revshare', percent: 50 },
        status: 0,
      },
    });
    const paused = await answer({ tagId: tag });
    expect(paused.trace.result).toBe('no_demand');
    expect(paused.trace.sources).toEqual([
      expect.objectContaining({ id: tag, fate: 'filtered', reason: 'tag_paused' }),
    ]);
  });

  it('counts nothing: no request, no impression and no spend from a test or from the events its ad fires', async () => {
    await app.edge.flush();
    const pendingBefore = app.edge.counters.pending;
    const filled = await answer({
      channelId: ids.channel!,
      context: { country: 'DE', device: 'smarttv', os: 'roku', width: 1280, height: 720 },
    });
    expect(filled.trace.result).toBe('filled');
    expect(app.edge.counters.pending).toBe(pendingBefore);
    const impression = /<Impression[^>]*><!\[CDATA\[([^\]]+)\]\]>/.exec(filled.vast)![1]!;
    const url = new URL(impression);
    const ev = await edgeRequest(app, { method: 'GET', url: `${url.pathname}${url.search}` });
    expect(ev.statusCode).toBe(200);
    expect(ev.headers['content-type']).toBe('image/gif');
    expect(app.edge.counters.pending).toBe(pendingBefore);
    // the same decision served for real would have counted its request
    const real = await edgeRequest(app, {
      method: 'GET',
      url: `/vast/${(await as(app, cookie, { method: 'GET', url: `/api/demand/channels/${ids.channel}` })).json().uid}?w=1280&h=720&ip=8.8.8.8`,
    });
    expect(real.statusCode).toBe(200);
    expect(app.edge.counters.pending).toBeGreaterThan(pendingBefore);
  });

  it("tells a demand of its no-fill from real traffic as a player would (its wrappers' and its empty answer's error trackers, VAST error 303), but not from a test", async () => {
    const tag = await create('emptyChain', 'tags', {
      name: 'Empty chain demand',
      vastUrl: `${demand.url}/wrapper?depth=1&end=empty&from={{country}}`,
      price: { type: 'cpm', cpm: 2_000_000 },
      timeoutMs: 1500,
    });
    const pings = () =>
      demand.calls.filter((c) => c.pathname === '/track/wrapper-error' || c.pathname === '/track/no-ad');
    const before = pings().length;
    const tested = await answer({ tagId: tag, context: { country: 'US' } });
    expect(tested.trace.sources).toEqual([
      expect.objectContaining({ id: tag, fate: 'no_fill', reason: 'no_ad', vastError: 303 }),
    ]);
    const listed = tested.trace.sources[0]!.errorPings!.map((u) => new URL(u));
    expect(listed.map((u) => `${u.pathname}?c=${u.searchParams.get('c')}`)).toEqual([
      '/track/wrapper-error?c=303',
      '/track/no-ad?c=303',
    ]);
    // a channel calling the same tag, served for real: the demand hears of both
    const channel = await create('emptyChainChannel', 'channels', {
      name: 'Empty chain channel',
      demandMode: 'auction',
      demand: [{ tagId: tag, priority: 1 }],
    });
    await app.edge.snapshots.rebuild();
    const uid = (await as(app, cookie, { method: 'GET', url: `/api/demand/channels/${channel}` })).json().uid;
    const real = await edgeRequest(app, { method: 'GET', url: `/vast/${uid}?w=640&h=360&ip=8.8.8.8` });
    expect(real.statusCode).toBe(200);
    await expect.poll(() => pings().length - before, { timeout: 3000 }).toBe(2);
    // only the real request's: the test's two were listed in its trace, never fired
    expect(
      pings()
        .slice(before)
        .map((c) => c.searchParams.get('c')),
    ).toEqual(['303', '303']);
    expect(demand.calls.filter((c) => c.pathname === '/wrapper' && c.searchParams.get('from') !== null).length).toBe(2);
  });

  it("refuses another tenant's channel and tag as not found, and users who may not see prices", async () => {
    const acme = await login(app, 'acme');
    const channel = await test({ channelId: ids.channel }, acme);
    expect(channel.statusCode).toBe(404);
    const tag = await test({ tagId: ids.tag }, acme);
    expect(tag.statusCode).toBe(404);
    const sub = await test({ channelId: ids.channel }, await login(app, 'sub'));
    expect(sub.statusCode).toBe(403);
    const admin = await test({ channelId: ids.channel }, await login(app, 'admin'));
    expect(admin.statusCode).toBe(200);
  });

  it('tests an ad break: the slots one after another, no campaign twice, within its length, counted nowhere', async () => {
    const spot = await create('spot10', 'creatives', {
      name: 'Tag test 10 s spot',
      format: 'video',
      videoSource: 'media',
      approval: 'approved',
      mediaFiles: [
        {
          url: 'https://cdn.example.com/ten.mp4',
          mime: 'video/mp4',
          duration: 10,
          width: 640,
          height: 360,
          bitrate: 800,
        },
      ],
    });
    await create('second', 'campaigns', {
      name: 'Tag test second campaign',
      startDate: day(-1),
      bidCpm: 18_500_000,
      channelScope: 'all',
      creativeIds: [spot],
      targetingId: ids.germany,
    });
    await app.edge.flush();
    const pendingBefore = app.edge.counters.pending;
    const pod = await answer({
      channelId: ids.channel!,
      context: {
        country: 'DE',
        device: 'smarttv',
        os: 'roku',
        width: 1280,
        height: 720,
        podMaxAds: 3,
        podMaxDuration: 25,
      },
    });
    expect(
      pod.trace
        .pod!.slice(0, 2)
        .map((slot) => [slot.sequence, slot.result, slot.winner?.id, slot.maxDurationS, slot.durationS]),
    ).toEqual([
      [1, 'filled', ids.campaign, 25, 15],
      [2, 'filled', ids.second, 10, 10],
    ]);
    // the break is full after 25 s: no third slot
    expect(pod.trace.pod).toHaveLength(2);
    expect([...pod.vast.matchAll(/<Ad sequence="(\d)"/g)].map((m) => m[1])).toEqual(['1', '2']);
    expect(schemaErrors('4.1', pod.vast)).toBe('');
    expect(app.edge.counters.pending).toBe(pendingBefore);
    // one ad asked: the plain answer
    const one = await answer({ channelId: ids.channel!, context: { country: 'DE', podMaxAds: 1 } });
    expect(one.trace.pod).toBeUndefined();
  });

  it('answers 400 naming the field for an unknown code or a malformed body', async () => {
    const cases: [object, string][] = [
      [{ channelId: ids.channel, context: { country: 'XX' } }, 'context.country'],
      [{ channelId: ids.channel, context: { os: 'beos' } }, 'context.os'],
      [{ channelId: ids.channel, context: { device: 'fridge' } }, 'context.device'],
      [{ channelId: ids.channel, context: { country: 'DE', usState: 'CA' } }, 'context.usState'],
      [{ channelId: ids.channel, context: { width: 0 } }, 'context.width'],
      [{ channelId: ids.channel, context: { ip: '999.1.1.1' } }, 'context.ip'],
      [{ channelId: ids.channel, context: { podMaxAds: 11 } }, 'context.podMaxAds'],
      [{ channelId: ids.channel, context: { podMaxAds: 2, podMaxDuration: 0 } }, 'context.podMaxDuration'],
      [{ channelId: ids.channel, context: { podMaxDuration: 60 } }, 'context.podMaxAds'],
      [{ channelId: ids.channel, tagId: ids.tag }, 'channelId'],
      [{ channelId: 'abc' }, 'channelId'],
    ];
    for (const [payload, field] of cases) {
      const res = await test(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().field, JSON.stringify(payload)).toBe(field);
    }
  });

  it('sends a demand tag a user agent of the chosen platform when none is typed', async () => {
    const tag = await create('uaTag', 'tags', {
      name: 'UA check',
      vastUrl: `${demand.url}/inline?price=2&ua={{user_agent}}&marker=ua-check`,
      price: { type: 'cpm', cpm: 2_000_000 },
    });
    await answer({ tagId: tag, context: { os: 'roku' } });
    const call = demand.calls.find((c) => c.searchParams.get('marker') === 'ua-check');
    expect(call?.searchParams.get('ua')).toBe(SAMPLE_UA_BY_OS.roku);
  });

  it('answers 503 on a process without the edge (--role api)', async () => {
    const apiOnly = await buildTestApp(t.store, {}, { role: 'api' });
    try {
      const res = await as(apiOnly, await login(apiOnly, 'demand'), {
        method: 'POST',
        url: TAG_TEST_PATH,
        payload: { channelId: ids.channel },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().message).toMatch(/--role api/);
    } finally {
      await apiOnly.close();
    }
  });
});
