import { type IncomingMessage } from 'node:http';

/**
 * The body of an edge POST (an OpenRTB bid request, a Prebid Server auction) read from the raw
 * request once: chunks collected up to a limit, then parsed as JSON once. Too large, not JSON, or a
 * connection that drops all answer a reason, never an exception: the entry point turns it into a
 * 400 or a no-bid and counts it.
 */
export const MAX_BODY_BYTES = 256 * 1024;

export type BodyResult = { ok: true; value: unknown; bytes: number } | { ok: false; reason: 'body_too_large' | 'invalid_json' | 'body_aborted' | 'unsupported_encoding' };

export function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<BodyResult> {
  return new Promise((resolve) => {
    const encoding = req.headers['content-encoding'];
    if (encoding && encoding !== 'identity') {
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
      try {
        finish({ ok: true, value: JSON.parse(buf.toString('utf8')), bytes: size });
      } catch {
        finish({ ok: false, reason: 'invalid_json' });
      }
    });
    req.on('error', () => finish({ ok: false, reason: 'body_aborted' }));
    req.on('aborted', () => finish({ ok: false, reason: 'body_aborted' }));
  });
}
