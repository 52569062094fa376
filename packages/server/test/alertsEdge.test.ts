import { type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AlertEpisode, type AlertRule } from '@adplane/shared';
import { type TestClock } from '../src/clock.js';
import { edgeRequest } from './edgeClient.js';
import { eventually, freshAddress } from './helpers.js';
import { localServer, type LocalServer } from './localServer.js';
import { startMailServer } from './mailServer.js';
import { forEachStoreAndStatsEngine } from './statsEngines.js';
import { publisherTenant } from './tenantFixture.js';
import { midHourClock } from './testTime.js';

/**
 * Built-in rules over real traffic through the edge. Demand tag timeouts: the channel's one demand tag
 * hangs past its deadline all hour, the rule fires at the next hour's check; the tag answers in time
 * the hour after, and the rule clears. Channel fill, hour over hour: the player shows every ad one
 * hour (its impression beacons reach the edge), none the next, all again after. Campaign pacing: a
 * campaign's impressions spend its daily budget; its next day it clears. Each change of state
 * reaches a real SMTP server (and a local webhook) once, however many checks see it.
 */
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const REQUESTS = 4;

const bodyOf = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => resolve(text));
  });

forEachStoreAndStatsEngine((t, s) => {
  let mail: Awaited<ReturnType<typeof startMailServer>>;
  let hook: LocalServer;
  const hookBodies: { text: string; alert: { event: string; episode: AlertEpisode } }[] = [];
  const clock: TestClock = midHourClock();

  beforeAll(async () => {
    mail = await startMailServer();
    hook = await localServer((req, res) => {
      void bodyOf(req).then((text) => {
        hookBodies.push(JSON.parse(text) as (typeof hookBodies)[number]);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
  });
  afterAll(async () => {
    await mail?.close();
    await hook?.close();
  });

  const publisher = publisherTenant(
    t,
    async (p) => {
      await p.vastTag('slow', 'Slow partner', { answer: 'hang', price: { cpm: 9 }, timeoutMs: 200 });
      await p.vastChannel('player', 'Player channel', { timeoutMs: 2000, demand: ['slow'] });
      await p.videoSpot('spot', { advertiser: 'brand.example.com', width: 640, height: 360, bitrate: 800 });
    },
    {
      listen: false,
      vastDemand: true,
      statsEngine: s,
      signInFrom: freshAddress(),
      clock,
      settings: () => ({ mail: { smtpUrl: mail.url, from: 'alerts@adplane.test' } }),
    },
  );

  /** Players call the channel `times`; with `shown`, each shows the ad it got (its impression beacon reaches the edge). */
  const play = async (times: number, shown = false) => {
    for (let i = 0; i < times; i++) {
      const res = await edgeRequest(publisher.app, `/vast/${publisher.ids.player!.uid}?w=640&h=360&ip=8.8.8.8`);
      expect(res.statusCode).toBe(200);
      if (!shown) continue;
      const beacon = [...res.body.matchAll(/<Impression><!\[CDATA\[([^\]]+)\]\]>/g)]
        .map((m) => m[1]!)
        .find((url) => url.includes('/ev?'));
      expect(beacon, res.body).toBeDefined();
      expect((await edgeRequest(publisher.app, beacon!.slice(beacon!.indexOf('/ev?')))).statusCode).toBe(200);
    }
    await publisher.app.edge.flush();
  };
  const episodes = async (kind: 'tag' | 'channel' = 'tag') => {
    const res = await publisher.request({ method: 'GET', url: '/api/alerts/episodes' });
    expect(res.statusCode, res.body).toBe(200);
    const subject = kind === 'tag' ? publisher.ids.slow! : publisher.ids.player!;
    return res.json<AlertEpisode[]>().filter((e) => e.subjectKind === kind && e.subjectId === subject.id);
  };
  /** The next check at `at`: every rule due then is checked, and what it queued is sent. */
  const checkAt = async (at: number) => {
    clock.set(at);
    await publisher.app.alerts.checkDue();
    await publisher.app.outbox.deliverDue();
  };

  it('fires once when a demand tag times out all hour, and clears once when it answers again', async () => {
    const hourStart = Math.floor(clock.now() / HOUR_MS) * HOUR_MS;
    const rules = (await publisher.request({ method: 'GET', url: '/api/alerts/rules' })).json<AlertRule[]>();
    // the built-in as a trader tunes it: mailed and posted to chat, judged from 3 demand calls; the other built-ins off
    for (const rule of rules.filter((r) => r.builtin)) {
      const { id, builtin, firing: _f, nextCheckAt: _n, lastCheckAt: _l, ...definition } = rule;
      const changes =
        builtin === 'tagTimeouts'
          ? { minVolume: 3, notify: { email: ['trader@publisher.test'], webhooks: [`${hook.url}/chat`] } }
          : { enabled: false };
      const res = await publisher.request({
        method: 'PUT',
        url: `/api/alerts/rules/${id}`,
        payload: { ...definition, ...changes },
      });
      expect(res.statusCode, res.body).toBe(200);
    }

    // this hour: every call of the tag misses its 200 ms deadline
    await play(REQUESTS);
    await checkAt(hourStart + HOUR_MS + 5 * MINUTE_MS);
    const [fired] = await episodes();
    expect(fired).toMatchObject({
      ruleName: 'Demand tag timeouts above 20%',
      metric: 'timeoutShare',
      subjectName: 'Slow partner',
      value: 100,
      threshold: 20,
      comparison: null,
      clearedAt: null,
      firedAt: new Date(hourStart + HOUR_MS + 5 * MINUTE_MS).toISOString(),
    });
    expect(fired!.detail).toContain(`Timeouts share 100.00% over ${REQUESTS} demand calls`);
    await eventually(
      'the fired e-mail',
      async () => mail.received.length,
      (n) => n === 1,
    );
    const [firedMail] = mail.received;
    expect(firedMail!.envelopeTo).toEqual(['trader@publisher.test']);
    expect(firedMail!.mail.subject).toBe('Alert fired - Demand tag timeouts above 20%: Slow partner');
    expect(firedMail!.mail.text).toContain(fired!.detail);
    await eventually(
      'the fired webhook',
      async () => hookBodies.length,
      (n) => n === 1,
    );
    expect(hookBodies[0]!.text).toContain('Alert fired - Demand tag timeouts above 20%: Slow partner');
    expect(hookBodies[0]!.alert).toMatchObject({ event: 'fired', episode: { id: fired!.id, value: 100 } });

    // the next checks of the same hour see it still firing: no second episode, no second notice
    await checkAt(hourStart + HOUR_MS + 20 * MINUTE_MS);
    await checkAt(hourStart + HOUR_MS + 35 * MINUTE_MS);
    expect((await episodes()).map((e) => [e.id, e.clearedAt])).toEqual([[fired!.id, null]]);

    // the partner answers in time from now on: the hour after, no call times out
    const fixed = await publisher.edit('slow', { vastUrl: `${publisher.vastDemand.url}/inline?price=9` });
    expect(fixed.statusCode, fixed.body).toBe(200);
    await publisher.app.edge.snapshots.rebuild();
    await play(REQUESTS);
    await checkAt(hourStart + 2 * HOUR_MS + 5 * MINUTE_MS);
    const [cleared] = await episodes();
    expect(cleared).toMatchObject({
      id: fired!.id,
      clearedAt: new Date(hourStart + 2 * HOUR_MS + 5 * MINUTE_MS).toISOString(),
      clearValue: 0,
    });
    await eventually(
      'the cleared e-mail',
      async () => mail.received.length,
      (n) => n === 2,
    );
    expect(mail.received[1]!.mail.subject).toBe('Alert cleared - Demand tag timeouts above 20%: Slow partner');
    await eventually(
      'the cleared webhook',
      async () => hookBodies.length,
      (n) => n === 2,
    );
    expect(hookBodies[1]!.alert).toMatchObject({ event: 'cleared', episode: { id: fired!.id, clearValue: 0 } });

    // quiet afterwards: checks that find nothing send nothing
    await checkAt(hourStart + 2 * HOUR_MS + 25 * MINUTE_MS);
    expect(mail.received).toHaveLength(2);
    expect(hookBodies).toHaveLength(2);
    expect(await episodes()).toHaveLength(1);
  });

  it('fires once when a channel fill halves hour over hour, and clears once when it recovers', async () => {
    const hourStart = Math.floor(clock.now() / HOUR_MS) * HOUR_MS;
    const rules = (await publisher.request({ method: 'GET', url: '/api/alerts/rules' })).json<AlertRule[]>();
    const fillDrop = rules.find((r) => r.builtin === 'channelFillDrop')!;
    const { id, builtin: _b, firing: _f, nextCheckAt: _n, lastCheckAt: _l, ...definition } = fillDrop;
    const on = await publisher.request({
      method: 'PUT',
      url: `/api/alerts/rules/${id}`,
      payload: {
        ...definition,
        enabled: true,
        minVolume: 3,
        notify: { email: ['trader@publisher.test'], webhooks: [] },
      },
    });
    expect(on.statusCode, on.body).toBe(200);
    const mailBefore = mail.received.length;

    // this hour every ad is shown; the next hour the player shows none of what it is sent
    await play(REQUESTS, true);
    await checkAt(hourStart + HOUR_MS + 5 * MINUTE_MS);
    expect(await episodes('channel')).toEqual([]);
    await play(REQUESTS);
    await checkAt(hourStart + 2 * HOUR_MS + 5 * MINUTE_MS);
    const [fired] = await episodes('channel');
    expect(fired).toMatchObject({
      ruleName: 'Channel fill dropped by half, hour over hour',
      subjectName: 'Player channel',
      value: 0,
      comparison: 100,
      threshold: 50,
      clearedAt: null,
    });
    expect(fired!.detail).toContain('down 100% from 100.00% the window before');
    await eventually(
      'the fill alert e-mail',
      async () => mail.received.length,
      (n) => n === mailBefore + 1,
    );
    expect(mail.received.at(-1)!.mail.subject).toBe(
      'Alert fired - Channel fill dropped by half, hour over hour: Player channel',
    );

    // shown again the hour after: the fill is back, the episode clears once
    await play(REQUESTS, true);
    await checkAt(hourStart + 2 * HOUR_MS + 25 * MINUTE_MS);
    expect((await episodes('channel'))[0]!.clearedAt).toBeNull();
    await checkAt(hourStart + 3 * HOUR_MS + 5 * MINUTE_MS);
    const [cleared] = await episodes('channel');
    expect(cleared).toMatchObject({ id: fired!.id, clearValue: 100 });
    expect(cleared!.clearedAt).not.toBeNull();
    await eventually(
      'the fill cleared e-mail',
      async () => mail.received.length,
      (n) => n === mailBefore + 2,
    );
    expect(mail.received.at(-1)!.mail.subject).toBe(
      'Alert cleared - Channel fill dropped by half, hour over hour: Player channel',
    );
  });

  it('fires once when a campaign spends its daily budget, and clears once its next day starts', async () => {
    const day = (offset: number) => new Date(clock.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const perImp = 60_000; // a $60 CPM, above the seeded campaigns and the tag: it wins while it may
    const campaign = await publisher.create('paced', 'campaigns', {
      name: 'Paced to four',
      startDate: day(-1),
      endDate: day(30),
      bidCpm: 1000 * perImp,
      channelScope: 'all',
      dailyBudget: 4 * perImp,
      pacing: 'asap',
      creativeIds: [publisher.ids.spot!.id],
    });
    await publisher.app.edge.snapshots.rebuild();
    const rules = (await publisher.request({ method: 'GET', url: '/api/alerts/rules' })).json<AlertRule[]>();
    const pace = rules.find((r) => r.builtin === 'campaignPace')!;
    const { id, builtin: _b, firing: _f, nextCheckAt: _n, lastCheckAt: _l, ...definition } = pace;
    const on = await publisher.request({
      method: 'PUT',
      url: `/api/alerts/rules/${id}`,
      payload: { ...definition, enabled: true, notify: { email: ['trader@publisher.test'], webhooks: [] } },
    });
    expect(on.statusCode, on.body).toBe(200);
    // a rule turned on is checked at once, after the answer: that check (nothing spent yet) ends before
    // the players start, or it would judge the campaign part-way through its four impressions
    await eventually(
      'the check of the rule turned on',
      async () =>
        (await publisher.request({ method: 'GET', url: '/api/alerts/rules' }))
          .json<AlertRule[]>()
          .find((r) => r.id === id)!.lastCheckAt,
      (at) => at !== null && at !== pace.lastCheckAt,
    );
    // (claimed, it is under way or done: a pass asked for now runs after it)
    await publisher.app.alerts.checkDue();
    const paced = async () => {
      const res = await publisher.request({ method: 'GET', url: '/api/alerts/episodes' });
      return res.json<AlertEpisode[]>().filter((e) => e.subjectKind === 'campaign' && e.subjectId === campaign.id);
    };

    // players show every ad until the day's budget of four impressions is spent
    await play(12, true);
    const spent = await publisher.request({
      method: 'GET',
      url: `/api/demand/campaigns/pacing?ids=${campaign.id}`,
    });
    expect(spent.json()).toMatchObject({ campaigns: [{ state: 'capped', spentToday: 4 * perImp }] });
    const mailBefore = mail.received.length;
    await checkAt(clock.now() + 16 * MINUTE_MS);
    const [fired] = await paced();
    expect(fired).toMatchObject({
      ruleName: 'Campaign behind pace or budget spent',
      subjectName: 'Paced to four',
      value: 4 * perImp,
      threshold: 4 * perImp,
      comparison: 4 * perImp,
      clearedAt: null,
    });
    expect(fired!.detail).toContain('Budget spent on ');
    expect(fired!.detail).toContain("Today's budget spent");
    await eventually(
      'the pacing alert e-mail',
      async () => mail.received.length,
      (n) => n === mailBefore + 1,
    );
    expect(mail.received.at(-1)!.mail.subject).toBe(
      'Alert fired - Campaign behind pace or budget spent: Paced to four',
    );

    // its next day: nothing spent yet, the budget is whole again
    clock.set(clock.now() + 24 * HOUR_MS);
    await publisher.signInAgain();
    await checkAt(clock.now());
    const [cleared] = await paced();
    expect(cleared).toMatchObject({ id: fired!.id, clearValue: 0 });
    expect(cleared!.clearedAt).not.toBeNull();
    await eventually(
      'the pacing cleared e-mail',
      async () => mail.received.length,
      (n) => n === mailBefore + 2,
    );
  });
});
