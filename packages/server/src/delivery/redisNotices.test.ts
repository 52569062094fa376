import { expect, it } from 'vitest';
import { forEachDeliveryEngine } from '../../test/deliveryEngines.js';
import { type Notices } from './sharedCounters.js';

/**
 * A process hears the commit notices the others publish from the moment it is connected: pub/sub
 * keeps nothing for a subscriber still on its way, and a notice lost drops no reservation, which
 * then holds its budget until the hold time (the last impression of a budget stranded for a minute:
 * seen in deliveryCounters.test.ts's random walks, where processes start and trade at once).
 */
forEachDeliveryEngine((t) => {
  it('is subscribed to the notices once connected', async () => {
    const deployment = t.deployment();
    const [a, b] = [await deployment.openShared('a'), await deployment.openShared('b')];
    const heard: Notices[] = [];
    b.onNotices((n) => heard.push(n));
    a.publishNotices({ commits: ['d1'], views: [] });
    await expect.poll(() => heard, { timeout: 2_000 }).toEqual([{ commits: ['d1'], views: [] }]);
  });
});
