import { Agent } from 'undici';
import { guardedConnector, type OutboundPolicy } from '../../http/outboundAddress.js';

/**
 * A demand call under a deadline that does not cut the connection. Aborting an HTTP/1.1 request
 * in flight closes its keep-alive connection: when a stall (a long garbage collection, a burst)
 * makes every call in flight miss its deadline at once, aborting them all would close as many
 * connections, and the next requests would pay a new connection each, which slows them past their
 * own deadlines: a spiral. Here the auction stops waiting at the deadline (the call is a timeout
 * for it), while the request runs on for a grace period and, when its answer comes, leaves its
 * connection to the next call. Only a call still unanswered after the grace is aborted. Nothing is
 * allocated per call for the timeout itself (no error object, no stack trace). The call itself:
 * demandCall.ts.
 */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * The keep-alive connections of a demand caller: a pool per origin (VAST tags, OpenRTB, Prebid
 * Server), connecting only where `policy` allows (http/outboundAddress.ts: no SSRF through a demand
 * URL or a URL a demand answer gave).
 */
export function demandAgent(policy: OutboundPolicy): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 120_000,
    connections: 256,
    pipelining: 1,
    connect: guardedConnector(policy),
  });
}

/** How long a call may run on after its deadline before it is aborted (and its connection closed). */
export const LATE_GRACE_MS = 1000;
