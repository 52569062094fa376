import { type Limit, parseCampaignRow, type SkipSink, type StoredRow, UNLIMITED } from '@adplane/shared';
import { type FrequencyCapRule } from '../../delivery/types.js';
import { type CampaignFacts, campaignFacts } from './campaigns.js';
import { documentOf, idList, isMicros, optionalId, plainName } from './plainFields.js';

/**
 * The facts of a stored campaign (campaigns.ts CampaignFacts), read without the schema when its
 * document is of the plain shape the API writes, else through it. The schema (shared
 * kinds/campaigns.ts CampaignInput) stays the rule: `plainCampaign` answers only for a document it
 * can tell the schema takes, with the values the schema would give, and leaves every other one
 * (a field of another type, a date past the 28th, a budget over the total, a list with repeats) to
 * `parseCampaignRow`, which skips and reports a refused row. campaignRead.test.ts checks the two
 * agree on generated and mutated documents. A cold build of a million campaigns reads each one so,
 * instead of a schema run and its copies per row.
 */
export function readCampaign(row: StoredRow & { createdAt?: string }, sink?: SkipSink): CampaignFacts | null {
  const plain = plainCampaign(row);
  if (plain) return plain;
  const c = parseCampaignRow(row, sink);
  return c && campaignFacts(c, row.createdAt);
}

/** A day the schema's ISO date takes in every month and year (the 29th to the 31st are left to it). */
const SAFE_DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|1\d|2[0-8])$/;

/** A budget (absent: unlimited), undefined when the schema would not take it. */
function limit(v: unknown): Limit | undefined {
  if (v === undefined || v === UNLIMITED) return UNLIMITED;
  return isMicros(v) ? v : undefined;
}

/** A frequency cap (absent or null: none), undefined when the schema would not take it. */
function frequencyCap(v: unknown): FrequencyCapRule | null | undefined {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) return undefined;
  const { count, periodHours } = v as Record<string, unknown>;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1) return undefined;
  if (typeof periodHours !== 'number' || !Number.isSafeInteger(periodHours) || periodHours < 1 || periodHours > 720)
    return undefined;
  return { count, periodHours };
}

/** The facts the schema would give the row, or undefined when the schema must read it. */
export function plainCampaign(row: StoredRow & { createdAt?: string }): CampaignFacts | undefined {
  const d = documentOf(row.data);
  if (!d) return undefined;
  const name = plainName(row, d);
  if (name === undefined) return undefined;
  const { startDate } = d;
  if (typeof startDate !== 'string' || !SAFE_DAY.test(startDate)) return undefined;
  const endDate = d.endDate ?? null;
  if (endDate !== null && (typeof endDate !== 'string' || !SAFE_DAY.test(endDate) || endDate < startDate))
    return undefined;
  const totalBudget = limit(d.totalBudget);
  const dailyBudget = limit(d.dailyBudget);
  if (totalBudget === undefined || dailyBudget === undefined) return undefined;
  if (totalBudget !== UNLIMITED && dailyBudget !== UNLIMITED && dailyBudget > totalBudget) return undefined;
  const pacing = d.pacing === undefined ? 'even' : d.pacing;
  if (pacing !== 'even' && pacing !== 'asap') return undefined;
  const { bidCpm } = d;
  if (!isMicros(bidCpm) || bidCpm === 0) return undefined;
  const advertiserId = optionalId(d.advertiserId);
  const targetingId = optionalId(d.targetingId);
  const cap = frequencyCap(d.frequencyCap);
  const creativeIds = idList(d.creativeIds);
  const dealIds = idList(d.dealIds);
  const supplierIds = idList(d.supplierIds);
  const channelIds = idList(d.channelIds);
  // required by the schema (migration 0022 wrote 'all' on the campaigns stored before it): none is left to it
  const channelScope = d.channelScope;
  if (channelScope !== 'all' && channelScope !== 'include' && channelScope !== 'exclude') return undefined;
  // the schema's rules of the pair: an include names a channel, 'all' names none
  if (channelIds && (channelScope === 'include' ? !channelIds.length : channelScope === 'all' && channelIds.length))
    return undefined;
  if (
    advertiserId === undefined ||
    targetingId === undefined ||
    cap === undefined ||
    creativeIds === undefined ||
    dealIds === undefined ||
    supplierIds === undefined ||
    channelIds === undefined ||
    idList(d.adExchangeIds) === undefined
  )
    return undefined;
  return campaignFacts(
    {
      id: row.id,
      tenantId: row.tenantId,
      name,
      status: row.status === 0 ? 0 : 1,
      archived: row.archived,
      advertiserId,
      startDate,
      endDate: endDate as string | null,
      totalBudget,
      dailyBudget,
      bidCpm,
      targetingId,
      creativeIds,
      dealIds,
      supplierIds,
      pacing,
      frequencyCap: cap,
      channelScope,
      channelIds,
    },
    row.createdAt,
  );
}
