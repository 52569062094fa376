import { type FastifyInstance } from 'fastify';
import { RESOURCES, type ResourceKind } from '@adplane/shared';
import { sampleBody } from '../resourceSamples.js';
import { as } from '../helpers.js';

export { as, buildTestApp, forEachStore, login } from '../helpers.js';

/** A new row of a kind, created through the API as `cookie`. */
export async function sampleFreshRow(
  app: FastifyInstance,
  cookie: string,
  kind: ResourceKind,
): Promise<{ id: number; name: string }> {
  const response = await as(app, cookie, {
    method: 'POST',
    url: RESOURCES[kind].api,
    payload: sampleBody(kind, Math.floor(Math.random() * 1e6)),
  });
  if (response.statusCode !== 201)
    throw new Error(`creating a ${kind} failed: ${response.statusCode} ${response.body}`);
  return response.json<{ id: number; name: string }>();
}
