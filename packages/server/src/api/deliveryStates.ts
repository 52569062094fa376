import { type FastifyInstance } from 'fastify';
import { type DeliveryStatesAnswer, DeliveryStatesQuery, type Limit, RESOURCES } from '@adplane/shared';
import { requireEntitled } from '../auth/entitlements.js';
import { requireAuth } from '../auth/guards.js';
import { pacingState } from '../delivery/pacing.js';
import { type DealLimits, type TagLimits } from '../delivery/types.js';
import { deliveryStates, type LiveCounts } from '../edge/snapshot/setAside.js';
import { SnapshotHolder } from '../edge/snapshot/snapshotHolder.js';
import { type Snapshot, type SnapSupplyDeal } from '../edge/snapshot/types.js';
import { dealCapped } from '../edge/auction/deliveryGate.js';
import { forbidden, HttpError, parseInput } from '../http/errors.js';
import { accessTo } from '../resources/access.js';
import { type EntityRow, getEntities } from '../store/entities.js';
import { readConfigVersion } from '../store/configVersion.js';

/**
 * GET /api/deliveryStates?kind=campaigns&ids=1,2,3: whether each row serves now and, when not, every
 * reason (packages/shared/src/delivery/deliveryState.ts), asked by a list page for the rows on screen
 * and by a drawer for its row. The reasons are the edge snapshot's own record of what its compile set
 * aside (edge/snapshot/setAside.ts), from a snapshot of the current config version, with delivery
 * control's counts of the moment (budgets spent, even pacing ahead, a tag's daily caps, a supply
 * deal's impression caps). A capped supply deal's state also carries those counts (`delivered`), for
 * the list's "delivered / cap". Scoped as the rows are: another tenant's row, or one the caller may
 * not see, is not found.
 */
export async function deliveryStateRoutes(app: FastifyInstance): Promise<void> {
  app.get('/api/deliveryStates', { config: { guard: 'auth' } }, async (request): Promise<DeliveryStatesAnswer> => {
    const { user } = requireAuth(request);
    const { kind, ids } = parseInput(DeliveryStatesQuery, request.query);
    const def = RESOURCES[kind];
    const access = accessTo(def, user);
    if (access.level === 'none') throw forbidden(`${def.plural} are not open to you`);
    await requireEntitled(app, user, kind);
    const rows = await getEntities(app.store.db, kind, access.scope, ids);
    const found = new Set(rows.map((r) => r.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing !== undefined) throw new HttpError(404, `ids: ${def.label} ${missing} not found`, 'ids');

    const snapshot = await currentSnapshot(app);
    const at = app.clock.now();
    const live = await liveCounts(app, snapshot, kind, rows, at);
    return { kind, at, states: deliveryStates(kind, ids, snapshot, live, at) };
  });
}

/** The api role's own snapshots (no edge runs there), built when asked and kept until the config moves. */
const ownHolders = new WeakMap<FastifyInstance, SnapshotHolder>();

/**
 * A snapshot of the config version the store holds now: the edge's own when this process serves
 * (rebuilt first when a write has not reached it yet, so a row just saved answers as saved), else one
 * this process compiles with the same compiler.
 */
async function currentSnapshot(app: FastifyInstance): Promise<Snapshot> {
  let holder = app.hasDecorator('edge') ? app.edge.snapshots : ownHolders.get(app);
  if (!holder) ownHolders.set(app, (holder = new SnapshotHolder(app.store.db, app.log, 0, app.clock)));
  const version = await readConfigVersion(app.store.db);
  if (holder.current?.version !== version) await holder.rebuild();
  if (!holder.current)
    throw new HttpError(503, 'The delivery state cannot be read now: the ad server snapshot failed to build');
  return holder.current;
}

/**
 * Delivery control's counts of the rows asked for: compiled campaigns' spend and pace, compiled tags'
 * calls and impressions today, and capped supply deals' impressions over their life and today (read
 * for every capped deal asked for, compiled or not: a paused deal keeps what it delivered).
 */
async function liveCounts(
  app: FastifyInstance,
  snapshot: Snapshot,
  kind: string,
  rows: readonly EntityRow[],
  now: number,
): Promise<LiveCounts> {
  const ids = rows.map((r) => r.id);
  const live = { campaigns: new Map(), tags: new Map(), deals: new Map() } satisfies LiveCounts;
  if (kind === 'campaigns') {
    const campaigns = ids.map((id) => snapshot.campaigns.get(id)).filter((c) => c !== undefined);
    const spend = await app.deliveryCounters.readCampaignSpend(campaigns, now);
    campaigns.forEach((c, i) => {
      const s = spend[i]!;
      // even pacing holds a campaign back while it is ahead of its line (delivery/pacing.ts)
      const pace = pacingState({
        campaignId: c.id,
        pacing: c.pacing,
        dailyBudget: c.dailyBudget,
        timezone: c.timezone,
        spentToday: s.spentToday,
        hourly: s.hourly,
        now,
        createdAtMinute: c.createdAtMinute,
      });
      live.campaigns.set(c.id, {
        spentToday: s.spentToday,
        totalSpent: s.totalSpent,
        pacedAhead: c.pacing === 'even' && pace.status === 'ahead',
      });
    });
  } else if (kind === 'tags') {
    const tags: TagLimits[] = [];
    for (const id of ids) {
      const t = snapshot.tags.get(id);
      if (!t) continue;
      const timezone = snapshot.tenants.get(t.tenantId)?.timezone ?? 0;
      tags.push({ id, timezone, qpsLimit: t.qpsLimit, dailyRequestCap: t.dailyRequestCap, dailyImpCap: t.dailyImpCap });
    }
    const counts = await app.deliveryCounters.readTagCounts(tags, now);
    tags.forEach((t, i) => live.tags.set(t.id, counts[i]!));
  } else if (kind === 'supplydeals') {
    const compiled = new Map<number, SnapSupplyDeal>();
    for (const list of snapshot.supplyDeals?.values() ?? []) for (const d of list) compiled.set(d.id, d);
    const limits: DealLimits[] = [];
    for (const row of rows) {
      const d = compiled.get(row.id) ?? storedDealLimits(row, snapshot);
      if (dealCapped(d)) limits.push({ id: d.id, timezone: d.timezone, impCap: d.impCap, dailyImpCap: d.dailyImpCap });
    }
    const counts = await app.deliveryCounters.readDealCounts(limits, now);
    limits.forEach((d, i) => live.deals.set(d.id, counts[i]!));
  }
  return live;
}

/**
 * A supply deal the snapshot did not compile (paused, archived, its account paused): its caps as
 * stored, its day in its tenant's time zone (UTC when the snapshot does not hold the tenant).
 */
function storedDealLimits(row: EntityRow, snapshot: Snapshot): DealLimits {
  const limit = (v: unknown): Limit => (typeof v === 'number' ? v : 'unlimited');
  return {
    id: row.id,
    timezone: (row.tenantId === null ? undefined : snapshot.tenants.get(row.tenantId)?.timezone) ?? 0,
    impCap: limit(row.data.impCap),
    dailyImpCap: limit(row.data.dailyImpCap),
  };
}
