import { type BidRequest, type SupplyChain, type SupplyChainNode } from '@adplane/shared';

/**
 * The `source.schain` of outbound bid requests (openrtb/supplychainobject.md): the chain the request
 * came with, read from an OpenRTB request (2.6 `source.schain`, 2.5 `source.ext.schain`) or from a
 * VAST tag's `schain` parameter (the string serialization), with our node appended once. A chain we
 * cannot read is not forwarded: the request then starts a chain of our node, marked incomplete when
 * someone sold it to us (we cannot vouch for the nodes before ours).
 */
const SCHAIN_VERSION = '1.0';
const MAX_NODES = 20;

const str = (v: unknown, max = 255): string | undefined => (typeof v === 'string' && v.length <= max ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

function nodeOf(v: unknown): SupplyChainNode | null {
  const n = obj(v);
  const asi = str(n?.asi);
  const sid = str(n?.sid, 256);
  if (!n || !asi || sid === undefined) return null;
  const node: SupplyChainNode = { asi, sid, hp: n.hp === 0 ? 0 : 1 };
  for (const key of ['rid', 'name', 'domain'] as const) {
    const value = str(n[key]);
    if (value) node[key] = value;
  }
  const ext = obj(n.ext);
  if (ext) node.ext = ext;
  return node;
}

/** A SupplyChain object as a caller sent it, or null when it is not one. */
function readSupplyChain(v: unknown): SupplyChain | null {
  const c = obj(v);
  if (!c || !Array.isArray(c.nodes) || c.nodes.length > MAX_NODES || (c.complete !== 0 && c.complete !== 1))
    return null;
  const nodes: SupplyChainNode[] = [];
  for (const raw of c.nodes) {
    const node = nodeOf(raw);
    if (!node) return null;
    nodes.push(node);
  }
  return { complete: c.complete, nodes, ver: str(c.ver, 16) || SCHAIN_VERSION };
}

/**
 * The chain of an inbound OpenRTB request: 2.6 `source.schain`, else 2.5 `source.ext.schain`, else
 * `ext.schain`, where the spec puts it for OpenRTB 2.4 and before (sellers still on 2.4 send it there).
 */
export function inboundSupplyChain(req: BidRequest): SupplyChain | null {
  const source = obj(req.source);
  return (
    readSupplyChain(source?.schain) ??
    readSupplyChain(obj(source?.ext)?.schain) ??
    readSupplyChain(obj(req.ext)?.schain)
  );
}

const decode = (s: string): string | null => {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
};

/** `1.0,1!exchange1.com,1234,1,,,` -> a SupplyChain, or null when the string is not one. */
export function parseSupplyChain(serialized: string): SupplyChain | null {
  const [head, ...rawNodes] = serialized.split('!');
  const [ver, complete] = (head ?? '').split(',');
  if (!ver || (complete !== '0' && complete !== '1') || !rawNodes.length || rawNodes.length > MAX_NODES) return null;
  const nodes: SupplyChainNode[] = [];
  for (const raw of rawNodes) {
    const fields = raw.split(',').map(decode);
    if (fields.some((f) => f === null)) return null;
    const [asi, sid, hp, rid, name, domain] = fields as string[];
    if (!asi || sid === undefined) return null;
    const node: SupplyChainNode = { asi, sid, hp: hp === '0' ? 0 : 1 };
    if (rid) node.rid = rid;
    if (name) node.name = name;
    if (domain) node.domain = domain;
    nodes.push(node);
  }
  return { complete: complete === '1' ? 1 : 0, nodes, ver };
}

/**
 * A value of the string form, URL-encoded (RFC 3986). encodeURIComponent alone leaves `!` as it is,
 * and `!` separates the nodes: a seller id `1234!abcd` would read as two nodes (the spec's own
 * example writes it `1234%21abcd`). The other characters it leaves (`'()*`) are reserved by RFC 3986 too.
 */
const schainField = (v: string | undefined): string =>
  v ? encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`) : '';

const serializeNode = (n: SupplyChainNode): string =>
  [
    schainField(n.asi),
    schainField(n.sid),
    String(n.hp),
    schainField(n.rid),
    schainField(n.name),
    schainField(n.domain),
  ].join(',');

/** The string serialization (for a VAST tag's `schain` parameter); `ext` is exchange-specific and left out. */
export function serializeSupplyChain(chain: SupplyChain): string {
  return [`${chain.ver},${chain.complete}`, ...chain.nodes.map(serializeNode)].join('!');
}

/**
 * The chain we send: the received one (nodes copied, `complete` kept) with our node last. With none
 * received, a chain of our node alone: complete when we are the first seller (a player's VAST
 * request), incomplete when a party before us sent no readable chain (an OpenRTB request).
 */
function extendSupplyChain(received: SupplyChain | null, ours: SupplyChainNode, firstSeller: boolean): SupplyChain {
  if (!received) return { complete: firstSeller ? 1 : 0, nodes: [ours], ver: SCHAIN_VERSION };
  return { complete: received.complete, nodes: [...received.nodes, ours], ver: received.ver };
}

/**
 * The chain a request of ours to demand carries, our node appended (`source.schain` of a bid request;
 * serialized, a VAST demand tag's `{{schain}}`, which the spec's "SupplyChain for Non-OpenRTB
 * Requests" wants "with the advertising system's node appended" too):
 * - an OpenRTB request's chain (incomplete when it brought none: sellers before us are unknown);
 * - a player's VAST request: its `schain` parameter when it sent one (a chain we cannot read makes ours incomplete);
 * - a player's request without one: our node alone, complete (we are the first seller).
 */
export function outboundSupplyChain(
  received: { ortb?: BidRequest | null; schain: string },
  ours: SupplyChainNode,
): SupplyChain {
  if (received.ortb) return extendSupplyChain(inboundSupplyChain(received.ortb), ours, false);
  if (!received.schain) return extendSupplyChain(null, ours, true);
  return extendSupplyChain(parseSupplyChain(received.schain), ours, false);
}
