import { type EdgeRequest, type EdgeResponse } from '../../http/edgeHttp.js';
import { constants, gunzip, gzip } from 'node:zlib';

/**
 * gzip on the OpenRTB wire, as OpenRTB 2.6 section 2.4 ("Data Encoding") describes it:
 *
 * - a bid request may arrive gzipped, with `Content-Encoding: gzip` (the exchange and the bidder
 *   agree on it beforehand: we always accept it);
 * - a caller that sends `Accept-Encoding: gzip` gets its bid response gzipped, with
 *   `Content-Encoding: gzip` (browsers send it too: Prebid.js's calls to the auction endpoint);
 * - our own calls to demand ask for gzipped answers and read them.
 *
 * Every size limit holds on the inflated bytes: a small gzip bomb is refused like a large body.
 */

/** Whether a Content-Encoding names gzip (`x-gzip` is its old alias, RFC 9110 section 8.4.1.3). */
export function isGzip(encoding: string | string[] | undefined): boolean {
  if (typeof encoding !== 'string') return false;
  const e = encoding.trim().toLowerCase();
  return e === 'gzip' || e === 'x-gzip';
}

/** Whether an Accept-Encoding header accepts gzip: listed (or `*`) without `q=0`. */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (!header) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  let star = false;
  let gz: boolean | null = null;
  for (const part of value.toLowerCase().split(',')) {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    const allowed = !q || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') gz = allowed;
    else if (coding === '*') star = allowed;
  }
  return gz ?? star;
}

/** The inflated bytes of a gzip body, at most `limit` of them: 'too_large' past it, 'corrupt' when it is not gzip. */
export function gunzipCapped(data: Buffer, limit: number): Promise<Buffer | 'too_large' | 'corrupt'> {
  return new Promise((resolve) => {
    gunzip(data, { maxOutputLength: limit }, (error, out) => {
      if (!error) resolve(out);
      else resolve((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? 'too_large' : 'corrupt');
    });
  });
}

/** Below this, gzip saves too little to pay for itself (a no-bid's reason, a small error). */
const GZIP_MIN_BYTES = 1024;

/**
 * Writes a JSON (or other text) answer, gzipped when the caller accepts it and it is worth it.
 * Compression runs on libuv's pool at the fastest level: the XML of a VAST `adm` still shrinks to
 * about a quarter.
 */
export function sendMaybeGzipped(
  req: EdgeRequest,
  res: EdgeResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
): void {
  if (body.length < GZIP_MIN_BYTES || !acceptsGzip(req.headers['accept-encoding'])) {
    res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  gzip(body, { level: constants.Z_BEST_SPEED }, (error, packed) => {
    if (res.destroyed || res.headersSent) return;
    if (error) {
      res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    res.writeHead(status, {
      ...headers,
      'content-encoding': 'gzip',
      vary: headers.vary ? `${headers.vary}, Accept-Encoding` : 'Accept-Encoding',
      'content-length': packed.length,
    });
    res.end(packed);
  });
}
