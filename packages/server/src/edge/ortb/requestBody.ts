import { type EdgeRequest } from '../../http/edgeHttp.js';
import { gunzipCapped, isGzip } from './compression.js';

/**
 * The body of an edge POST (an OpenRTB bid request, a Prebid Server auction) read from the raw
 * request once: chunks collected up to a limit, then parsed as JSON once. Too large, not JSON, or a
 * connection that drops all answer a reason, never an exception: the entry point turns it into a
 * 400 or a no-bid and counts it. A gzipped body (`Content-Encoding: gzip`, OpenRTB 2.6 section 2.4)
 * is inflated first, the limit holding on both its sizes.
 */
export const MAX_BODY_BYTES = 256 * 1024;

export type BodyResult =
  | { ok: true; value: unknown; bytes: number }
  | { ok: false; reason: 'body_too_large' | 'invalid_json' | 'invalid_gzip' | 'body_aborted' | 'unsupported_encoding' };

function parsed(buf: Buffer, empty: unknown): BodyResult {
  if (buf.length === 0 && empty !== undefined) return { ok: true, value: empty, bytes: 0 };
  try {
    // a UTF-8 byte order mark (some .NET and Windows senders write one) is not part of the JSON
    const bom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
    return { ok: true, value: JSON.parse(buf.toString('utf8', bom)), bytes: buf.length };
  } catch {
    return { ok: false, reason: 'invalid_json' };
  }
}

/**
 * The raw bytes of a body, up to `limit`: 'too_large' past it (a declared Content-Length past it is
 * refused before a byte is read; the rest of the body is read and dropped), 'aborted' when the
 * connection drops first. Never throws.
 */
export function readBodyBytes(req: EdgeRequest, limit: number): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: Buffer | 'too_large' | 'aborted') => {
      if (done) return;
      done = true;
      resolve(r);
    };
    if (Number(req.headers['content-length']) > limit) {
      req.resume();
      return finish('too_large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        finish('too_large');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on('error', () => finish('aborted'));
    req.on('aborted', () => finish('aborted'));
  });
}

/**
 * `gzipBody`: the caller says so another way than Content-Encoding (Prebid.js's `?gzip=1`). `empty`:
 * the value of a body of no bytes (absent: an empty body is not JSON).
 */
export function readJsonBody(
  req: EdgeRequest,
  limit = MAX_BODY_BYTES,
  gzipBody = false,
  empty?: unknown,
): Promise<BodyResult> {
  const encoding = req.headers['content-encoding'];
  const gzipped = gzipBody || isGzip(encoding);
  if (encoding && encoding !== 'identity' && !gzipped) {
    req.resume();
    return Promise.resolve({ ok: false, reason: 'unsupported_encoding' });
  }
  return readBodyBytes(req, limit).then((buf): BodyResult | Promise<BodyResult> => {
    if (buf === 'too_large') return { ok: false, reason: 'body_too_large' };
    if (buf === 'aborted') return { ok: false, reason: 'body_aborted' };
    if (!gzipped) return parsed(buf, empty);
    return gunzipCapped(buf, limit).then((inflated) =>
      inflated === 'too_large'
        ? { ok: false, reason: 'body_too_large' }
        : inflated === 'corrupt'
          ? { ok: false, reason: 'invalid_gzip' }
          : parsed(inflated, empty),
    );
  });
}
