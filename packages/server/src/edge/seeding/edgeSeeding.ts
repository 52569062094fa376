import { type FastifyInstance } from 'fastify';
import { dealCapped, type DeliveryGate } from '../auction/deliveryGate.js';
import { type PostbidCap } from '../postbid/postbidCap.js';
import { type Snapshot, type SnapSupplyDeal } from '../snapshot/types.js';
import { seedDeliveryCounts } from './deliverySeed.js';
import { seedPostbidCap } from './postbidCapSeed.js';

const QUIET = { warn: () => undefined };

/**
 * Seeds the delivery counters from the stats store with the limits of the first snapshot: what they
 * held before this start (budgets spent today and in total, tags' daily caps). A function of its own:
 * a closure over that snapshot made in `onReady` would share its scope with the config bus's
 * listener, which lives as long as the process, and keep the first snapshot (every campaign, tag and
 * channel object of it) alive after every rebuild.
 */
export async function seedDelivery(snap: Snapshot, pacing: DeliveryGate, app: FastifyInstance): Promise<void> {
  const tz = (tenantId: number) => snap.tenants.get(tenantId)?.timezone ?? 0;
  await seedDeliveryCounts(
    pacing.delivery,
    app.stats,
    {
      campaigns: [...snap.campaigns.values()],
      tags: [...snap.tags.values()]
        .filter((t) => t.dailyImpCap !== 'unlimited' || t.dailyRequestCap !== 'unlimited')
        .map((t) => pacing.limitsOfTag(t, tz(t.tenantId))),
      deals: cappedDeals(snap),
    },
    app.log,
    app.clock.now(),
  );
}

/** The snapshot's supply deals with an impression cap, each once (a deal is compiled onto every channel it covers). */
function cappedDeals(snap: Snapshot): { deal: SnapSupplyDeal; tenantId: number; dealId: string }[] {
  const byId = new Map<number, SnapSupplyDeal>();
  for (const list of snap.supplyDeals?.values() ?? []) for (const d of list) if (dealCapped(d)) byId.set(d.id, d);
  return [...byId.values()].map((deal) => ({ deal, tenantId: deal.tenantId, dealId: deal.dealId }));
}

/**
 * Raises the post-bid monthly cap's count to the month so far in the stats store now, then every
 * `everyMs` (never lowering the shared count): edge processes that share no counters (nodes without
 * Redis) see each other's post-bid impressions through the stats store. A failed read is logged at
 * start and tried again quietly. Returns the stop of the repeat.
 */
export async function keepPostbidCapSeeded(
  cap: PostbidCap,
  app: FastifyInstance,
  everyMs: number,
): Promise<() => void> {
  await seedPostbidCap(cap, app.stats, app.log, app.clock.now());
  const timer = setInterval(() => void seedPostbidCap(cap, app.stats, QUIET, app.clock.now()), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
