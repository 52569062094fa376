import { type EdgeRequest, type EdgeResponse } from '../../http/edgeHttp.js';

/**
 * CORS of the edge's entry points. Players, SDKs and Prebid.js call them from publishers' pages,
 * often with credentials (an IMA or video.js player's XHR with `withCredentials`, Prebid.js's
 * server-to-server adapter), so an answer echoes the page's Origin and allows credentials; a call
 * without an Origin (a server, a native app) gets `*`.
 */
export function corsHeaders(req: EdgeRequest): Record<string, string> {
  return corsOf(req.headers.origin);
}

/** The same, from the Origin header's value (absent: `*`). */
export function corsOf(origin: string | undefined): Record<string, string> {
  return origin
    ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' }
    : { 'access-control-allow-origin': '*' };
}

const PREFLIGHT_HEADERS = 'Origin, X-Requested-With, Content-Type, Accept';

/**
 * The answer to a CORS preflight (OPTIONS): 204 allowing `methods` and the headers the page asks
 * for (a player or `s2sConfig.customHeaders` may add any), for ten minutes.
 */
export function preflight(req: EdgeRequest, res: EdgeResponse, methods: string): void {
  const asked = req.headers['access-control-request-headers'];
  res.writeHead(204, {
    ...corsHeaders(req),
    'access-control-allow-methods': methods,
    'access-control-allow-headers': typeof asked === 'string' && asked.length < 1024 ? asked : PREFLIGHT_HEADERS,
    'access-control-max-age': '600',
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  });
  res.end();
}
