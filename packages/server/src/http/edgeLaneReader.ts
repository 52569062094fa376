import { type Head, HEAD_GOES_ON, HeadScan, NOT_LANE, readHead, type ReadLimits } from './edgeLaneHead.js';

/** What `LaneReaderHost.serve` did with a request: served it, left it to node:http, or closed the connection. */
export const SERVED = 0;
export const TO_NODE = 1;
export const STOPPED = 2;

/** What the reader asks of its connection (http/edgeLane.ts), or of a test that reads without a socket. */
export interface LaneReaderHost {
  /** A request read whole: SERVED, TO_NODE (node:http's: the reader hands over from its first byte) or STOPPED. */
  serve(head: Head, body: Buffer | null): number;
  /** From these bytes on (in this order, then every later read), node:http reads the connection. */
  toNode(rest: Buffer[]): void;
  /** A request has begun to come and is not whole: `body` once its head is read. */
  waiting(body: boolean): void;
  /** No request is read after the current ones (one asked to close, or the server is closing). */
  readonly closing: boolean;
  /** Bytes other than line ends after a request that closes its connection, in the read `buf`. */
  afterClose(buf: Buffer): void;
}

/**
 * The lane's reading of a connection's bytes, without the socket: given the reads in order, which
 * requests it takes itself (`serve`), and from which byte node:http reads instead (`toNode`). A read
 * is taken whole when it holds whole requests (the fast path: the head found with one search, read as
 * one string, the body a view of the read). A request cut by the end of a read is kept until the rest
 * comes: its head's bytes so far, followed byte by byte (`HeadScan`), so that each byte is looked at
 * once however small the reads; once the head is read, its body in a buffer of the stated length,
 * filled as it comes. Reading a request is linear in its size either way.
 */
export class LaneReader {
  /** The head of a request cut by the end of a read: its bytes so far (`headLength` of them), and its reading. */
  private head: Buffer | null = null;
  private headLength = 0;
  private scan: HeadScan | null = null;
  /** A request whose head is read and whose body has not all come: the head's bytes, the body so far. */
  private body: { head: Head; raw: Buffer; bytes: Buffer; have: number } | null = null;
  private handedOver = false;

  constructor(
    private readonly host: LaneReaderHost,
    private readonly limits: ReadLimits,
    /** Bytes searched, scanned or copied (for tests: linear in the bytes read). */
    private readonly count: { examined: number },
  ) {}

  /** The bytes of one read. After a hand-over the host keeps the reads (the reader reads no more). */
  read(chunk: Buffer): void {
    if (this.handedOver) throw new Error('LaneReader.read after the hand-over');
    let start = 0;
    if (this.body) {
      const waiting = this.body;
      const n = Math.min(waiting.bytes.length - waiting.have, chunk.length);
      chunk.copy(waiting.bytes, waiting.have, 0, n);
      waiting.have += n;
      this.count.examined += n;
      if (waiting.have < waiting.bytes.length) return;
      this.body = null;
      const taken = this.host.serve(waiting.head, waiting.bytes);
      if (taken === TO_NODE) return this.toNode([waiting.raw, waiting.bytes, chunk.subarray(n)]);
      if (taken === STOPPED) return;
      start = n;
    } else if (this.scan) {
      const end = this.scan.feed(chunk, 0, chunk.length);
      this.count.examined += end < 0 ? chunk.length : end;
      const head = this.head!.subarray(0, this.headLength);
      if (end === NOT_LANE) return this.toNode([head, chunk]);
      if (end === HEAD_GOES_ON) {
        if (this.headLength + chunk.length > this.limits.maxHeadBytes + PARTIAL_END) return this.toNode([head, chunk]);
        this.keepHead(chunk, 0, chunk.length);
        return;
      }
      this.keepHead(chunk, 0, end);
      const raw = this.head!.subarray(0, this.headLength);
      this.scan = null;
      this.head = null;
      this.headLength = 0;
      const read =
        raw.length - 4 > this.limits.maxHeadBytes
          ? null
          : readHead(raw.toString('latin1', 0, raw.length - 4), this.limits);
      if (!read) return this.toNode([raw, chunk.subarray(end)]);
      if (end + read.bodyBytes > chunk.length) return this.awaitBody(read, raw, chunk, end);
      const taken = this.host.serve(read, read.bodyBytes ? chunk.subarray(end, end + read.bodyBytes) : null);
      if (taken === TO_NODE) return this.toNode([raw, chunk.subarray(end)]);
      if (taken === STOPPED) return;
      start = end + read.bodyBytes;
    }
    this.readWhole(chunk, start);
  }

  /** The requests of `buf` from `start` on, as long as they are whole. */
  private readWhole(buf: Buffer, from: number): void {
    const maxHead = this.limits.maxHeadBytes;
    let start = from;
    while (start < buf.length && !this.host.closing) {
      const end = buf.indexOf(HEAD_END, start);
      this.count.examined += (end < 0 ? buf.length : end + 4) - start;
      if (end < 0 || end - start > maxHead) {
        if (buf.length - start > maxHead + PARTIAL_END) return this.toNode([buf.subarray(start)]);
        // the head goes on in the next reads: kept, and followed from here byte by byte
        const scan = new HeadScan();
        this.count.examined += buf.length - start;
        if (scan.feed(buf, start, buf.length) === NOT_LANE) return this.toNode([buf.subarray(start)]);
        this.scan = scan;
        this.keepHead(buf, start, buf.length);
        this.host.waiting(false);
        return;
      }
      const head = readHead(buf.toString('latin1', start, end), this.limits);
      if (!head) return this.toNode([buf.subarray(start)]);
      const bodyStart = end + 4;
      const bodyEnd = bodyStart + head.bodyBytes;
      if (bodyEnd > buf.length) return this.awaitBody(head, buf.subarray(start, bodyStart), buf, bodyStart);
      const taken = this.host.serve(head, head.bodyBytes ? buf.subarray(bodyStart, bodyEnd) : null);
      if (taken === TO_NODE) return this.toNode([buf.subarray(start)]);
      if (taken === STOPPED) return;
      start = bodyEnd;
    }
    // node:http's parser refuses bytes after a request that closes its connection (line ends
    // aside), as soon as it reads them
    if (this.host.closing && start < buf.length && !onlyLineEnds(buf, start)) this.host.afterClose(buf);
  }

  /** A head's bytes from `src`, in a buffer that grows by doubling (so a head's bytes are copied a bounded number of times). */
  private keepHead(src: Buffer, from: number, to: number): void {
    const n = to - from;
    const need = this.headLength + n;
    if (!this.head || this.head.length < need) {
      const grown = Buffer.allocUnsafe(Math.max(need, 2 * (this.head?.length ?? 0), 512));
      if (this.head) this.head.copy(grown, 0, 0, this.headLength);
      this.count.examined += this.headLength;
      this.head = grown;
    }
    src.copy(this.head, this.headLength, from, to);
    this.count.examined += n;
    this.headLength = need;
  }

  /** The body of `head` has begun at `buf[bodyStart]` and goes on in the next reads: it is kept in a buffer of its size. */
  private awaitBody(head: Head, raw: Buffer, buf: Buffer, bodyStart: number): void {
    const bytes = Buffer.allocUnsafe(head.bodyBytes);
    const have = buf.copy(bytes, 0, bodyStart);
    this.count.examined += have + raw.length;
    // (copies: the reads they are part of may be large, and are otherwise garbage)
    this.body = { head, raw: Buffer.from(raw), bytes, have };
    this.host.waiting(true);
  }

  private toNode(rest: Buffer[]): void {
    this.handedOver = true;
    this.scan = null;
    this.head = null;
    this.body = null;
    this.host.toNode(rest);
  }
}

const HEAD_END = Buffer.from('\r\n\r\n');
/** The bytes of a head's blank line that may have come before the rest: a head cut there is still within the limit. */
const PARTIAL_END = 3;

/** Whether `buf` from `from` on holds only CR and LF (which node:http's parser skips between requests). */
function onlyLineEnds(buf: Buffer, from: number): boolean {
  for (let i = from; i < buf.length; i++) if (buf[i] !== 13 && buf[i] !== 10) return false;
  return true;
}
