import { type Clock } from '../../clock.js';
import { type EdgeRequest, type EdgeResponse } from '../../http/edgeHttp.js';
import { type HourlyCounters } from '../counters/hourlyCounters.js';
import { type Edge } from './edge.js';
import { countFailed } from './trackingEvents.js';
import { readJsonBody } from '../ortb/requestBody.js';
import { type TokenSigner } from '../tracking/trackingToken.js';
import { POSTBID_VERDICT } from '../tracking/replayGuard.js';
import { type ImpressionFacts, MAX_REF_LENGTH, readImpressionRef } from '../postbid/impressionRef.js';

/**
 * The post-bid vendors' postback (docs/traffic-quality.md, "Postback protocol"): a vendor reports
 * its verdict on an impression its pixel saw.
 *
 *   GET  /pb/<account key>?id=<impression_id>&ivt=0|1[&reason=<text>]
 *   POST /pb/<account key>  {"id": "...", "ivt": 1, "reason": "..."}  or an array of up to 1000 of them
 *
 * The key names the account and is signed with the edge's key (postbackKey: the console shows the
 * URL to the account), and every id is the signed `{{impression_id}}` the pixel was given, so a
 * vendor of one account can neither write another account's results nor make up impressions. A
 * flagged impression adds `postbid_ivt` 1 on the impression's own report row and hour, once per
 * impression (the impression replay guard, shared by the edge processes). A request is checked whole
 * before anything is counted: one bad item is a 400 naming it, and nothing of that request counts.
 */
const POSTBACK_PREFIX = '/pb/';
const MAX_POSTBACK_ITEMS = 1000;
const MAX_REASON = 200;
const KEY_DOMAIN = 'postback-key';

export interface PostbackDeps {
  /** What a verdict's time is read from (its hour's counters, the replay guard's window). */
  clock: Clock;
  signer: TokenSigner;
  /** The impression replay guard (tracking/replayGuard.ts): a verdict counts once per impression. */
  replay: { firstTime(id: string, nowMs: number): boolean | Promise<boolean> };
  counters: HourlyCounters;
  /** Where a count that fails after the replay guard's shared answer goes (the edge's error log); absent: console.error. */
  onError?: (error: unknown) => void;
}

/** The account's postback key: its id and a signature of it (stable for the edge's key, shown in the console). */
export function postbackKey(signer: TokenSigner, tenantId: number): string {
  return `${tenantId}-${signer.attach(KEY_DOMAIN, String(tenantId))}`;
}

/** The account a key names, or null for a key this edge did not issue. */
export function tenantOfPostbackKey(signer: TokenSigner, key: string): number | null {
  const m = /^([1-9]\d{0,9})-([A-Za-z0-9_-]{22})$/.exec(key);
  if (!m) return null;
  return signer.attached(KEY_DOMAIN, m[1]!, m[2]!) ? Number(m[1]) : null;
}

interface Verdict {
  facts: ImpressionFacts;
  ivt: boolean;
  reason: string;
}

export type PostbackCheck =
  | { ok: true; verdicts: Verdict[] }
  | { ok: false; status: 400 | 403; field: string; error: string };

const refuse = (status: 400 | 403, field: string, error: string): PostbackCheck => ({
  ok: false,
  status,
  field,
  error,
});

/** Checks every item of a postback for an account: each field named when wrong, nothing half-accepted. */
export function checkPostback(
  signer: TokenSigner,
  tenantId: number,
  items: readonly unknown[],
  nowS: number,
  prefix: (i: number) => string,
): PostbackCheck {
  if (!items.length) return refuse(400, 'body', 'is empty: send at least one verdict');
  if (items.length > MAX_POSTBACK_ITEMS) return refuse(400, 'body', `at most ${MAX_POSTBACK_ITEMS} verdicts a request`);
  const verdicts: Verdict[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const at = prefix(i);
    if (!item || typeof item !== 'object' || Array.isArray(item))
      return refuse(400, at.replace(/\.$/, '') || 'body', 'must be an object with id and ivt');
    const { id, ivt, reason } = item as Record<string, unknown>;
    if (typeof id !== 'string' || !id)
      return refuse(400, `${at}id`, 'is required: the {{impression_id}} the pixel was given');
    if (id.length > MAX_REF_LENGTH) return refuse(400, `${at}id`, `must be at most ${MAX_REF_LENGTH} characters`);
    const flag =
      ivt === 1 || ivt === '1' || ivt === true || ivt === 'true'
        ? true
        : ivt === 0 || ivt === '0' || ivt === false || ivt === 'false'
          ? false
          : null;
    if (flag === null)
      return refuse(
        400,
        `${at}ivt`,
        ivt === undefined || ivt === ''
          ? 'is required: 1 (invalid traffic) or 0 (valid)'
          : 'must be 1 (invalid traffic) or 0 (valid)',
      );
    if (reason !== undefined && typeof reason !== 'string') return refuse(400, `${at}reason`, 'must be text');
    if (typeof reason === 'string' && reason.length > MAX_REASON)
      return refuse(400, `${at}reason`, `must be at most ${MAX_REASON} characters`);
    const ref = readImpressionRef(signer, id, nowS);
    if (!ref.ok) {
      const why =
        ref.reason === 'expired'
          ? 'is older than 24 hours: verdicts are accepted for a day after the impression'
          : 'is not an impression id this ad server issued';
      return refuse(400, `${at}id`, why);
    }
    if (ref.facts.tenantId !== tenantId)
      return refuse(403, `${at}id`, "belongs to another account's impression: use that account's postback URL");
    verdicts.push({ facts: ref.facts, ivt: flag, reason: typeof reason === 'string' ? reason : '' });
  }
  return { ok: true, verdicts };
}

/** Counts the flagged verdicts, each impression once, on the impression's row and hour. */
function countVerdicts(deps: PostbackDeps, verdicts: readonly Verdict[], now: number): void {
  for (const v of verdicts) {
    if (!v.ivt) continue;
    const f = v.facts;
    const add = () =>
      deps.counters.add(
        {
          tenant_id: f.tenantId,
          channel_id: f.channelId,
          subpublisher_id: f.subpublisherId,
          tag_id: f.tagId,
          campaign_id: f.campaignId,
          creative_id: f.creativeId,
          advertiser_id: f.advertiserId,
          country: f.country,
          device: f.device,
          os: f.os,
          app_bundle: f.appBundle,
          domain: f.domain,
          integration: f.integration,
          supplier_id: f.supplierId,
          adexchange_id: f.adexchangeId,
          deal_id: f.dealId,
          partner: f.partner,
          marketplace_name: f.marketplace,
          arm: f.arm,
        },
        { postbid_ivt: 1 },
        f.at * 1000,
      );
    const first = deps.replay.firstTime(`${f.id}:${POSTBID_VERDICT}`, now);
    if (first instanceof Promise) void first.then((yes) => yes && add()).catch(deps.onError ?? countFailed);
    else if (first) add();
  }
}

function answer(res: EdgeResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'access-control-allow-origin': '*',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function handlePostback(
  deps: PostbackDeps,
  req: EdgeRequest,
  res: EdgeResponse,
  key: string,
  search: URLSearchParams,
  now = deps.clock.now(),
): Promise<void> {
  const tenantId = tenantOfPostbackKey(deps.signer, key);
  if (tenantId === null)
    return answer(res, 403, {
      message:
        'key: not a postback key of this ad server; copy the postback URL from the console (Reports > Postbid Report)',
      field: 'key',
    });
  let items: unknown[];
  let prefix: (i: number) => string;
  if (req.method === 'POST') {
    const body = await readJsonBody(req);
    if (!body.ok)
      return answer(res, 400, {
        message: `body: ${body.reason === 'body_too_large' ? 'too large (256 KB at most)' : body.reason === 'invalid_json' ? 'must be JSON' : 'could not be read'}`,
        field: 'body',
      });
    const v = body.value;
    const list = Array.isArray(v)
      ? v
      : v && typeof v === 'object' && Array.isArray((v as { results?: unknown }).results)
        ? (v as { results: unknown[] }).results
        : null;
    items = list ?? [v];
    prefix = list ? (Array.isArray(v) ? (i) => `${i}.` : (i) => `results.${i}.`) : () => '';
  } else {
    items = [
      {
        id: search.get('id') ?? undefined,
        ivt: search.get('ivt') ?? undefined,
        reason: search.get('reason') ?? undefined,
      },
    ];
    prefix = () => '';
  }
  const check = checkPostback(deps.signer, tenantId, items, Math.floor(now / 1000), prefix);
  if (!check.ok) return answer(res, check.status, { message: `${check.field}: ${check.error}`, field: check.field });
  countVerdicts(deps, check.verdicts, now);
  answer(res, 200, { ok: true, received: check.verdicts.length, flagged: check.verdicts.filter((v) => v.ivt).length });
}

/** The postback's entry points on the edge (GET and POST; OPTIONS for browsers' preflight). */
export function registerPostback(edge: Edge, deps: PostbackDeps): void {
  const handle = (req: EdgeRequest, res: EdgeResponse, rest: string, search: URLSearchParams) =>
    handlePostback(deps, req, res, rest, search);
  edge.addEntry({ method: 'GET', path: POSTBACK_PREFIX, handle });
  edge.addEntry({ method: 'POST', path: POSTBACK_PREFIX, handle });
  edge.addEntry({
    method: 'OPTIONS',
    path: POSTBACK_PREFIX,
    handle: (_req, res) => {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'content-type',
        'access-control-max-age': '600',
      });
      res.end();
    },
  });
}
