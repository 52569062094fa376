import { expect, it } from 'vitest';
import { forEachDeliveryEngine, serveDecision, testClock, until } from '../../test/deliveryEngines.js';
import { type Exchange, type SharedCounters } from './sharedCounters.js';
import { type CampaignLimits } from './types.js';

/**
 * Routine lease renewals are spread over the ticks of a renewal period: accounts that traffic opened
 * together would otherwise come due together, once a period, in one batch as large as the book.
 */
const T0 = Date.parse('2026-03-10T15:00:00Z');
const PRICE = 10_000;
const CAMPAIGNS = 1_000;

/** The deployment's shared counters, with each exchange's budget keys recorded in order. */
function recorded(shared: SharedCounters): { shared: SharedCounters; batches: string[][] } {
  const batches: string[][] = [];
  return {
    batches,
    shared: {
      engine: shared.engine,
      sync: shared.sync,
      exchange(x: Exchange) {
        batches.push(x.budgets.map((b) => b.key));
        return shared.exchange(x);
      },
      readSpend: (keys) => shared.readSpend(keys),
      publishNotices: (notices) => shared.publishNotices(notices),
      onNotices: (listener) => shared.onNotices(listener),
      leave: () => shared.leave(),
      close: () => shared.close(),
    },
  };
}

forEachDeliveryEngine((t) => {
  it('renews a thousand leases taken at once in batches of at most a share each, every one within the period', async () => {
    const clock = testClock(T0);
    const deployment = t.deployment();
    const { shared, batches } = recorded(await deployment.openShared('p1'));
    const counters = await deployment.open({ clock: clock.now, shared: () => shared, tickMs: 10 });
    const campaigns: CampaignLimits[] = Array.from({ length: CAMPAIGNS }, (_, i) => ({
      id: i + 1,
      timezone: 0,
      dailyBudget: 1_000 * PRICE,
      totalBudget: 'unlimited',
      pacing: 'asap',
      frequencyCap: null,
    }));
    // every campaign asks for its lease, and one exchange answers them all; then each serves once
    for (const campaign of campaigns) {
      const id = `ask${campaign.id}`;
      if (counters.admit(id, { campaign, priceMicros: PRICE }, clock.now()) === null) counters.release(id);
    }
    await counters.flush();
    for (const campaign of campaigns)
      expect(await serveDecision(counters, { campaign, priceMicros: PRICE }, clock.now())).toBeNull();
    await counters.flush();

    // a renewal period later every lease is due for its routine renewal, none for anything urgent
    const from = batches.length;
    clock.advance(1_000);
    const renewed = new Set<string>();
    await until('every lease renewed', () => {
      for (const batch of batches.slice(from)) for (const key of batch) renewed.add(key);
      return renewed.size >= CAMPAIGNS;
    });
    const sizes = batches.slice(from).map((b) => b.length);
    // at least 256 a tick, else twice a tenth of the book (ticks of 10 ms in a period of a second)
    expect(Math.max(...sizes)).toBeLessThanOrEqual(256);
    expect(sizes.length).toBeGreaterThanOrEqual(Math.ceil(CAMPAIGNS / 256));
    await counters.close();
  });
});
