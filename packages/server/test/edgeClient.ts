import { Agent, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type FastifyInstance } from 'fastify';

/**
 * The edge's requests in tests go in through the door production uses: the app listens on
 * 127.0.0.1 (a port the system picks, once per app; it stops with `app.close()`) and each request goes
 * over a real keep-alive connection, read by the edge lane (http/edgeLane.ts), or by node:http for what
 * the lane hands over. `app.inject` never reaches the edge: Fastify routes only `debug=1` on /vast.
 * The answer has the shape of inject's.
 */
export interface EdgeAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body as UTF-8 text (`payload` too, as inject names it). */
  body: string;
  payload: string;
  rawPayload: Buffer;
  /** The body parsed as JSON (as inject's, typed by the caller). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- inject's json() is typed so: tests read fields off it
  json<T = any>(): T;
}

export interface EdgeCall {
  method?: 'GET' | 'HEAD' | 'POST' | 'OPTIONS' | 'PUT' | 'DELETE' | 'PATCH';
  /** The path and query. */
  url: string;
  /** Query parameters added to the URL's. */
  query?: Record<string, string>;
  headers?: Record<string, string | string[] | undefined>;
  /** The console's session cookie (`login`), for `debug=1` on /vast; null or absent: none. */
  cookie?: string | null;
  /** A string or Buffer as is; anything else as JSON (with Content-Type application/json unless set). */
  payload?: unknown;
  body?: unknown;
  /**
   * The client's address as the edge should read it: sent as X-Forwarded-For from the loopback peer,
   * so the app must trust loopback as a proxy (`trustProxy: 'loopback'`, or a list holding it); an
   * X-Forwarded-For of the call's own stays on the left, as a proxy in front would append.
   */
  remoteAddress?: string;
}

interface Listening {
  port: number;
  agent: Agent;
}

const listening = new WeakMap<FastifyInstance, Promise<Listening>>();

/** The app's listening port and this helper's keep-alive agent for it (listening first when it is not). */
function listeningOf(app: FastifyInstance): Promise<Listening> {
  let found = listening.get(app);
  if (!found) {
    found = (async () => {
      if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
      const agent = new Agent({ keepAlive: true });
      app.server.once('close', () => agent.destroy());
      return { port: (app.server.address() as AddressInfo).port, agent };
    })();
    listening.set(app, found);
  }
  return found;
}

/** The port the app listens on for edgeRequest (listening first when it is not): for a test's own raw sockets beside it. */
export async function edgePort(app: FastifyInstance): Promise<number> {
  return (await listeningOf(app)).port;
}

/** `call` sent to the app's edge over a real socket (see the top of this file). */
export async function edgeRequest(app: FastifyInstance, call: EdgeCall | string): Promise<EdgeAnswer> {
  const { port, agent } = await listeningOf(app);
  const c = typeof call === 'string' ? { url: call } : call;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(c.headers ?? {}))
    if (value !== undefined) headers[name.toLowerCase()] = value;
  if (c.cookie) headers.cookie = c.cookie;
  const sent = c.payload ?? c.body;
  let body: string | Buffer | undefined;
  if (typeof sent === 'string' || Buffer.isBuffer(sent)) body = sent;
  else if (sent !== undefined) {
    body = JSON.stringify(sent);
    headers['content-type'] ??= 'application/json';
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  if (c.remoteAddress !== undefined) {
    if (!trustsLoopback(app))
      throw new Error(
        "edgeRequest: remoteAddress needs an app that trusts loopback as a proxy (trustProxy: 'loopback')",
      );
    const forwarded = headers['x-forwarded-for'];
    headers['x-forwarded-for'] =
      forwarded === undefined ? c.remoteAddress : `${[forwarded].flat().join(', ')}, ${c.remoteAddress}`;
  }
  let path = c.url;
  if (c.query) path += (path.includes('?') ? '&' : '?') + new URLSearchParams(c.query).toString();
  const method = c.method ?? 'GET';
  const once = (): Promise<EdgeAnswer> =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => resolve(answer(res.statusCode ?? 0, res.headers, Buffer.concat(chunks))));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // a pooled connection the server closed as it was taken: sent again on a new one
        if (req.reusedSocket && error.code === 'ECONNRESET') once().then(resolve, reject);
        else reject(error);
      });
      req.end(body);
    });
  return once();
}

function answer(statusCode: number, headers: IncomingHttpHeaders, rawPayload: Buffer): EdgeAnswer {
  const text = rawPayload.toString('utf8');
  return { statusCode, headers, body: text, payload: text, rawPayload, json: () => JSON.parse(text) };
}

function trustsLoopback(app: FastifyInstance): boolean {
  const trust = app.settings.trustProxy;
  return (
    trust === true ||
    (typeof trust === 'string' && /(^|,)\s*(loopback|127\.0\.0\.1(\/\d+)?|127\.0\.0\.0\/8)\s*(,|$)/.test(trust))
  );
}
