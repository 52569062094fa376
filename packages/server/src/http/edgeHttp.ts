import { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';

/**
 * What the edge's entry points read of a request and write to a response: the part of node's
 * `IncomingMessage` and `ServerResponse` they use. Node's objects are ones (Fastify, and the
 * connections node:http serves), and so are the edge lane's (http/edgeLane.ts), which answers the
 * edge's requests on a connection without node's per-request machinery.
 */
export interface EdgeRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly socket: { readonly remoteAddress?: string | undefined; readonly destroyed: boolean };
  /** The body, as a readable stream gives it: chunks, then 'end' (or 'error'/'aborted'). */
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'error' | 'aborted', listener: () => void): unknown;
  /** Reads the body and drops it. */
  resume(): unknown;
}

export interface EdgeResponse {
  statusCode: number;
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  writeHead(status: number, headers?: OutgoingHttpHeaders): unknown;
  end(body?: string | Buffer): unknown;
}
