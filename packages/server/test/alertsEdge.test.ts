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
 * The built-in "demand tag timeouts above 20%" rule over real traffic: players call a channel through
 * the edge, its one demand tag hangs past its deadline all hour, the rule fires at the next hour's
 * check; the tag answers in time the hour after, and the rule clears. Each change of state reaches a
 * real SMTP server and a local webhook once, however many checks see it.
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

  const play = async (times: number) => {
    for (let i = 0; i < times; i++) {
      const res = await edgeRequest(publisher.app, `/vast/${publisher.ids.player!.uid}?w=640&h=360&ip=8.8.8.8`);
      expect(res.statusCode).toBe(200);
    }
    await publisher.app.edge.flush();
  };
  const episodes = async () => {
    const res = await publisher.request({ method: 'GET', url: '/api/alerts/episodes' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<AlertEpisode[]>().filter((e) => e.subjectKind === 'tag' && e.subjectId === publisher.ids.slow!.id);
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
});
