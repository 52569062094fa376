import { type Clock, systemClock } from '../../clock.js';
import { type Agent } from 'undici';
import { gunzipCapped, isGzip } from '../ortb/compression.js';
import { isAddressRefused } from '../../http/outboundAddress.js';
import { TIMED_OUT } from './deadline.js';
import { AnswerTooLarge, demandCall, fireAndForget } from './demandCall.js';
import {
  DEMAND_LOOP,
  type DemandLoopGuard,
  HOP_HEADER,
  NOFILL_HEADER,
  NOTICE_HOPS,
  OWN_ENTRY_POINT,
} from '../request/demandHops.js';

/**
 * The one HTTP caller of programmatic demand (OpenRTB endpoints, Prebid Server) and of the notices
 * we owe it (win, loss, billing). Keep-alive connections per origin (one undici Agent: OpenRTB 2.6
 * section 2.1 calls persistent connections the most effective performance measure), a deadline per
 * call covering headers and body (a late answer keeps its connection: deadline.ts), answers capped
 * in size. Answers may come gzipped (we ask for it: OpenRTB 2.6 section 2.4), the cap holding on
 * the inflated bytes too. It never throws: whatever goes wrong comes back as a result the demand source turns into
 * a counted no-fill.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Win, loss and billing notices: fire and forget, given up after this long. */
const NOTICE_TIMEOUT_MS = 2000;

export type PostResult =
  | { kind: 'answer'; status: number; body: string; ms: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'failed'; reason: string; ms: number };

class TooLargeError extends Error {}
class BadGzipError extends Error {}

/** Where a call sits in a decision chain: its hops (request/demandHops.ts), and whom it is made for (a refusal's log line names them). */
export interface CallChain {
  hops: number;
  tenantId?: number;
  channelUid?: string;
}

const FIRST_HOP: CallChain = { hops: 1 };

export class HttpCaller {
  private readonly noticeHeaders: Record<string, string>;

  /**
   * `agent`: keep-alive connections per origin, and where they may go (deadline.ts demandAgent).
   * `loops`: the demand loop guard: every call carries the hop marker (a notice one beyond any limit),
   * and a URL at the edge's own decision entry points is not called; absent: neither.
   */
  constructor(
    private readonly agent: Agent,
    private readonly loops: DemandLoopGuard | null = null,
    private readonly clock: Clock = systemClock,
  ) {
    this.noticeHeaders = loops ? { [HOP_HEADER]: loops.marker.header(NOTICE_HOPS) } : {};
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** POST a JSON body; the answer must be complete by `deadline` (epoch ms). */
  async postJson(
    url: string,
    body: string,
    deadline: number,
    headers: Record<string, string> = {},
    chain: CallChain = FIRST_HOP,
  ): Promise<PostResult> {
    const started = this.clock.now();
    // a URL at one of the edge's own decision entry points: not called (request/demandHops.ts)
    if (this.loops?.refusesCall(url, 'ortb', chain)) return { kind: 'failed', reason: OWN_ENTRY_POINT, ms: 0 };
    const hop = this.loops ? { [HOP_HEADER]: this.loops.marker.header(chain.hops) } : null;
    try {
      const answer = await demandCall(
        this.agent,
        {
          url,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'accept-encoding': 'gzip',
            ...headers,
            ...hop,
          },
          body,
          maxBytes: MAX_ANSWER_BYTES,
        },
        deadline - started,
      );
      if (answer === TIMED_OUT) return { kind: 'timeout', ms: this.clock.now() - started };
      // our own entry point refused the call as a demand loop
      if (this.loops && answer.headers[NOFILL_HEADER] === DEMAND_LOOP)
        return { kind: 'failed', reason: DEMAND_LOOP, ms: this.clock.now() - started };
      const text =
        answer.status === 204 ? '' : await answerText(answer.body, isGzip(answer.headers['content-encoding']));
      return { kind: 'answer', status: answer.status, body: text, ms: this.clock.now() - started };
    } catch (error) {
      const ms = this.clock.now() - started;
      if (error instanceof TooLargeError || error instanceof AnswerTooLarge)
        return { kind: 'failed', reason: 'answer_too_large', ms };
      if (error instanceof BadGzipError) return { kind: 'failed', reason: 'invalid_gzip', ms };
      if ((error as { code?: string })?.code === 'ERR_INVALID_URL' || error instanceof TypeError)
        return { kind: 'failed', reason: 'bad_url', ms };
      if (isAddressRefused(error)) return { kind: 'failed', reason: 'address_refused', ms };
      return { kind: 'failed', reason: 'connection_failed', ms };
    }
  }

  /**
   * A notice (nurl, lurl, burl): a GET nobody waits for, body discarded, given up after `timeoutMs`.
   * Only http(s) URLs are called.
   */
  fire(url: string, timeoutMs = NOTICE_TIMEOUT_MS): void {
    if (!/^https?:\/\//i.test(url)) return;
    // a notice never starts a decision: not sent to our own decision entry points, and marked beyond any hop limit
    if (this.loops?.refusesCall(url, 'notice')) return;
    fireAndForget(this.agent, url, timeoutMs, this.noticeHeaders);
  }
}

/** The answer's text, inflated when it came gzipped (the cap holding on the inflated bytes too). */
async function answerText(raw: Buffer, gzipped: boolean): Promise<string> {
  if (!gzipped || raw.length === 0) return raw.toString('utf8');
  const inflated = await gunzipCapped(raw, MAX_ANSWER_BYTES);
  if (inflated === 'too_large') throw new TooLargeError();
  if (inflated === 'corrupt') throw new BadGzipError();
  return inflated.toString('utf8');
}
