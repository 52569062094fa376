import { type FastifyInstance } from 'fastify';
import {
  type AlertMetric,
  type AlertScopeKind,
  type DimensionId,
  type MetricId,
  nameField,
  type ReportRequest,
  ReportRequest as ReportRequestSchema,
} from '@adplane/shared';
import { pacingOfCampaigns } from '../resources/pacedCampaigns.js';
import { getReport } from '../stats/queries/getReport.js';
import { type StoredAlertRule } from '../store/alerts.js';
import { getEntities, listAllEntities } from '../store/entities.js';
import {
  comparisonOf,
  detailOf,
  judge,
  measurable,
  readingOf,
  reportMetricsOf,
  type Span,
  windowOf,
} from './conditions.js';

/** What one check found of one subject (the account, or a channel, tag or campaign). */
export interface Finding {
  subjectKind: AlertScopeKind;
  /** 0 for the whole account. */
  subjectId: number;
  subjectName: string;
  firing: boolean;
  value: number;
  threshold: number;
  comparison: number | null;
  detail: string;
}

/** The report dimension of a scope (the whole account has none). */
const SCOPE_DIMENSION: Readonly<Record<Exclude<AlertScopeKind, 'account'>, DimensionId>> = {
  channel: 'channel',
  tag: 'tag',
  campaign: 'campaign',
};

const WHOLE_ACCOUNT = 'Whole account';

/** Rows a measuring report may answer: every hour of the days it spans by every entity in scope. */
const MEASURE_ROWS = 500_000;

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const hourMs = (text: string) => Date.parse(`${text.replace(' ', 'T')}:00Z`);

type Sums = Partial<Record<MetricId, number>>;

/**
 * The tenant's sums over `span` per subject, through the report path (getReport, the tenant's
 * scope, as the tenant's own report would read them): by hour and the scope's dimension, the hours of
 * the span kept. The whole account is subject 0.
 */
async function measure(
  app: FastifyInstance,
  rule: StoredAlertRule,
  metrics: MetricId[],
  span: Span,
): Promise<Map<number, { sums: Sums; name: string }>> {
  const dimension = rule.scope.kind === 'account' ? null : SCOPE_DIMENSION[rule.scope.kind];
  const request: ReportRequest = ReportRequestSchema.parse({
    startDate: utcDay(span.from),
    endDate: utcDay(span.to - 1),
    timezone: 0,
    dimensions: dimension ? ['hour', dimension] : ['hour'],
    metrics,
    filters: dimension && rule.scope.id !== null ? { [dimension]: [rule.scope.id] } : {},
  });
  const rows = await getReport(
    {
      stats: app.stats,
      db: app.store.db,
      scope: { tenantId: rule.tenantId },
      prices: new Map(),
      viewer: { type: 'demand', showSystemCost: false },
    },
    request,
    { limit: MEASURE_ROWS, totals: false },
  );
  const out = new Map<number, { sums: Sums; name: string }>();
  for (const row of rows) {
    const at = hourMs(String(row.hour));
    if (!(at >= span.from && at < span.to)) continue;
    const id = dimension ? Number(row[dimension]) : 0;
    // a demand report's row of the requests offered to no demand is no tag's or campaign's
    if (dimension && !(id > 0)) continue;
    const entry = out.get(id) ?? {
      sums: {},
      name: dimension ? String(row[nameField(dimension)] ?? '') : WHOLE_ACCOUNT,
    };
    for (const m of metrics) entry.sums[m] = (entry.sums[m] ?? 0) + Number(row[m] ?? 0);
    out.set(id, entry);
  }
  return out;
}

/** The names of the one watched entity, or the account's, when the window has no rows of it. */
async function subjectsWatched(app: FastifyInstance, rule: StoredAlertRule): Promise<Map<number, string>> {
  if (rule.scope.kind === 'account') return new Map([[0, WHOLE_ACCOUNT]]);
  if (rule.scope.id === null) return new Map();
  const [row] = await getEntities(app.store.db, kindOf(rule.scope.kind), { tenantId: rule.tenantId }, [rule.scope.id]);
  return new Map([[rule.scope.id, row?.name ?? `#${rule.scope.id}`]]);
}

const kindOf = (scope: Exclude<AlertScopeKind, 'account'>) =>
  scope === 'channel' ? 'channels' : scope === 'tag' ? 'tags' : 'campaigns';

/**
 * One check of a report-metric rule at `now`: each subject in the window, judged. The one entity or
 * the account watched is judged with zeros when the window holds none of its rows; of "each" scopes
 * only the entities with rows in the window are. A share under the rule's volume is not judged
 * (it reads as not firing, so an episode it opened clears).
 */
async function checkMetric(app: FastifyInstance, rule: StoredAlertRule, now: number): Promise<Finding[]> {
  const metric = rule.metric as Exclude<AlertMetric, 'pace'>;
  const window = windowOf(now, rule.window);
  const metrics = reportMetricsOf(metric);
  const current = await measure(app, rule, metrics, window);
  const condition = rule.condition;
  const before =
    condition.op === 'drop' ? await measure(app, rule, metrics, comparisonOf(window, condition.against)) : null;
  for (const [id, name] of await subjectsWatched(app, rule)) if (!current.has(id)) current.set(id, { sums: {}, name });
  const findings: Finding[] = [];
  for (const [subjectId, { sums, name }] of current) {
    const { value, volume } = readingOf(metric, sums);
    let comparison: number | null = null;
    if (before) {
      const earlier = readingOf(metric, before.get(subjectId)?.sums ?? {});
      // a drop is judged only against a window that was itself measurable
      comparison = measurable(metric, earlier.volume, rule.minVolume) ? earlier.value : null;
    }
    const judged = measurable(metric, volume, rule.minVolume)
      ? judge(condition, value, comparison)
      : { firing: false, threshold: judge(condition, value, comparison).threshold };
    findings.push({
      subjectKind: rule.scope.kind,
      subjectId,
      subjectName: name || `#${subjectId}`,
      firing: judged.firing,
      value,
      threshold: judged.threshold,
      comparison,
      detail: detailOf({ metric, condition, value, volume, threshold: judged.threshold, comparison, window }),
    });
  }
  return findings;
}

/**
 * One check of the pacing rule: each campaign in scope (not archived) with its pacing now, firing
 * when it is behind pace or a budget is spent (docs/delivery.md, "Pacing state").
 */
async function checkPace(app: FastifyInstance, rule: StoredAlertRule, now: number): Promise<Finding[]> {
  const scope = { tenantId: rule.tenantId };
  const rows = (
    rule.scope.id === null
      ? await listAllEntities(app.store.db, 'campaigns', scope)
      : await getEntities(app.store.db, 'campaigns', scope, [rule.scope.id])
  ).filter((r) => !r.archived);
  const paced = await pacingOfCampaigns(app.store.db, app.deliveryCounters, rows, now);
  return paced.map((p, i) => {
    const budget = typeof p.dailyBudget === 'number' ? p.dailyBudget : null;
    const state = p.state === 'behind' ? 'Behind pace' : p.state === 'capped' ? 'Budget spent' : 'Pacing';
    return {
      subjectKind: 'campaign',
      subjectId: p.campaignId,
      subjectName: rows[i]!.name,
      firing: p.state === 'behind' || p.state === 'capped',
      value: p.spentToday,
      threshold: p.state === 'capped' ? (budget ?? p.spentToday) : (p.targetSoFar ?? 0),
      comparison: budget,
      detail: `${state} on ${p.day} at ${String(p.hour).padStart(2, '0')}:00 (UTC${p.timezone >= 0 ? '+' : ''}${p.timezone}): ${p.reason}`,
    };
  });
}

/** One check of a rule at `now`: what it finds of each subject. */
export function checkRule(app: FastifyInstance, rule: StoredAlertRule, now: number): Promise<Finding[]> {
  return rule.metric === 'pace' ? checkPace(app, rule, now) : checkMetric(app, rule, now);
}
