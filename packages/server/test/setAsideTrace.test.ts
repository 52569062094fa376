import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DecisionTrace, TAG_TEST_PATH, type TagTestAnswer } from '@adplane/shared';
import { startDemandServer, type DemandServer } from './demandServers.js';
import { as, buildTestApp, createAs, forEachStore, login } from './helpers.js';

/**
 * The campaigns and demand tags a request set aside, named with why, through the two doors that show
 * a trace: "Test this tag" (POST /api/edge/test) and `debug=1` on the channel's VAST URL. A viewer in
 * the US on a desktop: a campaign for Germany and one for smart TVs are set aside by the targeting
 * indexes, a campaign whose flight starts in three days is refused when checked, and a demand tag for
 * Germany is filtered by its targeting; each says the rule's values and the viewer's. A campaign whose
 * only creative waits for approval is not in the ad server at all, and says so; a paused tag the
 * channel lists is named.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const DESKTOP_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

forEachStore((t) => {
  let app: FastifyInstance;
  let demand: DemandServer;
  let cookie: string;
  const ids: Record<string, number> = {};
  let uid = '';

  async function create(name: string, kind: string, body: Record<string, unknown>) {
    ids[name] = (await createAs(app, cookie, kind, body)).id;
    return ids[name]!;
  }

  beforeAll(async () => {
    demand = await startDemandServer();
    app = await buildTestApp(t.store);
    cookie = await login(app, 'demand');
    const germany = await create('germany', 'targetings', {
      name: 'Set aside: Germany only',
      rules: { countries: { mode: 'include', values: ['DE'] } },
    });
    const tvs = await create('tvs', 'targetings', {
      name: 'Set aside: smart TVs only',
      rules: { devices: { mode: 'include', values: ['smarttv'] } },
    });
    const creative = await create('creative', 'creatives', {
      name: 'Set aside spot',
      format: 'video',
      videoSource: 'media',
      approval: 'approved',
      clickUrl: 'https://brand.example.com/aside',
      mediaFiles: [
        {
          url: 'https://cdn.example.com/aside.mp4',
          mime: 'video/mp4',
          duration: 15,
          width: 640,
          height: 360,
          bitrate: 800,
        },
      ],
    });
    const campaign = (name: string, over: Record<string, unknown>) =>
      create(name, 'campaigns', {
        name,
        startDate: day(-1),
        endDate: day(30),
        bidCpm: 20_000_000,
        channelScope: 'all',
        creativeIds: [creative],
        ...over,
      });
    await campaign('Aside Germany', { targetingId: germany });
    await campaign('Aside smart TVs', { targetingId: tvs });
    // the best bid of the tenant: checked first, refused by its flight
    await campaign('Aside starts later', { startDate: day(3), bidCpm: 95_000_000 });
    await campaign('Aside serves', { bidCpm: 90_000_000 });
    // not in the ad server at all: its only creative waits for approval
    const pending = await create('pendingSpot', 'creatives', {
      name: 'Aside pending spot',
      format: 'video',
      videoSource: 'media',
      approval: 'pending',
      clickUrl: 'https://brand.example.com/pending',
      mediaFiles: [
        {
          url: 'https://cdn.example.com/pending.mp4',
          mime: 'video/mp4',
          duration: 15,
          width: 640,
          height: 360,
          bitrate: 800,
        },
      ],
    });
    await campaign('Aside pending', { creativeIds: [pending] });
    // a paused tag the channel lists: traced by its name, not called
    const paused = await create('pausedTag', 'tags', {
      name: 'Aside paused demand',
      vastUrl: `${demand.url}/inline?price=8`,
      price: { type: 'cpm', cpm: 8_000_000 },
      status: 0,
    });
    const tag = await create('tag', 'tags', {
      name: 'Aside German demand',
      vastUrl: `${demand.url}/inline?price=8`,
      price: { type: 'cpm', cpm: 8_000_000 },
      targetingId: germany,
    });
    const channel = await create('channel', 'channels', {
      name: 'Set aside channel',
      demandMode: 'auction',
      demand: [
        { tagId: tag, priority: 1 },
        { tagId: paused, priority: 1 },
      ],
    });
    uid = (await as(app, cookie, { method: 'GET', url: `/api/demand/channels/${channel}` })).json().uid;
  });

  afterAll(async () => {
    await app?.close();
    await demand?.close();
  });

  function expectNamed(trace: DecisionTrace) {
    expect(trace.result).toBe('filled');
    expect(trace.winner).toMatchObject({ id: ids['Aside serves'], fate: 'won' });
    // set aside by the indexes: named, with each rule's values and the viewer's
    const named = trace.indexedOutCampaigns!;
    expect(named.find((c) => c.id === ids['Aside Germany'])).toEqual({
      id: ids['Aside Germany'],
      name: 'Aside Germany',
      reason: 'targeting.country',
      misses: [{ rule: 'country', include: true, values: ['DE'], more: 0, viewer: 'US' }],
    });
    expect(named.find((c) => c.id === ids['Aside smart TVs'])).toEqual({
      id: ids['Aside smart TVs'],
      name: 'Aside smart TVs',
      reason: 'targeting.device',
      misses: [{ rule: 'device', include: true, values: ['smarttv'], more: 0, viewer: 'desktop' }],
    });
    // ...by name, and as many as the count says were set aside (the tenant has fewer than 200)
    expect(named.map((c) => c.name.toLowerCase())).toEqual(named.map((c) => c.name.toLowerCase()).sort());
    expect(named).toHaveLength(trace.indexedOut);
    expect(named.some((c) => c.id === ids['Aside serves'] || c.id === ids['Aside starts later'])).toBe(false);
    // refused when checked one by one: its flight's first day, the code beside it
    expect(trace.sources.find((s) => s.id === ids['Aside starts later'] && s.source === 'campaign')).toMatchObject({
      fate: 'filtered',
      reason: 'flight_not_started',
      flightDay: day(3),
    });
    // the demand tag filtered by its targeting
    expect(trace.sources.find((s) => s.source === 'vast_tag' && s.id === ids.tag)).toMatchObject({
      fate: 'filtered',
      reason: 'targeting.country',
      miss: { rule: 'country', include: true, values: ['DE'], more: 0, viewer: 'US' },
    });
    // the paused tag the channel lists, by its name
    expect(trace.sources.find((s) => s.id === ids.pausedTag)).toMatchObject({
      source: 'vast_tag',
      name: 'Aside paused demand',
      fate: 'filtered',
      reason: 'tag_paused',
      idle: true,
    });
    // not in the ad server: the snapshot compile's reasons, in the delivery state's codes and sentences
    expect(trace.notInAdServer!.campaigns.find((c) => c.id === ids['Aside pending'])).toEqual({
      id: ids['Aside pending'],
      name: 'Aside pending',
      reasons: [{ code: 'creative_pending', message: 'Creative pending approval: Aside pending spot' }],
    });
    expect(trace.notInAdServer!.more).toBe(0);
    expect(trace.notInAdServer!.campaigns.some((c) => c.id === ids['Aside serves'])).toBe(false);
  }

  it('"Test this tag" names each campaign and demand tag set aside, and why', async () => {
    const res = await as(app, cookie, {
      method: 'POST',
      url: TAG_TEST_PATH,
      payload: { channelId: ids.channel, context: { country: 'US', device: 'desktop', os: 'windows' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expectNamed((res.json() as TagTestAnswer).trace);
  });

  it('debug=1 on the VAST URL names them the same', async () => {
    await app.edge.snapshots.rebuild();
    const res = await as(app, cookie, {
      method: 'GET',
      url: `/vast/${uid}?w=640&h=360&ip=8.8.8.8&ua=${encodeURIComponent(DESKTOP_UA)}&debug=1`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expectNamed((res.json() as { trace: DecisionTrace }).trace);
  });
});
