import { type Agent } from 'undici';
import { gunzipCapped, isGzip } from '../openrtb/compression.js';
import { isAddressRefused } from '../../http/outboundAddress.js';
import { TIMED_OUT } from './deadline.js';
import { AnswerTooLarge, demandCall, fireAndForget } from './demandCall.js';

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
export const NOTICE_TIMEOUT_MS = 2000;

export type PostResult =
  | { kind: 'answer'; status: number; body: string; ms: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'failed'; reason: string; ms: number };

class TooLargeError extends Error {}
class BadGzipError extends Error {}

export class HttpCaller {
  /** `agent`: keep-alive connections per origin, and where they may go (deadline.ts demandAgent). */
  constructor(private readonly agent: Agent) {}

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** POST a JSON body; the answer must be complete by `deadline` (epoch ms). */
  async postJson(url: string, body: string, deadline: number, headers: Record<string, string> = {}): Promise<PostResult> {
    const started = Date.now();
    try {
      const answer = await demandCall(
        this.agent,
        { url, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'gzip', ...headers }, body, maxBytes: MAX_ANSWER_BYTES },
        deadline - started,
      );
      if (answer === TIMED_OUT) return { kind: 'timeout', ms: Date.now() - started };
      const text = answer.status === 204 ? '' : await answerText(answer.body, isGzip(answer.headers['content-encoding']));
      return { kind: 'answer', status: answer.status, body: text, ms: Date.now() - started };
    } catch (error) {
      const ms = Date.now() - started;
      if (error instanceof TooLargeError || error instanceof AnswerTooLarge) return { kind: 'failed', reason: 'answer_too_large', ms };
      if (error instanceof BadGzipError) return { kind: 'failed', reason: 'invalid_gzip', ms };
      if ((error as { code?: string })?.code === 'ERR_INVALID_URL' || error instanceof TypeError) return { kind: 'failed', reason: 'bad_url', ms };
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
    fireAndForget(this.agent, url, timeoutMs);
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
