import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertEpisode, type AlertRule, type AlertRuleInputIn } from '@adplane/shared';
import { TestClock } from '../src/clock.js';
import {
  claimAlertCheck,
  clearAlertEpisode,
  createAlertRule,
  dueAlertRules,
  ensureBuiltinRules,
  listAlertEpisodes,
  listAlertRules,
  openAlertEpisode,
} from '../src/store/alerts.js';
import { AlertRuleInput } from '@adplane/shared';
import { listAllEntities } from '../src/store/entities.js';
import { as, buildTestApp, forEachStore, freshAddress, login } from './helpers.js';

const START = Date.parse('2026-11-20T10:07:00.000Z');
const MINUTE = 60_000;

const opening = (subjectId: number, value: number) => ({
  subjectKind: 'channel' as const,
  subjectId,
  subjectName: `Channel ${subjectId}`,
  value,
  threshold: 20,
  comparison: 40,
  detail: `fill ${value}%`,
});

forEachStore((t) => {
  describe('the alert store', () => {
    it('gives each tenant its three built-in rules once, however often it is asked', async () => {
      await ensureBuiltinRules(t.store.db, START);
      expect(await ensureBuiltinRules(t.store.db, START)).toBe(0);
      for (const tenant of ['demand', 'acme']) {
        const rules = await listAlertRules(t.store.db, t.users[tenant]!.id);
        expect(rules.map((r) => r.builtin)).toEqual(['campaignPace', 'tagTimeouts', 'channelFillDrop']);
        expect(rules.every((r) => r.enabled && r.firing === 0)).toBe(true);
      }
      // a team member works in its manager's tenant and has none of its own
      expect(await listAlertRules(t.store.db, t.users.manager!.id)).toEqual([]);
      const [pace, timeouts, fill] = await listAlertRules(t.store.db, t.users.demand!.id);
      expect(pace).toMatchObject({
        metric: 'pace',
        scope: { kind: 'campaign', id: null },
        condition: { op: 'offPace' },
      });
      expect(timeouts).toMatchObject({ metric: 'timeoutShare', condition: { op: 'above', value: 20 }, minVolume: 20 });
      expect(fill).toMatchObject({
        metric: 'fill',
        scope: { kind: 'channel', id: null },
        condition: { op: 'drop', percent: 50, against: 'previous' },
        window: 'hour',
      });
    });

    it('lets one of two processes take a due check, and the rule is due again an interval later', async () => {
      const rule = await createAlertRule(
        t.store.db,
        t.users.acme!.id,
        AlertRuleInput.parse({
          name: 'Requests under 1,000 an hour',
          metric: 'reqs',
          scope: { kind: 'account' },
          condition: { op: 'below', value: 1000 },
          everyMinutes: 10,
        }),
        START,
      );
      expect((await dueAlertRules(t.store.db, START, 1000)).some((r) => r.id === rule.id)).toBe(true);
      const claims = await Promise.all([
        claimAlertCheck(t.store.db, rule, START),
        claimAlertCheck(t.store.db, rule, START),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect((await dueAlertRules(t.store.db, START + 9 * MINUTE, 1000)).some((r) => r.id === rule.id)).toBe(false);
      const [again] = (await dueAlertRules(t.store.db, START + 10 * MINUTE, 1000)).filter((r) => r.id === rule.id);
      expect(again?.nextCheckAt).toBe(new Date(START + 10 * MINUTE).toISOString());
      expect(again?.lastCheckAt).toBe(new Date(START).toISOString());
      expect(await claimAlertCheck(t.store.db, again!, START + 10 * MINUTE)).toBe(true);
    });

    it('keeps one open episode per rule and subject, closed once, with the numbers that opened and closed it', async () => {
      const rule = await createAlertRule(
        t.store.db,
        t.users.acme!.id,
        AlertRuleInput.parse({
          name: 'Fill halved',
          metric: 'fill',
          scope: { kind: 'channel', id: null },
          condition: { op: 'drop', percent: 50, against: 'lastWeek' },
        }),
        START,
      );
      const first = await openAlertEpisode(t.store.db, rule, opening(7, 10), START);
      expect(first).toMatchObject({
        ruleId: rule.id,
        ruleName: 'Fill halved',
        subjectId: 7,
        value: 10,
        threshold: 20,
        comparison: 40,
        firedAt: new Date(START).toISOString(),
        clearedAt: null,
      });
      expect(await openAlertEpisode(t.store.db, rule, opening(7, 12), START + MINUTE)).toBeNull();
      // another subject of the same rule has an episode of its own
      expect(await openAlertEpisode(t.store.db, rule, opening(8, 5), START)).not.toBeNull();
      const cleared = await clearAlertEpisode(t.store.db, rule, first!.id, 38.5, START + 60 * MINUTE);
      expect(cleared).toMatchObject({ clearedAt: new Date(START + 60 * MINUTE).toISOString(), clearValue: 38.5 });
      expect(await clearAlertEpisode(t.store.db, rule, first!.id, 40, START + 61 * MINUTE)).toBeNull();
      const second = await openAlertEpisode(t.store.db, rule, opening(7, 9), START + 120 * MINUTE);
      expect(second?.id).not.toBe(first!.id);
      const history = await listAlertEpisodes(t.store.db, t.users.acme!.id, { ruleId: rule.id, limit: 10 });
      expect(history.map((e: AlertEpisode) => [e.subjectId, e.clearedAt === null])).toEqual([
        [7, true],
        [8, true],
        [7, false],
      ]);
      expect(await listAlertEpisodes(t.store.db, t.users.demand!.id, { ruleId: rule.id, limit: 10 })).toEqual([]);
      expect((await listAlertRules(t.store.db, t.users.acme!.id)).find((r) => r.id === rule.id)?.firing).toBe(2);
    });
  });

  describe('the alerts API', () => {
    let app: FastifyInstance;
    const clock = new TestClock(START);
    const cookies: Record<string, string> = {};
    beforeAll(async () => {
      app = await buildTestApp(t.store, {}, { clock });
      for (const user of ['demand', 'manager', 'acme', 'admin', 'sub'])
        cookies[user] = await login(app, user, undefined, freshAddress());
    });
    afterAll(async () => {
      await app.close();
    });

    const call = (user: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
      as(app, cookies[user]!, { method, url, ...(payload !== undefined ? { payload: payload as object } : {}) });
    const rule: AlertRuleInputIn = {
      name: 'Errors over 5%',
      metric: 'errorShare',
      scope: { kind: 'account' },
      condition: { op: 'above', value: 5 },
      window: 'day',
      everyMinutes: 30,
      minVolume: 50,
      notify: { email: ['ops@tenant.example'], webhooks: ['https://hooks.example.com/T1/B2'] },
    };

    it('lists the tenant its built-ins, to its team members too, and to no one else', async () => {
      const own = await call('demand', 'GET', '/api/alerts/rules');
      expect(own.statusCode, own.body).toBe(200);
      expect(own.json<AlertRule[]>().filter((r) => r.builtin).length).toBe(3);
      const member = await call('manager', 'GET', '/api/alerts/rules');
      expect(member.json()).toEqual(own.json());
      expect((await call('admin', 'GET', '/api/alerts/rules')).statusCode).toBe(403);
      expect((await call('sub', 'GET', '/api/alerts/rules')).statusCode).toBe(403);
      expect((await app.inject({ method: 'GET', url: '/api/alerts/episodes' })).statusCode).toBe(403);
    });

    it('makes, changes and deletes a rule of its own, checked at once', async () => {
      const made = await call('manager', 'POST', '/api/alerts/rules', rule);
      expect(made.statusCode, made.body).toBe(201);
      const created = made.json<AlertRule>();
      expect(created).toMatchObject({ ...rule, builtin: null, enabled: true, firing: 0 });
      expect(created.nextCheckAt).toBe(new Date(START).toISOString());
      const changed = await call('demand', 'PUT', `/api/alerts/rules/${created.id}`, { ...rule, enabled: false });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json<AlertRule>().enabled).toBe(false);
      // another tenant's rule is not found
      expect((await call('acme', 'PUT', `/api/alerts/rules/${created.id}`, rule)).statusCode).toBe(404);
      expect((await call('acme', 'DELETE', `/api/alerts/rules/${created.id}`)).statusCode).toBe(404);
      expect((await call('demand', 'DELETE', `/api/alerts/rules/${created.id}`)).statusCode).toBe(204);
      expect(
        (await call('demand', 'GET', '/api/alerts/rules')).json<AlertRule[]>().some((r) => r.id === created.id),
      ).toBe(false);
    });

    it('turns a built-in off and on but never deletes it', async () => {
      const [pace] = (await call('demand', 'GET', '/api/alerts/rules')).json<AlertRule[]>();
      const { id, builtin: _b, firing: _f, nextCheckAt: _n, lastCheckAt: _l, ...definition } = pace!;
      const off = await call('demand', 'PUT', `/api/alerts/rules/${id}`, { ...definition, enabled: false });
      expect(off.json<AlertRule>()).toMatchObject({ builtin: 'campaignPace', enabled: false });
      const refused = await call('demand', 'DELETE', `/api/alerts/rules/${id}`);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ message: expect.stringMatching(/turn it off/) });
      expect((await call('demand', 'PUT', `/api/alerts/rules/${id}`, definition)).json<AlertRule>().enabled).toBe(true);
    });

    it('refuses bad rules naming the field', async () => {
      const bad = async (body: unknown, field: string) => {
        const res = await call('demand', 'POST', '/api/alerts/rules', body);
        expect(res.statusCode, res.body).toBe(400);
        expect(res.body).toContain(field);
      };
      await bad({ ...rule, name: '' }, 'name');
      await bad({ ...rule, metric: 'profit' }, 'metric');
      await bad({ ...rule, condition: { op: 'offPace' } }, 'condition.op');
      await bad({ ...rule, metric: 'pace', condition: { op: 'offPace' } }, 'scope.kind');
      await bad({ ...rule, condition: { op: 'drop', percent: 150, against: 'previous' } }, 'condition.percent');
      await bad({ ...rule, everyMinutes: 1 }, 'everyMinutes');
      await bad({ ...rule, scope: { kind: 'account', id: 4 } }, 'scope.id');
      await bad({ ...rule, notify: { email: ['not an address'], webhooks: [] } }, 'notify.email.0');
      await bad({ ...rule, notify: { email: [], webhooks: ['ftp://x'] } }, 'notify.webhooks.0');
      // a channel of another tenant is no scope of this one
      const [acmeChannel] = await listAllEntities(t.store.db, 'channels', { tenantId: t.users.acme!.id });
      expect(acmeChannel).toBeDefined();
      await bad({ ...rule, scope: { kind: 'channel', id: acmeChannel!.id } }, 'scope.id');
      await bad({ ...rule, scope: { kind: 'channel', id: 999_999 } }, 'scope.id');
      const episodes = await call('demand', 'GET', '/api/alerts/episodes?limit=0');
      expect(episodes.statusCode).toBe(400);
      expect(episodes.body).toContain('limit');
    });
  });

  describe('two api processes on one store', () => {
    const clock = new TestClock(START + 3 * 86_400_000);
    let a: FastifyInstance;
    let b: FastifyInstance;
    beforeAll(async () => {
      a = await buildTestApp(t.store, {}, { clock });
      // its own stats file: two processes share the config store, not a DuckDB file
      b = await buildTestApp(t.store, { dataDir: mkdtempSync(join(tmpdir(), 'adplane-alerts-b-')) }, { clock });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it('check each due rule once between them: one episode, one notice', async () => {
      const cookie = await login(a, 'acme', undefined, freshAddress());
      const made = await as(a, cookie, {
        method: 'POST',
        url: '/api/alerts/rules',
        payload: {
          name: 'Under a billion requests a day',
          enabled: false,
          metric: 'reqs',
          scope: { kind: 'account' },
          condition: { op: 'below', value: 1_000_000_000 },
          window: 'day',
          everyMinutes: 5,
          notify: { email: ['desk@acme.test'], webhooks: [] },
        },
      });
      expect(made.statusCode, made.body).toBe(201);
      const rule = made.json<AlertRule>();
      // (after the pass a new rule starts) turned on as another process would see it, then both look at once
      await a.alerts.checkDue();
      await t.store.db.updateTable('alert_rules').set({ enabled: 1 }).where('id', '=', rule.id).execute();
      clock.advance(20 * MINUTE);
      const due = await dueAlertRules(t.store.db, clock.now(), 1000);
      expect(due.some((r) => r.id === rule.id)).toBe(true);
      const [byA, byB] = await Promise.all([a.alerts.checkDue(), b.alerts.checkDue()]);
      expect(byA + byB).toBe(due.length);
      const episodes = await listAlertEpisodes(t.store.db, t.users.acme!.id, { ruleId: rule.id, limit: 10 });
      expect(episodes).toHaveLength(1);
      expect(episodes[0]).toMatchObject({
        value: 0,
        threshold: 1_000_000_000,
        clearedAt: null,
        subjectName: 'Whole account',
      });
      // checked again later by either, it is still the one episode: nothing more is sent
      clock.advance(5 * MINUTE);
      await Promise.all([a.alerts.checkDue(), b.alerts.checkDue()]);
      expect(await listAlertEpisodes(t.store.db, t.users.acme!.id, { ruleId: rule.id, limit: 10 })).toHaveLength(1);
      const notices = await a.outbox.of([`alert:${rule.id}`]);
      expect(notices.map((n) => [n.kind, n.target])).toEqual([['email', 'desk@acme.test']]);
    });
  });
});
