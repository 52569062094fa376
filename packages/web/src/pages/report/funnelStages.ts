import { type MetricId, type ReportRequestInput, type ReportRow } from '@adplane/shared';

/** What a fill funnel is about: a channel or a demand tag. */
export type FunnelDimension = 'channel' | 'tag';
export interface FunnelSubject {
  dimension: FunnelDimension;
  id: number;
  name: string;
}

interface FunnelStage {
  metric: MetricId;
  label: string;
}

export interface FunnelPlan {
  /** The stages, in order, as catalogue metrics. */
  stages: FunnelStage[];
  /** The first stage: what the no-fill reasons are counted in. */
  requests: MetricId;
  /** The second stage: what the fill in the summary is over. */
  eligible: MetricId;
}

const FROM_THE_CALL: FunnelStage[] = [
  { metric: 'demandCalls', label: 'Called' },
  { metric: 'responses', label: 'Answered' },
  { metric: 'bids', label: 'Bid' },
  { metric: 'wins', label: 'Won' },
  { metric: 'imps', label: 'Impressions' },
];

/**
 * The funnel of each subject, in one place (docs/reports.md, "Fill funnel"). The edge counts a
 * request once, on its request row (`reqs`, `opps`, the request's no-fill reason); and each demand
 * tag it considered on the tag's own row (`source_reqs`, `source_opps` when it was offered the
 * request, then its call, answer, bid and win, with the reason that tag did not fill). So a channel's
 * funnel starts from its requests, and a tag's from the times it was considered and offered.
 */
export const FUNNELS: Record<FunnelDimension, FunnelPlan> = {
  channel: {
    stages: [{ metric: 'reqs', label: 'Requests' }, { metric: 'opps', label: 'Eligible' }, ...FROM_THE_CALL],
    requests: 'reqs',
    eligible: 'opps',
  },
  tag: {
    stages: [
      { metric: 'source_reqs', label: 'Requests' },
      { metric: 'source_opps', label: 'Eligible' },
      ...FROM_THE_CALL,
    ],
    requests: 'source_reqs',
    eligible: 'source_opps',
  },
};

/** The two reports a funnel runs: the stages' totals, and its requests by no-fill reason. */
export function funnelReports(
  subject: Pick<FunnelSubject, 'dimension' | 'id'>,
  range: { startDate: string; endDate: string },
  timezone: number,
): { stages: ReportRequestInput; reasons: ReportRequestInput } {
  const plan = FUNNELS[subject.dimension];
  const base = { ...range, timezone, filters: { [subject.dimension]: [subject.id] } };
  return {
    stages: { ...base, metrics: plan.stages.map((s) => s.metric) },
    reasons: {
      ...base,
      dimensions: ['nofill_reason'],
      metrics: [plan.requests],
      sort: { by: plan.requests, order: 'desc' },
    },
  };
}

export interface FunnelReason {
  reason: string;
  count: number;
}

/** The no-fill reasons of the reasons report: every reason recorded ('' is filled), busiest first. */
export function funnelReasons(rows: readonly ReportRow[], dimension: FunnelDimension): FunnelReason[] {
  const metric = FUNNELS[dimension].requests;
  return rows
    .filter((r) => !r.total && r.nofill_reason !== '' && Number(r[metric] ?? 0) > 0)
    .map((r) => ({ reason: String(r.nofill_reason), count: Number(r[metric]) }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

/** Each stage's value from the stages report's totals row. */
export function funnelValues(totals: ReportRow | null | undefined, dimension: FunnelDimension): number[] {
  return FUNNELS[dimension].stages.map((s) => Number(totals?.[s.metric] ?? 0));
}
