import { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  adSystemDomain,
  type AdsTxtCheckResult,
  AdsTxtCheckRequest,
  adsTxtCheckPath,
  adsTxtFileOf,
  type AdsTxtFileName,
  adsTxtLinePath,
  type ChannelAdsTxt,
  RESOURCES,
} from '@adplane/shared';
import { requireAuth } from '../auth/guards.js';
import { entitled } from '../auth/entitlements.js';
import { badField, forbidden, parseInput } from '../http/errors.js';
import { accessTo } from '../resources/access.js';
import { type Actor, type EntityDto, getOne } from '../resources/entityService.js';
import { findLine, parseAdsTxt } from '../supplyChain/adsTxt.js';
import { AdsTxtTargetError, adsTxtHost, fetchAdsTxt } from '../supplyChain/adsTxtFetch.js';
import { type AppAdsTxtOutcome, fetchAppAdsTxt } from '../supplyChain/appAdsTxtFetch.js';
import { channelAdsTxt } from '../supplyChain/adsTxtLine.js';
import { buildSellersDirectory, sellersServed } from '../supplyChain/sellers.js';
import { readSellerAccounts } from '../supplyChain/sellersJson.js';

/**
 * The ads.txt line of a channel (GET /api/demand/channels/:id/adstxt) and the check of a publisher's
 * live ads.txt for it (POST .../adstxt/check, `{ domain, file? }`). The line is the same in both
 * files; which one is read follows `file`, else the channel's environment: a web channel's site has an
 * /ads.txt, an app's (in-app, CTV) sellers are in /app-ads.txt on its developer's website, so there
 * `domain` is that website (./supplyChain/appAdsTxtFetch.ts). The channel is read through the same
 * scoped repository as its edit form (another tenant's channel is a 404); the line is read by whoever
 * may read the channel, the check (a fetch the server makes) run by those who may edit it.
 */
const IdParams = z.object({
  id: z.coerce.number({ error: 'must be an id' }).int('must be an id').positive('must be an id'),
});
const channels = RESOURCES.channels;

function actorOf(request: FastifyRequest): Actor {
  const auth = requireAuth(request);
  return { user: auth.user, adminId: auth.adminId };
}

/** The line of a channel read (getOne) with the actor's scope. */
async function lineOf(app: FastifyInstance, channel: EntityDto): Promise<ChannelAdsTxt> {
  const tenantId = Number(channel.tenantId);
  // Every tenant's accounts: a tenant without a domain is listed in the operator's file, with everyone's sellers.
  const accounts = await readSellerAccounts(app.store.db, app.log);
  const tenant = accounts.find((u) => u.id === tenantId);
  if (!tenant) throw badField('channel', 'belongs to a demand account that is archived or gone');
  const subId = typeof channel.subpublisherId === 'number' ? channel.subpublisherId : null;
  const sub =
    subId === null
      ? null
      : (accounts.find((u) => u.id === subId && u.type === 'sub' && u.tenantId === tenantId) ?? null);
  // The file buyers read for the line: the one its domain (field #1) answers.
  const publicHost = app.settings.publicHost;
  const served = sellersServed(
    buildSellersDirectory(accounts),
    adSystemDomain(tenant.domain, publicHost),
    new URL(publicHost).hostname,
  );
  const line = channelAdsTxt({
    channel: { domain: channel.domain, subpublisherId: channel.subpublisherId },
    tenant,
    sub,
    publicHost,
    sellersFile: served.file,
    sellerSources: served.sources,
  });
  if (subId !== null && !sub)
    line.warnings.push("The channel's subpublisher is archived or gone: pick another one on the channel.");
  return line;
}

/** The result, with a word on why the root domain's app-ads.txt was read when the developer's subdomain has none. */
function checkResult(line: ChannelAdsTxt, fileName: AdsTxtFileName, outcome: AppAdsTxtOutcome): AdsTxtCheckResult {
  const result = checkOutcome(line, fileName, outcome);
  if (outcome.fellBackFrom)
    result.message += ` (${outcome.fellBackFrom} has no file, so its parent domain's was read.)`;
  return result;
}

function checkOutcome(line: ChannelAdsTxt, fileName: AdsTxtFileName, outcome: AppAdsTxtOutcome): AdsTxtCheckResult {
  const expected = line.line;
  if (!outcome.ok)
    return {
      status: 'unreachable',
      url: outcome.url,
      expected,
      matches: [],
      message: `Could not read ${outcome.url ?? 'the file'}: ${outcome.reason}.`,
    };
  const base = { url: outcome.url, expected };
  if (outcome.status < 200 || outcome.status >= 300)
    return {
      ...base,
      status: 'not_adstxt',
      matches: [],
      message: `${outcome.url} answered HTTP ${outcome.status}: the site has no ${fileName} there.`,
    };
  const type = outcome.contentType.split(';')[0].trim().toLowerCase();
  // app-ads.txt is an ads.txt in another place: same records, same parser.
  const file = parseAdsTxt(outcome.body);
  // The spec wants text/plain; an HTML page (a soft 404) is not an ads.txt, whatever it contains.
  if (type === 'text/html' || (file.records.length === 0 && file.variables.length === 0)) {
    return {
      ...base,
      status: 'not_adstxt',
      matches: [],
      message: `${outcome.url} is not an ${fileName} file (${type || 'no content type'}, no records).`,
    };
  }
  if (!line.sellerId)
    return {
      ...base,
      status: 'missing',
      matches: [],
      message: 'The channel has no seller id yet, so there is no line to look for.',
    };
  const match = findLine(file, { domain: line.domain, sellerId: line.sellerId, relationship: line.relationship });
  const matches = match.records.map((r) => ({ line: r.line, text: r.text }));
  switch (match.kind) {
    case 'found':
      return { ...base, status: 'found', matches, message: `The line is there (line ${matches[0].line}).` };
    case 'relationship_differs':
      return {
        ...base,
        status: 'relationship_differs',
        matches,
        message: `${line.domain} and seller id ${line.sellerId} are there (line ${matches[0].line}) but as ${match.records[0].relationship}: the line should say ${line.relationship}.`,
      };
    default:
      return {
        ...base,
        status: 'missing',
        matches,
        message: matches.length
          ? `Seller id ${line.sellerId} is there only in another letter case (line ${matches[0].line}): seller ids must match exactly.`
          : `The file has no line for ${line.domain} with seller id ${line.sellerId}: the publisher should add "${expected}".`,
      };
  }
}

export async function adsTxtRoutes(app: FastifyInstance): Promise<void> {
  const preHandler = entitled(app, 'channels');
  const id = (request: FastifyRequest) => parseInput(IdParams, request.params).id;

  app.get(adsTxtLinePath(':id'), { config: { guard: 'auth' }, preHandler }, async (request) =>
    lineOf(app, await getOne(app.store, channels, actorOf(request), id(request))),
  );

  app.post(
    adsTxtCheckPath(':id'),
    { config: { guard: 'auth' }, preHandler },
    async (request): Promise<AdsTxtCheckResult> => {
      const actor = actorOf(request);
      if (accessTo(channels, actor.user).level !== 'write')
        throw forbidden("Checking a publisher's ads.txt is for the users who manage the channel");
      const channelId = id(request);
      const body = parseInput(AdsTxtCheckRequest, request.body);
      const channel = await getOne(app.store, channels, actor, channelId);
      const line = await lineOf(app, channel);
      const file = body.file ?? adsTxtFileOf(channel.environment);
      let host: string;
      try {
        host = adsTxtHost(body.domain, app.settings.adsTxtAllowPrivate, file);
      } catch (error) {
        if (error instanceof AdsTxtTargetError) throw badField('domain', error.message);
        throw error;
      }
      const options = { allowPrivate: app.settings.adsTxtAllowPrivate };
      const outcome = file === 'app-ads.txt' ? await fetchAppAdsTxt(host, options) : await fetchAdsTxt(host, options);
      request.log.info({ channelId, host, file, url: outcome.url, ok: outcome.ok }, 'ads.txt checked');
      return checkResult(line, file, outcome);
    },
  );
}
