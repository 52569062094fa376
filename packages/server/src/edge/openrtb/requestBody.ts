import { type EdgeRequest } from '../edgeHttp.js';
import { gunzipCapped, isGzip } from './compression.js';

/**
 * The body of an edge POST (an OpenRTB bid request, a Prebid Server auction) read from the raw
 * request once: chunks collected up to a limit, then parsed as JSON once. Too large, not JSON, or a
 * connection that drops all answer a reason, never an exception: the entry point turns it into a
 * 400 or a no-bid and counts it. A gzipped body (`Content-Encoding: gzip`, OpenRTB 2.6 section 2.4)
 * is inflated first, the limit holding on both its sizes.
 */
export const MAX_BODY_BYTES = 256 * 1024;

export type BodyResult = { ok: true; value: unknown; bytes: number } | { ok: false; reason: 'body_too_large' | 'invalid_json' | 'invalid_gzip' | 'body_aborted' | 'unsupported_encoding' };

function parsed(buf: Buffer, empty: unknown): BodyResult {
  if (buf.length === 0 && empty !== undefined) return { ok: true, value: empty, bytes: 0 };
  try {
    return { ok: true, value: JSON.parse(buf.toString('utf8')), bytes: buf.length };
  } catch {
    return { ok: false, reason: 'invalid_json' };
  }
}

/**
 * `gzipBody`: the caller says so another way than Content-Encoding (Prebid.js's `?gzip=1`). `empty`:
 * the value of a body of no bytes (absent: an empty body is not JSON).
 */
export function readJsonBody(req: EdgeRequest, limit = MAX_BODY_BYTES, gzipBody = false, empty?: unknown): Promise<BodyResult> {
  return new Promise((resolve) => {
    const encoding = req.headers['content-encoding'];
    const gzipped = gzipBody || isGzip(encoding);
    if (encoding && encoding !== 'identity' && !gzipped) {
      req.resume();
      resolve({ ok: false, reason: 'unsupported_encoding' });
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      req.resume();
      resolve({ ok: false, reason: 'body_too_large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: BodyResult) => {
      if (done) return;
      done = true;
      resolve(r);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        finish({ ok: false, reason: 'body_too_large' });
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      if (!gzipped) return finish(parsed(buf, empty));
      void gunzipCapped(buf, limit).then((inflated) => {
        if (inflated === 'too_large') finish({ ok: false, reason: 'body_too_large' });
        else if (inflated === 'corrupt') finish({ ok: false, reason: 'invalid_gzip' });
        else finish(parsed(inflated, empty));
      });
    });
    req.on('error', () => finish({ ok: false, reason: 'body_aborted' }));
    req.on('aborted', () => finish({ ok: false, reason: 'body_aborted' }));
  });
}

/** A small body as text (a form's); 'too_large' past `limit` bytes, null when it does not arrive whole. */
export function readSmallText(req: EdgeRequest, limit: number): Promise<string | 'too_large' | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (text: string | 'too_large' | null) => {
      if (done) return;
      done = true;
      resolve(text);
    };
    if (Number(req.headers['content-length']) > limit) {
      req.resume();
      return finish('too_large');
    }
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        req.resume();
        return finish('too_large');
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish(Buffer.concat(chunks, size).toString('utf8')));
    req.on('error', () => finish(null));
    req.on('aborted', () => finish(null));
  });
}
