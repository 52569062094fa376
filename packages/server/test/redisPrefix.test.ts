import { randomBytes } from 'node:crypto';
import { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropRedisPrefix, testRedisClient } from './deliveryEngines.js';
import { edgeRequest } from './edgeClient.js';
import { buildTestApp, eventually, onSqliteStore } from './helpers.js';

/**
 * ADPLANE_REDIS_PREFIX (settings.ts): a deployment sharing a Redis with others keeps every key and
 * channel under its own prefix. The app is built from settings alone (no test prefix option): a config
 * change is published on the prefix's channel, and the spend of a decision lands under its keys.
 */
const url = process.env.REDIS_URL ?? '';

describe.skipIf(!url && process.env.CI !== 'true')('the Redis key prefix of the settings', () => {
  onSqliteStore((t) => {
    const prefix = `adplane-prefix-${randomBytes(4).toString('hex')}:`;
    let app: FastifyInstance;
    beforeAll(async () => {
      if (!url) throw new Error('CI=true but REDIS_URL is unset: start Redis and set REDIS_URL (see .ci/run).');
      app = await buildTestApp(t.store, { redisUrl: url, redisPrefix: prefix });
    });
    afterAll(async () => {
      await app?.close();
      if (url) await dropRedisPrefix(url, prefix);
    });

    it('publishes config changes on its own channel', async () => {
      const listener = await testRedisClient(url);
      const heard: string[] = [];
      try {
        listener.on('message', (channel: string, message: string) => heard.push(`${channel} ${message}`));
        await listener.subscribe(`${prefix}config`);
        app.configBus.publish(4242);
        await eventually(
          'the change on the prefix channel',
          async () => heard,
          (h) => h.some((m) => m.startsWith(`${prefix}config `) && m.endsWith(':4242')),
        );
      } finally {
        listener.disconnect();
      }
    });

    it("keeps a decision's spend under its own keys", async () => {
      await app.edge.snapshots.rebuild();
      // a channel of the demo workspace that serves
      const { uid } = [...app.edge.snapshots.current!.channelsByUid.values()].find((c) => c.serving)!;
      const answer = await edgeRequest(app, `/vast/${uid}?w=640&h=360&ip=8.8.8.8`);
      expect(answer.statusCode).toBe(200);
      await app.edge.flush();
      const redis = await testRedisClient(url);
      try {
        const [, keys] = await redis.scan('0', 'MATCH', `${prefix}*`, 'COUNT', 1000);
        expect(keys.length, 'keys under the prefix').toBeGreaterThan(0);
      } finally {
        redis.disconnect();
      }
    });
  });
});
