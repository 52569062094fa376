import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { SaxesParser } from 'saxes';
import { preview } from './edgeMutators.js';

/**
 * The edge fuzzer's client and its checks of answers (edgeFuzzer.test.ts): one request sent as
 * written over a connection of its own (so a dropped connection belongs to the request that caused
 * it), and what makes an answer malformed, as a sentence naming what is wrong (null: nothing).
 */
type Obj = Record<string, unknown>;

/** One request, exactly as sent. */
export interface Sent {
  method: 'GET' | 'POST' | 'HEAD' | 'OPTIONS';
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Sent in chunks (Transfer-Encoding: chunked: node:http reads it, not the edge lane). */
  chunked?: boolean;
  /** What the mutations changed, for the report. */
  what: string[];
}

export interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, inflated when it came gzipped. */
  body: Buffer;
  text: string;
}

export function send(port: number, sent: Sent): Promise<Got> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...sent.headers };
    if (sent.body && !sent.chunked) headers['content-length'] = sent.body.length;
    const req = request(
      { host: '127.0.0.1', port, method: sent.method, path: sent.path, headers, agent: false, timeout: 15_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          let body = Buffer.concat(chunks);
          if (res.headers['content-encoding'] === 'gzip' && body.length) body = gunzipSync(body);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in 15 s')));
    req.on('error', reject);
    if (sent.body && sent.chunked) {
      const half = Math.floor(sent.body.length / 2);
      req.write(sent.body.subarray(0, half));
      req.end(sent.body.subarray(half));
    } else req.end(sent.body);
  });
}

/** The JSON the server reads from a body (gzip inflated), undefined when it is not JSON. */
export function serverJson(sent: Sent): unknown {
  if (!sent.body) return undefined;
  try {
    const gz = /^gzip$/i.test(sent.headers['content-encoding'] ?? '') || /[?&]gzip=1(&|$)/.test(sent.path);
    return JSON.parse((gz ? gunzipSync(sent.body) : sent.body).toString('utf8'));
  } catch {
    return undefined;
  }
}

export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
export const contentType = (got: Got): string => String(got.headers['content-type'] ?? '');

/**
 * What is wrong with a bid response to `request` (null: nothing): `id` echoes the request's, each
 * seat's bids name an impression of the request and carry a finite price of at least 0.
 */
export function bidResponseProblem(request: unknown, response: unknown, mayBeEmpty: boolean): string | null {
  if (!isObj(response)) return 'the bid response is not a JSON object';
  if (isObj(request) && typeof request.id === 'string' && response.id !== request.id)
    return `id ${preview(response.id)} does not echo the request's id ${preview(request.id)}`;
  if (typeof response.id !== 'string') return 'id is not a string';
  if (!Array.isArray(response.seatbid)) return 'seatbid is not an array';
  if (!mayBeEmpty && !response.seatbid.length) return 'a 200 without a bid (no bid is a 204)';
  // (an id written as a whole number is its text: bidRequestReader.ts)
  const impIds = new Set(
    isObj(request) && Array.isArray(request.imp)
      ? request.imp.filter(isObj).map((i) => (Number.isSafeInteger(i.id) ? String(i.id) : i.id))
      : [],
  );
  for (const seat of response.seatbid) {
    if (!isObj(seat) || !Array.isArray(seat.bid) || !seat.bid.length) return `a seatbid without bids: ${preview(seat)}`;
    for (const bid of seat.bid) {
      if (!isObj(bid)) return 'a bid is not an object';
      if (typeof bid.id !== 'string' || !bid.id) return `bid.id ${preview(bid.id)} is not a non-empty string`;
      if (typeof bid.impid !== 'string' || (impIds.size && !impIds.has(bid.impid)))
        return `bid.impid ${preview(bid.impid)} names no imp of the request`;
      if (typeof bid.price !== 'number' || !Number.isFinite(bid.price) || bid.price < 0)
        return `bid.price ${preview(bid.price)} is not a finite number of at least 0`;
    }
  }
  return null;
}

/** The XML's problem (null: well formed), and its root element and VAST version. */
export function xmlProblem(xml: string): { problem: string | null; root: string; version: string } {
  const parser = new SaxesParser();
  let problem: string | null = null;
  let root = '';
  let version = '';
  parser.on('error', (e) => {
    problem ??= `the XML does not parse: ${e.message}`;
  });
  parser.on('opentag', (tag) => {
    if (root) return;
    root = tag.name;
    version = String(tag.attributes.version ?? '');
  });
  try {
    parser.write(xml).close();
  } catch (e) {
    problem ??= `the XML does not parse: ${(e as Error).message}`;
  }
  return { problem, root, version };
}

/** A 400's body names a field and a reason: a JSON {field, reason} or {field, message}, or a text naming one of `fields`. */
export function badRequestProblem(got: Got, fields: readonly string[]): string | null {
  if (contentType(got).includes('json')) {
    const body = JSON.parse(got.text) as Obj;
    if (typeof body.field !== 'string') return `the 400 names no field: ${got.text.slice(0, 200)}`;
    const why = body.reason ?? body.message;
    if (typeof why !== 'string' || !why.trim()) return `the 400 gives no reason: ${got.text.slice(0, 200)}`;
    return null;
  }
  const text = got.text.trim();
  if (text.length < 8) return `the 400 gives no reason: ${preview(got.text)}`;
  if (!fields.some((f) => text.includes(f))) return `the 400 names none of ${fields.join(', ')}: ${text.slice(0, 200)}`;
  return null;
}

/** The checks every answer gets: no 5xx, JSON that parses. */
export function commonProblem(got: Got): string | null {
  if (got.status >= 500) return `answered ${got.status}: ${got.text.slice(0, 300)}`;
  if (contentType(got).includes('json') && got.body.length) {
    try {
      JSON.parse(got.text);
    } catch {
      return `the JSON answer does not parse: ${got.text.slice(0, 200)}`;
    }
  }
  return null;
}
