import { type Kysely, type Selectable, sql } from 'kysely';
import {
  type AlertBuiltin,
  type AlertCondition,
  type AlertEpisode,
  type AlertNotify,
  type AlertRule,
  type AlertRuleInput,
  type AlertScopeKind,
} from '@adplane/shared';
import { nowIso, parseJson, toJson } from './json.js';
import { type AlertEpisodesTable, type AlertRulesTable, type Database } from './schema.js';

type Db = Kysely<Database>;
type RuleRow = Selectable<AlertRulesTable>;

/** A rule as stored, with its tenant (never answered: the API answers AlertRule). */
export interface StoredAlertRule extends Omit<AlertRule, 'firing'> {
  tenantId: number;
}

/** An ISO instant as stored; PostgreSQL's timestamptz may come back as a Date. */
const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));

function toRule(row: RuleRow): StoredAlertRule {
  return {
    id: Number(row.id),
    tenantId: Number(row.tenant_id),
    builtin: row.builtin,
    name: row.name,
    enabled: Boolean(row.enabled),
    metric: row.metric,
    scope: { kind: row.scope_kind, id: row.scope_id === null ? null : Number(row.scope_id) },
    condition: parseJson<AlertCondition>(row.condition, { op: 'above', value: 0 }),
    window: row.period,
    everyMinutes: Number(row.every_minutes),
    minVolume: Number(row.min_volume),
    notify: parseJson<AlertNotify>(row.notify, { email: [], webhooks: [] }),
    nextCheckAt: iso(row.next_check_at),
    lastCheckAt: row.last_check_at === null ? null : iso(row.last_check_at),
  };
}

const ruleColumns = (input: AlertRuleInput) => ({
  name: input.name,
  enabled: input.enabled ? 1 : 0,
  metric: input.metric,
  scope_kind: input.scope.kind,
  scope_id: input.scope.id,
  condition: toJson(input.condition),
  period: input.window,
  every_minutes: input.everyMinutes,
  min_volume: input.minVolume,
  notify: toJson(input.notify),
});

/**
 * The built-in rules every tenant has, on from the start (docs/alerts.md, "Built-in rules"). Each
 * e-mails the tenant's account address when it has one.
 */
const BUILTIN_RULES: Readonly<Record<AlertBuiltin, Omit<AlertRuleInput, 'notify'>>> = {
  campaignPace: {
    name: 'Campaign behind pace or budget spent',
    enabled: true,
    metric: 'pace',
    scope: { kind: 'campaign', id: null },
    condition: { op: 'offPace' },
    window: 'hour',
    everyMinutes: 15,
    minVolume: 0,
  },
  tagTimeouts: {
    name: 'Demand tag timeouts above 20%',
    enabled: true,
    metric: 'timeoutShare',
    scope: { kind: 'tag', id: null },
    condition: { op: 'above', value: 20 },
    window: 'hour',
    everyMinutes: 15,
    minVolume: 20,
  },
  channelFillDrop: {
    name: 'Channel fill dropped by half, hour over hour',
    enabled: true,
    metric: 'fill',
    scope: { kind: 'channel', id: null },
    condition: { op: 'drop', percent: 50, against: 'previous' },
    window: 'hour',
    everyMinutes: 15,
    minVolume: 100,
  },
};

/**
 * Give every tenant (a demand account without a manager) the built-in rules it lacks, due at once.
 * Safe to run in several processes at a time: the (tenant, builtin) index keeps one of each.
 */
export async function ensureBuiltinRules(db: Db, now: number): Promise<number> {
  const tenants = await db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('type', '=', 'demand')
    .where('manager_id', 'is', null)
    .where((eb) =>
      eb(
        eb
          .selectFrom('alert_rules')
          .select(eb.fn.countAll<number>().as('n'))
          .whereRef('alert_rules.tenant_id', '=', 'users.id')
          .where('alert_rules.builtin', 'is not', null),
        '<',
        Object.keys(BUILTIN_RULES).length,
      ),
    )
    .execute();
  let added = 0;
  for (const tenant of tenants) {
    const stamp = nowIso();
    for (const [builtin, rule] of Object.entries(BUILTIN_RULES) as [
      AlertBuiltin,
      (typeof BUILTIN_RULES)[AlertBuiltin],
    ][]) {
      const notify: AlertNotify = { email: tenant.email ? [tenant.email] : [], webhooks: [] };
      const result = await db
        .insertInto('alert_rules')
        .values({
          tenant_id: tenant.id,
          builtin,
          ...ruleColumns({ ...rule, notify }),
          next_check_at: new Date(now).toISOString(),
          created_at: stamp,
          updated_at: stamp,
        })
        .onConflict((oc) => oc.columns(['tenant_id', 'builtin']).doNothing())
        .executeTakeFirst();
      added += Number(result.numInsertedOrUpdatedRows ?? 0);
    }
  }
  return added;
}

/** A tenant's rules, built-ins first, each with how many episodes it has open. */
export async function listAlertRules(db: Db, tenantId: number): Promise<AlertRule[]> {
  const rows = await db
    .selectFrom('alert_rules')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy(sql`case when builtin is null then 1 else 0 end`)
    .orderBy('id')
    .execute();
  const open = await db
    .selectFrom('alert_episodes')
    .select(['rule_id', sql<number>`count(*)`.as('n')])
    .where('tenant_id', '=', tenantId)
    .where('cleared_at', 'is', null)
    .groupBy('rule_id')
    .execute();
  const firing = new Map(open.map((r) => [Number(r.rule_id), Number(r.n)]));
  return rows.map((row) => {
    const { tenantId: _t, ...rule } = toRule(row);
    return { ...rule, firing: firing.get(rule.id) ?? 0 };
  });
}

export async function getAlertRule(db: Db, tenantId: number, id: number): Promise<StoredAlertRule | null> {
  const row = await db
    .selectFrom('alert_rules')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row ? toRule(row) : null;
}

export async function createAlertRule(
  db: Db,
  tenantId: number,
  input: AlertRuleInput,
  now: number,
): Promise<StoredAlertRule> {
  const stamp = nowIso();
  const row = await db
    .insertInto('alert_rules')
    .values({
      tenant_id: tenantId,
      builtin: null,
      ...ruleColumns(input),
      next_check_at: new Date(now).toISOString(),
      created_at: stamp,
      updated_at: stamp,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRule(row);
}

/**
 * Replace a rule's definition (a built-in stays the built-in it is); it is checked at once with its new
 * definition, whose first check closes the open episodes that no longer hold.
 */
export async function updateAlertRule(
  db: Db,
  rule: StoredAlertRule,
  input: AlertRuleInput,
  now: number,
): Promise<void> {
  await db
    .updateTable('alert_rules')
    .set({ ...ruleColumns(input), next_check_at: new Date(now).toISOString(), updated_at: nowIso() })
    .where('id', '=', rule.id)
    .execute();
}

export async function deleteAlertRule(db: Db, id: number): Promise<void> {
  await db.deleteFrom('alert_rules').where('id', '=', id).execute();
}

/** Enabled rules whose next check is at or before `now`, oldest due first. */
export async function dueAlertRules(db: Db, now: number, limit: number): Promise<StoredAlertRule[]> {
  const rows = await db
    .selectFrom('alert_rules')
    .selectAll()
    .where('enabled', '=', 1)
    .where('next_check_at', '<=', new Date(now).toISOString())
    .orderBy('next_check_at')
    .limit(limit)
    .execute();
  return rows.map(toRule);
}

/**
 * Take a due rule's check: move its next check on by its interval, if it is still due. One UPDATE,
 * so of several processes that saw it due exactly one gets `true` (PostgreSQL re-reads the row a
 * concurrent update changed; SQLite writes one at a time).
 */
export async function claimAlertCheck(db: Db, rule: StoredAlertRule, now: number): Promise<boolean> {
  const at = new Date(now).toISOString();
  const result = await db
    .updateTable('alert_rules')
    .set({ next_check_at: new Date(now + rule.everyMinutes * 60_000).toISOString(), last_check_at: at })
    .where('id', '=', rule.id)
    .where('enabled', '=', 1)
    .where('next_check_at', '<=', at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The numbers an episode opens with. */
export interface EpisodeOpening {
  subjectKind: AlertScopeKind;
  subjectId: number;
  subjectName: string;
  value: number;
  threshold: number;
  comparison: number | null;
  detail: string;
}

/** A rule's open episodes by subject id. */
export async function openAlertEpisodes(db: Db, ruleId: number): Promise<Map<number, { id: number }>> {
  const rows = await db
    .selectFrom('alert_episodes')
    .select(['id', 'subject_id'])
    .where('rule_id', '=', ruleId)
    .where('cleared_at', 'is', null)
    .execute();
  return new Map(rows.map((r) => [Number(r.subject_id), { id: Number(r.id) }]));
}

/** Open an episode; null when one of the rule and subject is open already (the open index holds one). */
export async function openAlertEpisode(
  db: Db,
  rule: StoredAlertRule,
  opening: EpisodeOpening,
  now: number,
): Promise<AlertEpisode | null> {
  const row = await db
    .insertInto('alert_episodes')
    .values({
      rule_id: rule.id,
      tenant_id: rule.tenantId,
      subject_kind: opening.subjectKind,
      subject_id: opening.subjectId,
      subject_name: opening.subjectName,
      fired_at: new Date(now).toISOString(),
      value: opening.value,
      threshold: opening.threshold,
      comparison: opening.comparison,
      detail: opening.detail,
    })
    .onConflict((oc) => oc.columns(['rule_id', 'subject_id']).where('cleared_at', 'is', null).doNothing())
    .returningAll()
    .executeTakeFirst();
  return row ? toEpisode(row, rule) : null;
}

/** Close an open episode with the value that cleared it; null when it was closed already. */
export async function clearAlertEpisode(
  db: Db,
  rule: StoredAlertRule,
  id: number,
  clearValue: number | null,
  now: number,
): Promise<AlertEpisode | null> {
  const row = await db
    .updateTable('alert_episodes')
    .set({ cleared_at: new Date(now).toISOString(), clear_value: clearValue })
    .where('id', '=', id)
    .where('cleared_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row ? toEpisode(row, rule) : null;
}

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toEpisode(row: Selectable<AlertEpisodesTable>, rule: Pick<StoredAlertRule, 'name' | 'metric'>): AlertEpisode {
  return {
    id: Number(row.id),
    ruleId: Number(row.rule_id),
    ruleName: rule.name,
    metric: rule.metric,
    subjectKind: row.subject_kind,
    subjectId: Number(row.subject_id),
    subjectName: row.subject_name,
    firedAt: iso(row.fired_at),
    clearedAt: row.cleared_at === null ? null : iso(row.cleared_at),
    value: Number(row.value),
    threshold: Number(row.threshold),
    comparison: nullableNumber(row.comparison),
    clearValue: nullableNumber(row.clear_value),
    detail: row.detail,
  };
}

/** A tenant's episodes, newest first: of one rule, or only the open ones, when asked. */
export async function listAlertEpisodes(
  db: Db,
  tenantId: number,
  options: { ruleId?: number; open?: boolean; limit: number },
): Promise<AlertEpisode[]> {
  let q = db
    .selectFrom('alert_episodes')
    .innerJoin('alert_rules', 'alert_rules.id', 'alert_episodes.rule_id')
    .selectAll('alert_episodes')
    .select(['alert_rules.name', 'alert_rules.metric'])
    .where('alert_episodes.tenant_id', '=', tenantId);
  if (options.ruleId !== undefined) q = q.where('alert_episodes.rule_id', '=', options.ruleId);
  if (options.open) q = q.where('alert_episodes.cleared_at', 'is', null);
  const rows = await q.orderBy('alert_episodes.id', 'desc').limit(options.limit).execute();
  return rows.map((row) => toEpisode(row, row));
}
