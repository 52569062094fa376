import { type IncomingHttpHeaders } from 'node:http';
import { type Agent, type Dispatcher } from 'undici';
import { LATE_GRACE_MS, TIMED_OUT } from './deadline.js';

/**
 * One HTTP call to demand under a deadline, through undici's dispatcher itself (`Agent.dispatch`):
 * the answer's bytes are gathered by the handler's callbacks. `undici.request` would add, per call, a
 * readable stream for the body, its request handler, an abort signal and its listeners and the
 * promises of reading the stream: garbage that a five-tag request made five times, and that reached
 * the old generation whenever a young collection ran while calls were in flight (docs/performance.md,
 * "Where the tail comes from"). The deadline is deadline.ts's: the caller stops waiting at the deadline
 * (TIMED_OUT), the call runs on for a grace period so that a late answer leaves its keep-alive
 * connection to the next call, and a call still unanswered after the grace is aborted.
 *
 * It rejects as `undici.request` would: an unusable URL (TypeError), a refused address or a failed
 * connection (undici's and the connector's errors), and an answer over `maxBytes` (AnswerTooLarge,
 * the connection aborted).
 */
export interface DemandCallSpec {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** The answer's largest size in bytes. */
  maxBytes: number;
}

export interface DemandAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The answer's bytes (empty for a 204). */
  body: Buffer;
}

export class AnswerTooLarge extends Error {
  constructor() {
    super('demand answer larger than allowed');
  }
}

const GIVEN_UP = Object.freeze(new Error('demand answer given up after the grace period'));
const EMPTY = Buffer.alloc(0);

/** `spec`'s answer, or TIMED_OUT when `leftMs` passed first (see above for the grace). */
export function demandCall(
  agent: Agent,
  spec: DemandCallSpec,
  leftMs: number,
  graceMs = LATE_GRACE_MS,
): Promise<DemandAnswer | typeof TIMED_OUT> {
  if (leftMs <= 0) return Promise.resolve(TIMED_OUT);
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.reject(new TypeError(`not an http(s) URL: ${url.protocol}`));
  return new Promise((resolve, reject) => {
    const call = new Call(resolve, reject, spec.maxBytes, leftMs, graceMs);
    agent.dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: spec.method,
        headers: spec.headers,
        body: spec.body ?? null,
      },
      call,
    );
  });
}

/**
 * A notice nobody waits for (nurl, lurl, burl): GET, the answer's bytes dropped, the connection given
 * up after `timeoutMs`. Never rejects.
 */
export function fireAndForget(
  agent: Agent,
  url: string,
  timeoutMs: number,
  headers: Record<string, string> = {},
): void {
  demandCall(agent, { url, method: 'GET', headers, maxBytes: 64 * 1024 }, timeoutMs, 0).catch(() => undefined);
}

type Settle = (answer: DemandAnswer | typeof TIMED_OUT) => void;

/** The handler of one call: its answer gathered, its deadline and grace kept, with no closure per call. */
class Call implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private readonly parts: Buffer[] = [];
  private size = 0;
  /** The caller has its answer, its failure or TIMED_OUT. */
  private settled = false;
  /** The call is over: answered, failed or aborted. */
  private over = false;
  /** Aborted after the grace before undici started the call: abort it as it starts. */
  private givenUp = false;
  private deadline: NodeJS.Timeout | null;
  private cutoff: NodeJS.Timeout | null = null;

  constructor(
    private readonly resolve: Settle,
    private readonly reject: (error: Error) => void,
    private readonly maxBytes: number,
    leftMs: number,
    private readonly graceMs: number,
  ) {
    this.deadline = setTimeout(deadlinePassed, leftMs, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.givenUp) controller.abort(GIVEN_UP);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.status = statusCode;
    this.headers = headers;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.over) return;
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.fail(new AnswerTooLarge());
      controller.abort(new AnswerTooLarge());
      return;
    }
    this.parts.push(chunk);
  }

  onResponseEnd(): void {
    if (this.over) return;
    this.end();
    const body =
      this.parts.length === 0 ? EMPTY : this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    if (!this.settled) {
      this.settled = true;
      this.resolve({ status: this.status, headers: this.headers, body });
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  /** The deadline passed: the caller stops waiting; the call runs on for the grace. */
  timedOut(): void {
    this.deadline = null;
    if (this.settled) return;
    this.settled = true;
    this.resolve(TIMED_OUT);
    this.cutoff = setTimeout(gracePassed, this.graceMs, this);
  }

  /** The grace passed without an answer: the call is aborted (its connection closes). */
  giveUp(): void {
    this.cutoff = null;
    if (this.over) return;
    this.givenUp = true;
    this.controller?.abort(GIVEN_UP);
  }

  private fail(error: Error): void {
    if (this.over) return;
    this.end();
    if (!this.settled) {
      this.settled = true;
      this.reject(error);
    }
  }

  private end(): void {
    this.over = true;
    if (this.deadline) clearTimeout(this.deadline);
    if (this.cutoff) clearTimeout(this.cutoff);
    this.deadline = this.cutoff = null;
  }
}

function deadlinePassed(call: Call): void {
  call.timedOut();
}

function gracePassed(call: Call): void {
  call.giveUp();
}
