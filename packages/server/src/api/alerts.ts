import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type AlertRule, AlertEpisodesQuery, AlertRuleInput } from '@adplane/shared';
import { clearEpisodesOf } from '../alerts/alertChecks.js';
import { requireAuth } from '../auth/guards.js';
import { tenantIdOf } from '../auth/tenancy.js';
import { badField, HttpError, notFound, parseInput } from '../http/errors.js';
import {
  createAlertRule,
  deleteAlertRule,
  ensureBuiltinRules,
  getAlertRule,
  listAlertEpisodes,
  listAlertRules,
  type StoredAlertRule,
  updateAlertRule,
} from '../store/alerts.js';
import { getEntities } from '../store/entities.js';

const IdParams = z.object({ id: z.coerce.number().int().positive('must be a rule id') });

/** Rules a tenant keeps at most, built-ins included. */
const ALERT_RULES_MAX = 100;

const KIND_OF_SCOPE = { channel: 'channels', tag: 'tags', campaign: 'campaigns' } as const;

/**
 * A tenant's alerts (docs/alerts.md): its rules (the built-ins among them, turned off but never
 * deleted) and their episodes. Demand users, team members included, manage their tenant's; everyone
 * else is refused by the guard.
 */
export async function alertRoutes(app: FastifyInstance): Promise<void> {
  const tenantOf = (request: FastifyRequest): number => tenantIdOf(requireAuth(request).user)!;

  async function ruleOf(request: FastifyRequest): Promise<StoredAlertRule> {
    const { id } = parseInput(IdParams, request.params);
    const rule = await getAlertRule(app.store.db, tenantOf(request), id);
    // another tenant's rule answers 404, like a missing one
    if (!rule) throw notFound('Alert rule not found');
    return rule;
  }

  /** The one entity a rule watches is the tenant's own. */
  async function requireScope(tenantId: number, input: AlertRuleInput): Promise<void> {
    const { kind, id } = input.scope;
    if (kind === 'account' || id === null) return;
    const [row] = await getEntities(app.store.db, KIND_OF_SCOPE[kind], { tenantId }, [id]);
    if (!row) throw badField('scope.id', `${kind} ${id} not found`);
  }

  const answerOf = ({ tenantId: _t, ...rule }: StoredAlertRule, firing = 0): AlertRule => ({ ...rule, firing });

  /** A rule made or changed is due at once: check it now rather than at the next tick (after the answer). */
  const checkSoon = () =>
    setImmediate(
      () => void app.alerts.checkDue().catch((error: unknown) => app.log.error({ err: error }, 'alert checks failed')),
    );

  app.get('/api/alerts/rules', { config: { guard: 'demand' } }, async (request) => {
    const tenantId = tenantOf(request);
    // a tenant made since the last check sees its built-ins at once
    await ensureBuiltinRules(app.store.db, app.clock.now());
    return listAlertRules(app.store.db, tenantId);
  });

  app.post('/api/alerts/rules', { config: { guard: 'demand' } }, async (request, reply) => {
    const tenantId = tenantOf(request);
    const input = parseInput(AlertRuleInput, request.body);
    await requireScope(tenantId, input);
    if ((await listAlertRules(app.store.db, tenantId)).length >= ALERT_RULES_MAX)
      throw new HttpError(409, `At most ${ALERT_RULES_MAX} alert rules per account`);
    const rule = await createAlertRule(app.store.db, tenantId, input, app.clock.now());
    checkSoon();
    return reply.code(201).send(answerOf(rule));
  });

  app.put('/api/alerts/rules/:id', { config: { guard: 'demand' } }, async (request) => {
    const rule = await ruleOf(request);
    const input = parseInput(AlertRuleInput, request.body);
    await requireScope(rule.tenantId, input);
    await updateAlertRule(app.store.db, rule, input, app.clock.now());
    const updated = (await getAlertRule(app.store.db, rule.tenantId, rule.id))!;
    if (!updated.enabled) await clearEpisodesOf(app, updated);
    const listed = (await listAlertRules(app.store.db, rule.tenantId)).find((r) => r.id === rule.id);
    if (updated.enabled) checkSoon();
    return answerOf(updated, listed?.firing ?? 0);
  });

  app.delete('/api/alerts/rules/:id', { config: { guard: 'demand' } }, async (request, reply) => {
    const rule = await ruleOf(request);
    if (rule.builtin) throw new HttpError(409, 'A built-in rule cannot be deleted: turn it off instead', 'enabled');
    await deleteAlertRule(app.store.db, rule.id);
    return reply.code(204).send();
  });

  app.get('/api/alerts/episodes', { config: { guard: 'demand' } }, async (request) => {
    const query = parseInput(AlertEpisodesQuery, request.query);
    return listAlertEpisodes(app.store.db, tenantOf(request), {
      ...(query.ruleId !== undefined ? { ruleId: query.ruleId } : {}),
      open: query.open === '1',
      limit: query.limit,
    });
  });
}
