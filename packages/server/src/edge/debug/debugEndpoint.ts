import { type DecisionTrace } from '@adplane/shared';
import { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { corsHeaders } from '../doors/cors.js';
import { decideVast, type VastRequestDeps } from '../doors/vastRequest.js';
import { debugCaller, traceCors } from './debugAccess.js';
import { withStoreNames } from './traceNames.js';

/**
 * `/vast/<uid>?debug=1`: the VAST and the decision trace as JSON, for a signed-in user of the
 * channel's tenant. Answered through Fastify (it needs the sign-in cookie), never by the raw server.
 */
export async function debugAnswer(
  app: FastifyInstance,
  request: FastifyRequest<{ Params: { uid: string } }>,
  reply: FastifyReply,
  deps: VastRequestDeps,
  search: URLSearchParams,
) {
  const caller = await debugCaller(app, request, reply);
  const channel = deps.snapshot()?.channelsByUid.get(request.params.uid);
  const allowed = caller && (caller.tenantId === null || (channel && caller.tenantId === channel.tenantId));
  const outcome = await decideVast(deps, request.raw, request.params.uid, search);
  const xml = outcome?.xml ?? '';
  const cors = traceCors(request, app.settings.publicHost);
  if (!allowed || !cors) {
    // The trace shows prices and demand: only for the tenant's users, asking from the console's origin
    // or from no page (debugAccess.ts). Others get the plain VAST, with the players' CORS.
    reply.headers({ 'cache-control': 'no-store', ...corsHeaders(request.raw) });
    const refused = allowed
      ? "refused: ask from the console's own origin, a typed URL or a script"
      : "refused: sign in as a user of this channel's tenant";
    return reply
      .code(outcome?.status ?? 200)
      .header('x-adplane-debug', refused)
      .type('application/xml; charset=utf-8')
      .send(xml);
  }
  reply.headers({ 'cache-control': 'no-store', ...cors });
  const trace: DecisionTrace | null = outcome?.trace ?? null;
  // the account's campaigns the ad server left out, and the idle tags' names (traceNames.ts)
  if (trace && channel) await withStoreNames(trace, app.store, deps.snapshot(), channel.tenantId, true);
  return reply
    .code(200)
    .type('application/json; charset=utf-8')
    .send({ status: outcome?.status ?? 200, vast: xml, trace });
}
