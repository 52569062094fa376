import { rtbChannelPath, supplierBidPath } from '@adplane/shared';
import { type EdgeRequest, type EdgeResponse } from '../../../http/edgeHttp.js';
import { type FastifyInstance } from 'fastify';
import { type EdgeDeps } from '../../decision/adDecision.js';
import { type VastRequestDeps } from '../vastRequest.js';
import { readBidRequest } from '../../ortb/bidRequestReader.js';
import { sendMaybeGzipped } from '../../ortb/compression.js';
import { answerCurrency } from '../../ortb/currency.js';
import { MAX_BODY_BYTES, readJsonBody } from '../../ortb/requestBody.js';
import { MAX_TMAX_MS } from './bidChannels.js';
import { dealCampaignSource } from './dealCampaigns.js';
import { type ImpBid, type ImpDeps, type ImpJob, REQ, refusalDims, type Target } from './impBid.js';
import { bidsForImps } from './podBids.js';
import { DEMAND_LOOP, NOFILL_HEADER } from '../../request/demandHops.js';

/**
 * The inbound OpenRTB 2.6 entry points (2.5 accepted), adplane as the bidder:
 *
 * - `POST /rtb/bid/<supplier uid>`: a supplier's bid request (DSP mode). The tenant's campaigns
 *   (open auction and the deals they name) and its ad exchanges compete for each impression.
 * - `POST /rtb/<uid>`: a supplier's uid too, or an RTB channel's (SSP mode: the publisher's SSP
 *   posts bid requests for the channel, decided on the channel's own demand like its VAST tag).
 *
 * Answers (section 2.1 and implementation note 7.1): 200 with a BidResponse holding a bid per
 * impression we bid on; 204 with no body for no bid (nothing fits, paused, over QPS, a private
 * auction without a deal of ours); 400 for a request that is not an OpenRTB bid request, with a small
 * JSON body naming the field and the reason (the spec asks for no content; the reason costs a few
 * bytes and saves an integration engineer a day); 404 for a uid that is neither a supplier nor an
 * RTB channel (a wrong endpoint is the exchange's configuration to fix, and it sees it at once).
 * Never a 500: a failure inside answers 204 (edgePlugin's runEntry).
 *
 * Every impression is counted like a VAST decision (integration RTB, the supplier on its row);
 * a request refused whole counts its impressions with the reason on the target's row (one for a
 * request that could not be read). A uid we do not know has no tenant to count on: it counts in
 * the Prometheus counter `adplane_rtb_refused_total`.
 */
const RTB_PREFIX = rtbChannelPath('');
const SUPPLIER_PREFIX = supplierBidPath('');
const WIN_PATH = '/rtb/win';
const OPENRTB_VERSION = '2.6';
/** When a request states no tmax. */
const DEFAULT_TMAX_MS = 300;

/** Time kept back from tmax for the answer's trip back to the caller: a tenth, 5 to 50 ms. */
export function deadlineOf(arrival: number, tmax: number | undefined): number {
  const budget = typeof tmax === 'number' && tmax > 0 ? Math.min(tmax, MAX_TMAX_MS) : DEFAULT_TMAX_MS;
  return arrival + budget - Math.min(50, Math.max(5, Math.round(budget / 10)));
}

/** A body that could not be read: the counted reason, and the field (a header, or '' for the body) and reason the 400 names. */
const BODY_REASON: Record<string, { counted: string; field: string; reason: string }> = {
  invalid_json: { counted: 'json', field: '', reason: 'the body is not JSON' },
  body_too_large: { counted: 'too_large', field: '', reason: `the body is larger than ${MAX_BODY_BYTES} bytes` },
  invalid_gzip: { counted: 'gzip', field: 'content-encoding', reason: 'the body is not valid gzip' },
  unsupported_encoding: {
    counted: 'content_encoding',
    field: 'content-encoding',
    reason: 'send the bid request as JSON, plain or gzipped (Content-Encoding: gzip)',
  },
  body_aborted: { counted: 'aborted', field: '', reason: 'the body did not arrive whole' },
};

const JSON_HEADERS = {
  'content-type': 'application/json',
  'x-openrtb-version': OPENRTB_VERSION,
  'cache-control': 'no-store',
} as const;

function noBid(res: EdgeResponse): void {
  res.writeHead(204, { 'x-openrtb-version': OPENRTB_VERSION, 'cache-control': 'no-store' });
  res.end();
}

/** No bid, a demand loop's: our own caller's trace names the loop (request/demandHops.ts). */
function loopNoBid(res: EdgeResponse): void {
  res.writeHead(204, {
    'x-openrtb-version': OPENRTB_VERSION,
    'cache-control': 'no-store',
    [NOFILL_HEADER]: DEMAND_LOOP,
  });
  res.end();
}

/** A JSON answer, gzipped for a caller that accepts it (OpenRTB 2.6 section 2.4). */
function answer(req: EdgeRequest, res: EdgeResponse, status: number, body: string): void {
  sendMaybeGzipped(req, res, status, JSON_HEADERS, body);
}

/**
 * The uid of an entry point's path: the rest after its prefix, less one trailing slash (an endpoint
 * set up in an exchange's console as `/rtb/<uid>/` is the same endpoint, not an unknown uid).
 */
export const uidOfPath = (rest: string): string => (rest.endsWith('/') ? rest.slice(0, -1) : rest);

/** The counted reason of a malformed field: indexes dropped, so the reasons stay a bounded set. */
export const invalidReason = (field: string): string => `invalid_request.${field.replace(/\[\d+\]/g, '') || 'body'}`;

export interface InboundRtb {
  /** Answers one bid request for a uid (exported for tests and the bench). */
  handle(req: EdgeRequest, res: EdgeResponse, uid: string, supplierOnly: boolean): Promise<void>;
}

export function installInboundRtb(app: FastifyInstance): InboundRtb {
  const edge = app.edge;
  if (!edge.deps) throw new Error('installInboundRtb: the edge has no decision deps');
  const base: VastRequestDeps = edge.deps;
  const refused = app.metrics.counter(
    'adplane_rtb_refused_total',
    'Inbound OpenRTB bid requests refused before a tenant was known, by reason',
    ['reason'],
  );
  const wins = app.metrics.counter(
    'adplane_rtb_win_notices_total',
    'Win notices (nurl) of our bids on inbound OpenRTB requests, by outcome',
    ['outcome'],
  );
  const timer = edge.requestSeconds.labels('rtb');

  // The decision runs the edge's demand sources plus our campaigns' deal bids; the list is built
  // again only when the edge's changes (a source registered after this).
  let sourcesOf: EdgeDeps['sources'] | null = null;
  let decisionDeps: EdgeDeps = base;
  const edgeDeps = (): EdgeDeps => {
    if (sourcesOf !== base.sources) {
      sourcesOf = base.sources;
      decisionDeps = { ...base, sources: [...base.sources, dealCampaignSource] };
    }
    return decisionDeps;
  };

  const impDeps: ImpDeps = {
    get edge() {
      return edgeDeps();
    },
    geo: base.geo,
    origin: base.origin,
    rates: () => app.edge.currency.current,
    refuse(target: Target, reason: string, reqs: number, now: number, test: boolean) {
      if (!test) base.counters.add(refusalDims(target, reason), reqs === 1 ? REQ : { reqs }, now);
    },
  };

  async function handle(req: EdgeRequest, res: EdgeResponse, uid: string, supplierOnly: boolean): Promise<void> {
    const arrival = base.clock.now();
    const snapshot = base.snapshot();
    if (!snapshot) {
      req.resume();
      refused.inc({ reason: 'warming_up' });
      return noBid(res);
    }
    const supplier = snapshot.suppliersByUid.get(uid);
    const channel = supplier || supplierOnly ? undefined : snapshot.channelsByUid.get(uid);
    let target: Target;
    if (supplier) target = { kind: 'supplier', supplier, tenantId: supplier.tenantId };
    else if (channel && channel.integration === 'RTB')
      target = { kind: 'channel', channel, tenantId: channel.tenantId };
    else {
      req.resume();
      refused.inc({ reason: channel ? 'not_an_rtb_channel' : 'unknown_uid' });
      res.writeHead(404, {
        'content-type': 'text/plain; charset=utf-8',
        'x-openrtb-version': OPENRTB_VERSION,
        'cache-control': 'no-store',
      });
      res.end(
        channel ? 'this channel is not an RTB channel: use its VAST tag' : 'no supplier or RTB channel has this id',
      );
      return;
    }

    const body = await readJsonBody(req);
    if (!body.ok) {
      const why = BODY_REASON[body.reason] ?? { counted: 'body', field: '', reason: body.reason };
      impDeps.refuse(target, `invalid_request.${why.counted}`, 1, arrival, false);
      if (!res.destroyed)
        answer(req, res, 400, JSON.stringify({ error: 'invalid_request', field: why.field, reason: why.reason }));
      return;
    }
    const read = readBidRequest(body.value);
    if (!read.ok) {
      impDeps.refuse(target, invalidReason(read.field), 1, arrival, false);
      return answer(
        req,
        res,
        400,
        JSON.stringify({ error: 'invalid_request', field: read.field, reason: read.reason }),
      );
    }
    const request = read.request;
    const test = request.test === 1;
    const imps = request.imp.length;
    // a request one of the edge's own demand calls made (its hop header, or our marked nodes in its
    // supply chain when an exchange forwarded it): refused whole beyond the hops allowed
    const hops = base.loops?.inbound(req.headers, request);
    if (hops && base.loops!.refusesEntry(hops, { kind: 'RTB', tenantId: target.tenantId, channelUid: uid })) {
      impDeps.refuse(target, DEMAND_LOOP, imps, arrival, test);
      return loopNoBid(res);
    }
    if (target.kind === 'supplier') {
      if (!target.supplier.serving) {
        impDeps.refuse(target, 'supplier_paused', imps, arrival, test);
        return noBid(res);
      }
      if (!base.pacing.takeSupplierRequest(target.supplier.id, target.supplier.qpsLimit, arrival)) {
        impDeps.refuse(target, 'supplier_qps', imps, arrival, test);
        return noBid(res);
      }
    }
    // the answer's currency: USD when the request allows it, else the first it allows that has a rate
    const answerIn = answerCurrency(request.cur, app.edge.currency.current);
    if (!answerIn) {
      impDeps.refuse(target, 'currency', imps, arrival, test);
      return noBid(res);
    }

    const job: ImpJob = {
      target,
      snapshot,
      request,
      arrival,
      deadline: deadlineOf(arrival, request.tmax),
      test,
      ...answerIn,
      hops,
    };
    const bids = await bidsForImps(impDeps, job, request.imp);
    const seats = new Map<string, ImpBid[]>();
    for (const b of bids) {
      const seat = seats.get(b.seat);
      if (seat) seat.push(b);
      else seats.set(b.seat, [b]);
    }
    if (!seats.size) return hops?.looped ? loopNoBid(res) : noBid(res);
    answer(req, res, 200, responseJson(request.id, seats, answerIn.currency));
  }

  const timed = (req: EdgeRequest, res: EdgeResponse, uid: string, supplierOnly: boolean): Promise<void> => {
    const started = performance.now();
    return handle(req, res, uid, supplierOnly).finally(() => timer.observe((performance.now() - started) / 1000));
  };

  // (/rtb/bid/<uid> is the supplier's: the longest prefix wins)
  edge.addEntry({
    method: 'POST',
    path: SUPPLIER_PREFIX,
    handle: (req, res, rest) => timed(req, res, uidOfPath(rest), true),
  });
  edge.addEntry({
    method: 'POST',
    path: RTB_PREFIX,
    handle: (req, res, rest) => timed(req, res, uidOfPath(rest), false),
  });
  // The win notice (nurl): the exchange tells us our bid won, with the price it cleared at. The
  // impression itself is counted by the ad's own tracking (/ev); this counts the notices.
  edge.addEntry({
    method: 'GET',
    path: WIN_PATH,
    handle(_req, res, _rest, search) {
      const decision = base.signer.verify(search.get('t') ?? '', Math.floor(base.clock.now() / 1000));
      const price = Number(search.get('p'));
      wins.inc({ outcome: !decision ? 'refused' : Number.isFinite(price) && price >= 0 ? 'won' : 'won_no_price' });
      res.writeHead(decision ? 204 : 400, { 'cache-control': 'no-store', 'x-openrtb-version': OPENRTB_VERSION });
      res.end();
    },
  });
  return { handle };
}

/**
 * The bid response (id, seatbid by seat, bidid: the first bid's id, cur: USD or the currency the request asked) as JSON, each bid's
 * markup spliced in already escaped (ImpBid.admJson): JSON.stringify escaping a VAST document's
 * quotes cost more than the rest of the answer.
 */
export function responseJson(id: string, seats: ReadonlyMap<string, readonly ImpBid[]>, currency = 'USD'): string {
  let seatbid = '';
  let bidid = '';
  for (const [seat, bids] of seats) {
    bidid ||= bids[0]!.bid.id;
    seatbid += `${seatbid ? ',' : ''}{"seat":${JSON.stringify(seat)},"bid":[${bids.map(bidJson).join(',')}]}`;
  }
  return `{"id":${JSON.stringify(id)},"seatbid":[${seatbid}],"bidid":${JSON.stringify(bidid)},"cur":${JSON.stringify(currency)}}`;
}

/** A bid as JSON, its `adm` first (a bid always has other fields: its id, impid and price). */
const bidJson = (b: ImpBid): string => `{"adm":"${b.admJson}",${JSON.stringify(b.bid).slice(1)}`;
