import { systemClock } from '../../clock.js';
import { createHmac } from 'node:crypto';
import { type BidRequest, type SupplyChainNode } from '@adplane/shared';
import { inboundSupplyChain } from '../ortb/supplyChain.js';

/**
 * The hop marker: every call the edge makes (to VAST demand and its wrappers, to OpenRTB endpoints
 * and Prebid Server, its notices) says how many of this deployment's decisions led to it, so that a
 * call coming back into the edge is known for one of its own and the decision chain stays bounded
 * whatever URL a tenant set.
 *
 * - The `X-Adplane-Hop` header: `<hops>.<signature>`, the count signed with a key of this deployment
 *   (derived from its tracking key, shared by every process and node of one store). Signed, so that
 *   another adplane deployment the edge calls as demand does not take our calls for its own, and no
 *   outsider can make a request look like one of ours.
 * - Our node in a bid request's supply chain carries `ext.adplane`, a signature of the node's request
 *   id: an exchange that forwards the request (headers are not forwarded) keeps the chain, and the
 *   count of our marked nodes in it is how many times the request went through this deployment.
 *
 * An entry point takes a request whose hops exceed the limit (0, or 1 when the operator allows demand
 * on the server's own origin: ADPLANE_ALLOW_SELF_DEMAND=1) as a no-fill, `demand_loop`, without an
 * auction; the answer says so to our own caller (`X-Adplane-Nofill: demand_loop`), whose no-fill
 * then has that reason too. Notices are marked beyond any limit: a notice never starts a decision.
 */
export const HOP_HEADER = 'x-adplane-hop';
/** The answer header of a no-fill a demand loop caused, for our own caller's trace. */
export const NOFILL_HEADER = 'x-adplane-nofill';
/** A request refused at an entry point for its hops, or a call whose answer said it was. */
export const DEMAND_LOOP = 'demand_loop';
/** A demand URL at one of the edge's own decision entry points: not called. */
export const OWN_ENTRY_POINT = 'demand_loop.own_entry_point';
/** Whether a no-fill reason is a demand loop's. */
export const isLoopReason = (reason: string | undefined): boolean =>
  reason === DEMAND_LOOP || reason === OWN_ENTRY_POINT;

/** The hop count notices carry: beyond any limit. */
export const NOTICE_HOPS = 9;
/** The most hops a header says (more reads as this many). */
const MAX_HOPS = NOTICE_HOPS;
const SIG_LENGTH = 22;

/**
 * What an inbound request of ours carries, shared by every decision of it (each impression of a bid
 * request): its hop count, and whether one of its decisions ended in a demand loop (`looped`), which
 * its no-fill answer then tells.
 */
export interface DemandHops {
  count: number;
  looped: boolean;
}

export class HopMarker {
  private readonly headers: string[] = [];
  private readonly key: Buffer;

  /** `secret`: the deployment's tracking key (edge/tracking/trackingKey.ts); a key of its own is derived from it. */
  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('adplane demand hop marker').digest();
    for (let hops = 0; hops <= MAX_HOPS; hops++) this.headers.push(`${hops}.${this.sign(`hop:${hops}`)}`);
  }

  private sign(value: string): string {
    return createHmac('sha256', this.key).update(value).digest('base64url').slice(0, SIG_LENGTH);
  }

  /** The header value of a call `hops` decisions deep (1: a call of a request nobody of ours made). */
  header(hops: number): string {
    return this.headers[Math.min(Math.max(hops, 1), MAX_HOPS)]!;
  }

  /** The hops a header value says when it is ours, else 0. */
  readHeader(value: string | string[] | undefined): number {
    const v = Array.isArray(value) ? value[0] : value;
    if (!v || v.length > 4 + SIG_LENGTH) return 0;
    const dot = v.indexOf('.');
    const hops = Number(v.slice(0, dot));
    return dot > 0 && Number.isInteger(hops) && hops >= 1 && hops <= MAX_HOPS && this.headers[hops] === v ? hops : 0;
  }

  /** Our supply chain node with its mark (its `rid` signed); a node without a request id is left as it is. */
  mark(node: SupplyChainNode): SupplyChainNode {
    return node.rid ? { ...node, ext: { ...node.ext, adplane: this.sign(`node:${node.rid}`) } } : node;
  }

  /** How many nodes of a bid request's supply chain are ours (marked, the mark matching the node's request id). */
  chainHops(request: BidRequest): number {
    const chain = inboundSupplyChain(request);
    let hops = 0;
    if (chain)
      for (const n of chain.nodes)
        if (n.rid && typeof n.ext?.adplane === 'string' && n.ext.adplane === this.sign(`node:${n.rid}`)) hops++;
    return hops;
  }

  /** The hops of an inbound request: its header's, or its supply chain's marked nodes when more; null for none (a request nobody of ours made). */
  inbound(headers: Record<string, string | string[] | undefined>, request?: BidRequest): DemandHops | null {
    const count = Math.max(this.readHeader(headers[HOP_HEADER]), request ? this.chainHops(request) : 0);
    return count ? { count, looped: false } : null;
  }
}

/** A refusal: at an entry point (`entry`: a request of ours beyond the limit) or before a call (`call`: a URL at our own entry point). */
export interface LoopRefusal {
  stage: 'entry' | 'call';
  /** The entry point or the call: vast, rtb, prebid (entry); vast, ortb, notice (call). */
  kind: string;
  tenantId?: number;
  channelUid?: string;
  url?: string;
  hops?: number;
}

/** The log the guard writes to (pino's shape). */
export interface WarnLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** One log line a minute at most per stage: a storm refused must not become a storm of log lines. */
export const LOOP_LOG_INTERVAL_MS = 60_000;

/**
 * The edge's demand loop guard: the hop marker, the limit, the test of URLs against the edge's own
 * entry points (http/ownEntryPoints.ts), and what it refused counted (`count`: the Prometheus
 * counter) and logged (rate-limited).
 */
export class DemandLoopGuard {
  /** Hops an inbound request may have: 0, or 1 when the operator allows demand on the server's own origin. */
  readonly maxHops: number;
  private readonly lastLogged = { entry: -Infinity, call: -Infinity };
  private readonly unlogged = { entry: 0, call: 0 };

  constructor(
    readonly marker: HopMarker,
    readonly allowSelf: boolean,
    private readonly ownEntry: (url: string) => string | null,
    private readonly count: (refusal: LoopRefusal) => void = () => undefined,
    private readonly log: WarnLog | null = null,
    private readonly now: () => number = systemClock.now,
  ) {
    this.maxHops = allowSelf ? 1 : 0;
  }

  /** The hops of an inbound request (null: none of ours). */
  inbound(headers: Record<string, string | string[] | undefined>, request?: BidRequest): DemandHops | null {
    return this.marker.inbound(headers, request);
  }

  /** Whether a request with these hops is refused at an entry point (counted and logged when it is). */
  refusesEntry(hops: DemandHops | undefined, what: Omit<LoopRefusal, 'stage' | 'hops'>): boolean {
    if (!hops || hops.count <= this.maxHops) return false;
    hops.looped = true;
    this.refused({ ...what, stage: 'entry', hops: hops.count });
    return true;
  }

  /**
   * Whether a call to `url` is refused: a URL at one of the edge's own decision entry points, for a
   * demand call unless the operator allows own-origin demand, for a notice always (counted and logged).
   */
  refusesCall(
    url: string,
    kind: 'vast' | 'ortb' | 'notice',
    who: { tenantId?: number; channelUid?: string } = {},
  ): boolean {
    if (kind !== 'notice' && this.allowSelf) return false;
    if (!this.ownEntry(url)) return false;
    this.refused({ tenantId: who.tenantId, channelUid: who.channelUid, stage: 'call', kind, url });
    return true;
  }

  private refused(r: LoopRefusal): void {
    this.count(r);
    if (!this.log) return;
    const now = this.now();
    if (now - this.lastLogged[r.stage] < LOOP_LOG_INTERVAL_MS) {
      this.unlogged[r.stage]++;
      return;
    }
    const more = this.unlogged[r.stage];
    this.lastLogged[r.stage] = now;
    this.unlogged[r.stage] = 0;
    const fields = { ...r, url: r.url?.slice(0, 512), refusedSinceLastLine: more };
    if (r.stage === 'entry')
      this.log.warn(
        fields,
        'demand loop refused: this request came from a demand call of this ad server (no fill); ADPLANE_ALLOW_SELF_DEMAND=1 allows one hop',
      );
    else
      this.log.warn(
        fields,
        "demand URL refused: it addresses this ad server's own entry point (no call made); ADPLANE_ALLOW_SELF_DEMAND=1 allows it",
      );
  }
}
