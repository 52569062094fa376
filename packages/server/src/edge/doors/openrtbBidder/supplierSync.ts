import { type FastifyInstance } from 'fastify';
import { fillSyncUrl, supplierSyncPath } from '@adplane/shared';
import { type EdgeRequest, type EdgeResponse } from '../../../http/edgeHttp.js';
import { type RequestContext } from '../../request/context.js';
import { type SnapSupplier } from '../../snapshot/types.js';
import { PIXEL } from '../trackingEvents.js';
import {
  ADPLANE_BIDDER,
  live,
  newUid,
  privacyMacros,
  privacyQuery,
  readSyncCookie,
  sectionIds,
  serializedUrl,
  setCookieHeader,
  type SyncCookie,
  type SyncPrivacy,
  syncRefusal,
  withUid,
} from '../prebidServer/userSync.js';
import { userIdsForbidden } from '../../ortb/privacy.js';

/**
 * User matching with a supplier (DSP mode; docs/programmatic.md, "User matching with suppliers"):
 * `GET /rtb/sync/<supplier uid>` is the pixel a supplier (or the tenant's own pages and ads) loads in
 * a browser. The browser gets adplane's id, in the same `uids` cookie as Prebid Server's user sync
 * (doors/prebidServer/userSync.ts: one id per browser for the whole of adplane), and is sent on to the
 * supplier's user-sync URL with that id in its macro. The supplier keeps it, and sends it back as
 * `user.buyeruid` on its bid requests to `/rtb/bid/<uid>`, where a frequency cap then knows the
 * browser (request/openrtbContext.ts userIdOf).
 *
 * The privacy signals of the call (`gdpr`, `gdpr_consent`, `us_privacy`, `gpp`, `gpp_sid` in the
 * query) are read as the user sync reads them: where the GDPR applies, for a sale opt-out, or for an
 * opted-out browser, no id is issued or handed on, and the answer is a plain pixel. So is it for a
 * supplier without a sync URL, or one that is not trading (paused, archived). A uid that is no
 * supplier's is a 404.
 *
 * The pixel also rides on what we win: an ad we serve for a supplier with a sync URL, on a request
 * that came without our id, carries it as one more impression pixel (syncOnWin), so that browsers are
 * matched as our ads are seen, without the supplier setting anything up.
 */
const SUPPLIER_SYNC_PREFIX = supplierSyncPath('');

/**
 * A query value, '' for a macro the supplier left unfilled (`${GDPR}`, `{GDPR}`, `[GDPR]`, `$GDPR`): the
 * console hands out the pixel with the macros in, and an exchange that does not know one sends it as is.
 */
function param(query: URLSearchParams, name: string): string {
  const v = query.get(name) ?? '';
  return /^(\$?\{[A-Za-z_]+\}|\[[A-Za-z_]+\]|\$[A-Za-z_]+)$/.test(v) ? '' : v;
}

type SupplierSyncOutcome =
  | { kind: 'redirect'; location: string; cookie: SyncCookie }
  | { kind: 'pixel'; reason: 'no_url' | 'bad_url' | 'paused' | 'optout' | 'gdpr' | 'us_privacy' }
  | { kind: 'invalid'; message: string };

/** What a sync call for `supplier` does: where the browser goes, with which cookie; or why it only gets a pixel. */
function supplierSync(
  supplier: Pick<SnapSupplier, 'serving' | 'userSyncUrl'>,
  query: URLSearchParams,
  cookie: SyncCookie,
  now: number,
  uid: () => string = newUid,
): SupplierSyncOutcome {
  const gdprText = param(query, 'gdpr');
  if (gdprText !== '' && gdprText !== '0' && gdprText !== '1')
    return { kind: 'invalid', message: 'the gdpr query param must be 0 or 1' };
  if (!supplier.userSyncUrl) return { kind: 'pixel', reason: 'no_url' };
  if (!supplier.serving) return { kind: 'pixel', reason: 'paused' };
  const privacy: SyncPrivacy = {
    gdpr: gdprText === '' ? null : Number(gdprText),
    gdprConsent: param(query, 'gdpr_consent'),
    usPrivacy: param(query, 'us_privacy'),
    gpp: param(query, 'gpp'),
    gppSid: sectionIds(param(query, 'gpp_sid')),
  };
  const refused = syncRefusal(privacy, cookie);
  if (refused) return { kind: 'pixel', reason: refused };
  // the browser's id stays the one it has (any bidder's cookie_sync or another supplier may have given it); its life starts again
  const own = cookie.uids[ADPLANE_BIDDER];
  const id = live(own, now) ? own!.uid : uid();
  // (serialized: a Location header holds ASCII alone)
  const location = serializedUrl(fillSyncUrl(supplier.userSyncUrl, { ...privacyMacros(privacy), UID: id }));
  if (!location) return { kind: 'pixel', reason: 'bad_url' };
  return { kind: 'redirect', location, cookie: withUid(cookie, ADPLANE_BIDDER, id, now) };
}

export function registerSupplierSync(app: FastifyInstance): void {
  const edge = app.edge;
  const deps = edge.deps;
  if (!deps) throw new Error('registerSupplierSync: the edge has no decision deps');
  const syncs = app.metrics.counter(
    'adplane_supplier_syncs_total',
    'User-sync pixels of suppliers (DSP mode), by result: redirect, or why only a pixel',
    ['result'],
  );

  const pixel = (res: EdgeResponse): void => {
    res.writeHead(200, { 'content-type': 'image/gif', 'content-length': PIXEL.length, 'cache-control': 'no-store' });
    res.end(PIXEL);
  };

  function handle(req: EdgeRequest, res: EdgeResponse, uid: string, search: URLSearchParams): void {
    const snapshot = deps!.snapshot();
    if (!snapshot) {
      syncs.inc({ result: 'warming_up' });
      return pixel(res);
    }
    const supplier = snapshot.suppliersByUid.get(uid);
    if (!supplier) {
      syncs.inc({ result: 'unknown' });
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('no supplier has this id\n');
      return;
    }
    const now = deps!.clock.now();
    const outcome = supplierSync(supplier, search, readSyncCookie(req.headers.cookie), now);
    if (outcome.kind === 'invalid') {
      syncs.inc({ result: 'invalid' });
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`${outcome.message}\n`);
      return;
    }
    syncs.inc({ result: outcome.kind === 'pixel' ? outcome.reason : 'redirect' });
    if (outcome.kind === 'pixel') return pixel(res);
    res.writeHead(302, {
      location: outcome.location,
      'cache-control': 'no-store',
      'content-length': 0,
      'set-cookie': setCookieHeader(outcome.cookie, now),
    });
    res.end();
  }

  edge.addEntry({
    method: 'GET',
    path: SUPPLIER_SYNC_PREFIX,
    handle: (req, res, rest, search) => handle(req, res, rest, search),
  });
}

/** The responses that already carry a sync pixel: one per response is enough. */
const synced = new WeakSet<object>();

/**
 * The sync pixel to add to an ad won on `supplier`'s request, or null: only for a supplier with a sync
 * URL, a site's request (an app or a TV keeps no cookie of ours) without our id for the viewer, where
 * ids may be used at all (the pixel's call checks again, the browser's opt-out too), and once per
 * response. The privacy flags travel in its query (not the consent strings: with the GDPR not
 * applying they decide nothing, and they would weigh on every ad).
 */
export function syncOnWin(supplier: SnapSupplier, ctx: RequestContext, origin: string): string | null {
  const request = ctx.ortb?.request;
  if (
    !supplier.userSyncUrl ||
    ctx.userId ||
    !request?.site ||
    request.app ||
    synced.has(request) ||
    userIdsForbidden(ctx.query)
  )
    return null;
  synced.add(request);
  const q = ctx.query;
  const search = privacyQuery({
    gdpr: q.gdpr,
    gdprConsent: '',
    usPrivacy: q.usPrivacy,
    gpp: '',
    gppSid: sectionIds(q.gppSid),
  }).toString();
  return `${origin}${SUPPLIER_SYNC_PREFIX}${encodeURIComponent(supplier.uid)}${search ? `?${search}` : ''}`;
}
