/**
 * Alerts (docs/alerts.md): a tenant's rules over report metrics, and the episodes they open and close.
 * One zod contract the server validates with and the console builds its editor from.
 */
import { z } from 'zod';
import { httpUrl } from './entities/common.js';
import { formatPercent, formatUsdMicros } from './format.js';
import { requiredText } from './schemas/common.js';

/** What a rule watches. Counts and money as reports answer them; shares in percent; `pace` a campaign's pacing state. */
export const ALERT_METRICS = ['fill', 'reqs', 'imps', 'revenue', 'timeoutShare', 'errorShare', 'ecpm', 'pace'] as const;
export type AlertMetric = (typeof ALERT_METRICS)[number];

export const ALERT_METRIC_LABELS: Readonly<Record<AlertMetric, string>> = {
  fill: 'Fill rate',
  reqs: 'Requests',
  imps: 'Impressions',
  revenue: 'Revenue',
  timeoutShare: 'Timeouts share',
  errorShare: 'Errors share',
  ecpm: 'eCPM',
  pace: 'Pacing',
};

/** How a metric's numbers read: whole counts, micro-dollars, percent, or pacing's spend (micro-dollars). */
export const ALERT_METRIC_FORMAT: Readonly<Record<AlertMetric, 'count' | 'usd' | 'percent'>> = {
  fill: 'percent',
  reqs: 'count',
  imps: 'count',
  revenue: 'usd',
  timeoutShare: 'percent',
  errorShare: 'percent',
  ecpm: 'usd',
  pace: 'usd',
};

/** A metric's number as people read it (by ALERT_METRIC_FORMAT): `12.50%`, `$3.20`, `1,204`. */
export function formatAlertValue(metric: AlertMetric, value: number): string {
  switch (ALERT_METRIC_FORMAT[metric]) {
    case 'percent':
      return formatPercent(value);
    case 'usd':
      return formatUsdMicros(value);
    default:
      return Math.round(value).toLocaleString('en-US');
  }
}

/** What a rule looks at: the whole account, or one channel, demand tag or campaign (`id`), or each of them (`id: null`). */
export const ALERT_SCOPE_KINDS = ['account', 'channel', 'tag', 'campaign'] as const;
export type AlertScopeKind = (typeof ALERT_SCOPE_KINDS)[number];

const AlertScope = z
  .object({
    kind: z.enum(ALERT_SCOPE_KINDS),
    /** The one entity watched; null watches each of the tenant's entities of the kind on its own. */
    id: z.number().int().positive('must be an id').nullable().default(null),
  })
  .superRefine((s, ctx) => {
    if (s.kind === 'account' && s.id !== null)
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'the whole account takes no id' });
  });

/**
 * When a rule fires: the window's value below or above `value`; a drop of `percent` % against the
 * previous window (`previous`: the hour or day before) or the same window a week earlier (`lastWeek`);
 * or (metric `pace` only) a campaign behind pace or with its budget spent (`offPace`).
 */
export const AlertCondition = z.discriminatedUnion('op', [
  z.object({ op: z.literal('below'), value: z.number().min(0, 'must be 0 or more') }),
  z.object({ op: z.literal('above'), value: z.number().min(0, 'must be 0 or more') }),
  z.object({
    op: z.literal('drop'),
    percent: z.number().gt(0, 'must be more than 0').max(100, 'must be at most 100'),
    against: z.enum(['previous', 'lastWeek']),
  }),
  z.object({ op: z.literal('offPace') }),
]);
export type AlertCondition = z.output<typeof AlertCondition>;

/** The measured window: the last whole UTC hour before the check, or the 24 whole hours before it. */
const ALERT_WINDOWS = ['hour', 'day'] as const;
export type AlertWindow = (typeof ALERT_WINDOWS)[number];

/** The built-in rules every tenant has (on by default, editable, can be turned off; never deleted). */
const ALERT_BUILTINS = ['campaignPace', 'tagTimeouts', 'channelFillDrop'] as const;
export type AlertBuiltin = (typeof ALERT_BUILTINS)[number];

export const ALERT_CHECK_MINUTES_MIN = 5;
export const ALERT_CHECK_MINUTES_MAX = 1440;

const emailAddress = z.string().trim().max(255).pipe(z.email('must be an e-mail address'));

export const AlertNotify = z.object({
  /** Addresses e-mailed when an episode opens and when it clears. */
  email: z.array(emailAddress).max(10, 'at most 10 addresses').default([]),
  /** Incoming-webhook URLs (Slack, Mattermost, Teams...) posted a JSON body `{ text, ... }` at the same moments. */
  webhooks: z.array(httpUrl).max(5, 'at most 5 webhooks').default([]),
});
export type AlertNotify = z.output<typeof AlertNotify>;

/** A rule as the console sends it (POST, and PUT of a whole rule). */
export const AlertRuleInput = z
  .object({
    name: requiredText(120),
    enabled: z.boolean().default(true),
    metric: z.enum(ALERT_METRICS),
    scope: AlertScope,
    condition: AlertCondition,
    window: z.enum(ALERT_WINDOWS).default('hour'),
    /** Minutes between checks. */
    everyMinutes: z
      .number()
      .int('must be whole minutes')
      .min(ALERT_CHECK_MINUTES_MIN, `must be at least ${ALERT_CHECK_MINUTES_MIN} minutes`)
      .max(ALERT_CHECK_MINUTES_MAX, `must be at most ${ALERT_CHECK_MINUTES_MAX} minutes`)
      .default(15),
    /**
     * A share (fill, timeouts, errors, eCPM) is judged only over at least this many of its
     * denominator in the window (opportunities, demand calls, requests, impressions): a handful of
     * requests says nothing. Counts are always judged.
     */
    minVolume: z.number().int('must be a whole number').min(0, 'must be 0 or more').default(0),
    notify: AlertNotify.default({ email: [], webhooks: [] }),
  })
  .superRefine((r, ctx) => {
    const pace = r.metric === 'pace';
    if (pace !== (r.condition.op === 'offPace'))
      ctx.addIssue({
        code: 'custom',
        path: ['condition', 'op'],
        message: pace ? "pacing takes the condition 'offPace'" : "'offPace' is for the pacing metric",
      });
    if (pace && r.scope.kind !== 'campaign')
      ctx.addIssue({ code: 'custom', path: ['scope', 'kind'], message: 'pacing is watched per campaign' });
  });
export type AlertRuleInput = z.output<typeof AlertRuleInput>;
export type AlertRuleInputIn = z.input<typeof AlertRuleInput>;

export const AlertRule = z.object({
  id: z.number().int(),
  builtin: z.enum(ALERT_BUILTINS).nullable(),
  name: z.string(),
  enabled: z.boolean(),
  metric: z.enum(ALERT_METRICS),
  scope: z.object({ kind: z.enum(ALERT_SCOPE_KINDS), id: z.number().int().nullable() }),
  condition: AlertCondition,
  window: z.enum(ALERT_WINDOWS),
  everyMinutes: z.number().int(),
  minVolume: z.number().int(),
  notify: z.object({ email: z.array(z.string()), webhooks: z.array(z.string()) }),
  /** When it is checked next (ISO). */
  nextCheckAt: z.string(),
  /** When it was last checked (ISO), null before its first check. */
  lastCheckAt: z.string().nullable(),
  /** Episodes open now. */
  firing: z.number().int(),
});
export type AlertRule = z.output<typeof AlertRule>;
export const AlertRuleList = z.array(AlertRule);

/**
 * One episode: from the check that found the condition true (fired) to the first check that found it
 * false (cleared), with the numbers that fired it. Units as the metric's (ALERT_METRIC_FORMAT).
 */
export const AlertEpisode = z.object({
  id: z.number().int(),
  ruleId: z.number().int(),
  ruleName: z.string(),
  metric: z.enum(ALERT_METRICS),
  subjectKind: z.enum(ALERT_SCOPE_KINDS),
  /** The channel, tag or campaign it is about; 0 for the whole account. */
  subjectId: z.number().int(),
  subjectName: z.string(),
  firedAt: z.string(),
  clearedAt: z.string().nullable(),
  /** The window's value when it fired. */
  value: z.number(),
  /** The line it crossed (a drop's: the comparison less the percent). */
  threshold: z.number(),
  /** What it was compared with: the previous or last week's window (a drop), the day's budget (pacing); null otherwise. */
  comparison: z.number().nullable(),
  /** The value at the check that cleared it. */
  clearValue: z.number().nullable(),
  /** The numbers in words, as notifications say them. */
  detail: z.string(),
});
export type AlertEpisode = z.output<typeof AlertEpisode>;
export const AlertEpisodeList = z.array(AlertEpisode);

export const AlertEpisodesQuery = z.object({
  ruleId: z.coerce.number().int().positive('must be a rule id').optional(),
  /** Only the episodes open now. */
  open: z.enum(['0', '1']).optional(),
  /** The newest this many (the bell asks for 20). */
  limit: z.coerce.number().int().min(1).max(500, 'must be at most 500').default(100),
});

/** The bell reads alerts this often (a rule is checked every 5 minutes at the most). */
export const ALERTS_POLL_MS = 60_000;
