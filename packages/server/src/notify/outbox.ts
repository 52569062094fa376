import { randomBytes } from 'node:crypto';
import { type FastifyBaseLogger } from 'fastify';
import { type Kysely } from 'kysely';
import { Agent, request } from 'undici';
import { type Clock } from '../clock.js';
import { guardedConnector, type OutboundPolicy } from '../http/outboundAddress.js';
import { type Mailer } from '../mail/mailer.js';
import { periodicPass } from '../ops/periodicPass.js';
import {
  claimDelivery,
  deliveriesOf,
  dueDeliveryIds,
  insertDelivery,
  settleDelivery,
  type StoredDelivery,
} from '../store/deliveries.js';
import { type Database } from '../store/schema.js';

/** A file an e-mail carries. It is kept in the outbox row until the message is sent. */
interface OutboxAttachment {
  filename: string;
  contentType: string;
  content: Uint8Array | string;
}

/** An e-mail to send: plain text always, HTML and attachments when wanted. */
interface EmailNotice {
  kind: 'email';
  to: readonly string[];
  subject: string;
  text: string;
  html?: string;
  attachments?: readonly OutboxAttachment[];
}

/**
 * The JSON body of a webhook call, in the shape chat tools' incoming webhooks take (Slack,
 * Mattermost, Rocket.Chat: `text` is the message shown); any other fields ride along for programs.
 */
interface WebhookBody {
  text: string;
  [field: string]: unknown;
}

/** A webhook call to make: POST `body` as JSON to `url`. Any 2xx answer is a success. */
interface WebhookNotice {
  kind: 'webhook';
  url: string;
  body: WebhookBody;
}

type Notice = EmailNotice | WebhookNotice;

interface EnqueueInput {
  notice: Notice;
  /** What made it, e.g. `schedule:12` or `alert:3`: read back with `Outbox.of`. */
  source: string;
  tenantId: number | null;
  userId: number | null;
  /** Attempts before the row is marked failed (default OUTBOX_MAX_ATTEMPTS). */
  maxAttempts?: number;
}

/** A row of the outbox as callers see it (the payload is left out: it may hold files). */
interface Delivery {
  id: number;
  kind: 'email' | 'webhook';
  /** The addresses of an e-mail, joined by ', ', or the URL of a webhook. */
  target: string;
  source: string;
  status: 'pending' | 'sending' | 'sent' | 'failed';
  attempts: number;
  maxAttempts: number;
  /** When the next attempt is due (ISO); meaningless once sent or failed. */
  nextAt: string;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

/**
 * The shared outbox of outgoing notifications. `enqueue` writes a row (in the caller's transaction
 * when `db` is one) and the delivery loop of the api role sends it: e-mail through `app.mailer`,
 * webhooks as a JSON POST. A failed attempt is tried again after 1, 5, 25, 125 minutes...
 * (OUTBOX_BACKOFF_MS × 5^(n-1)) until `maxAttempts`, then the row is `failed` with its last error.
 * Each row is claimed by one conditional update before it is sent, so processes sharing the store
 * never send one row twice; a claim runs out after OUTBOX_CLAIM_MS, so a row whose process stopped
 * while sending is sent again by another.
 */
export interface Outbox {
  /** Whether e-mail can be sent at all (mail settings present); e-mail rows fail with "mail is off" otherwise. */
  readonly mailOn: boolean;
  enqueue(input: EnqueueInput, db?: Kysely<Database>): Promise<Delivery>;
  /** Send every row due now (the loop calls it; tests call it after setting the clock). Returns how many were attempted. */
  deliverDue(): Promise<number>;
  /** The rows of these sources, newest first. */
  of(sources: readonly string[], limit?: number): Promise<Delivery[]>;
  /** Start the loop: at once, then every `everyMs`, and soon after each enqueue. */
  start(everyMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const OUTBOX_MAX_ATTEMPTS = 5;
const OUTBOX_BACKOFF_MS = 60_000;
/** How long one process's claim on a row holds before another may take it over. */
const OUTBOX_CLAIM_MS = 5 * 60_000;
const WEBHOOK_TIMEOUT_MS = 10_000;
/** The most bytes of attachments one e-mail may carry (most mail servers refuse more than 10-25 MB). */
const OUTBOX_ATTACHMENTS_MAX_BYTES = 10 * 1024 * 1024;
const ROWS_A_PASS = 50;
/** Sent rows are kept this long (the api role's housekeeping deletes older ones); failed rows stay until their source goes. */
export const OUTBOX_KEEP_SENT_MS = 30 * 86_400_000;

/** The wait before attempt `attempts + 1`, after `attempts` failed ones. */
export const backoffMs = (attempts: number) => OUTBOX_BACKOFF_MS * 5 ** Math.max(0, attempts - 1);

interface StoredEmail {
  subject: string;
  text: string;
  html?: string;
  attachments: { filename: string; contentType: string; base64: string }[];
}

const bytesOf = (content: Uint8Array | string) =>
  typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;

function publicDelivery(d: StoredDelivery): Delivery {
  return {
    id: d.id,
    kind: d.kind,
    target: Array.isArray(d.target) ? d.target.join(', ') : d.target,
    source: d.source,
    status: d.status,
    attempts: d.attempts,
    maxAttempts: d.maxAttempts,
    nextAt: d.nextAt,
    lastError: d.lastError,
    createdAt: d.createdAt,
    sentAt: d.sentAt,
  };
}

export function createOutbox(deps: {
  db: Kysely<Database>;
  mailer: Mailer;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Where webhooks may go (http/outboundAddress.ts: no calls to link-local or, unless allowed, private addresses). */
  outbound: OutboundPolicy;
}): Outbox {
  const { db, mailer, clock, log } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();
  const agent = new Agent({ connect: guardedConnector(deps.outbound), headersTimeout: WEBHOOK_TIMEOUT_MS });
  const token = randomBytes(12).toString('hex');
  /** Whether this process runs the loop (the api role): an enqueued row is then sent at once. */
  let started = false;

  async function sendEmail(to: readonly string[], payload: StoredEmail): Promise<void> {
    const outcome = await mailer.send({
      to,
      subject: payload.subject,
      text: payload.text,
      ...(payload.html !== undefined ? { html: payload.html } : {}),
      attachments: payload.attachments.map((a) => ({
        filename: a.filename,
        contentType: a.contentType,
        content: Buffer.from(a.base64, 'base64'),
      })),
    });
    if (!outcome.sent) throw new Error(outcome.reason);
  }

  async function callWebhook(url: string, body: unknown): Promise<void> {
    const res = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'user-agent': 'adplane' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    const answer = (await res.body.text().catch(() => '')).slice(0, 200);
    if (res.statusCode < 200 || res.statusCode >= 300)
      throw new Error(`HTTP ${res.statusCode}${answer ? `: ${answer}` : ''}`);
  }

  async function attempt(row: StoredDelivery): Promise<void> {
    const attempts = row.attempts + 1;
    try {
      if (row.kind === 'email') await sendEmail(row.target as string[], row.payload as StoredEmail);
      else await callWebhook(row.target as string, row.payload);
      await settleDelivery(db, row.id, token, { status: 'sent', attempts, at: iso(clock.now()) });
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      // with mail off no later attempt can succeed: the row fails at once, saying why
      const last = attempts >= row.maxAttempts || message === 'mail is off';
      await settleDelivery(db, row.id, token, {
        status: last ? 'failed' : 'pending',
        attempts,
        nextAt: iso(clock.now() + backoffMs(attempts)),
        error: message,
      });
      log[last ? 'error' : 'warn'](
        { deliveryId: row.id, source: row.source, kind: row.kind, attempts, err: error },
        last ? 'notification failed for good' : 'notification failed: will try again',
      );
    }
  }

  async function pass(): Promise<number> {
    let attempted = 0;
    for (;;) {
      const now = clock.now();
      const ids = await dueDeliveryIds(db, iso(now), ROWS_A_PASS);
      let claimedAny = false;
      for (const id of ids) {
        const row = await claimDelivery(db, id, { token, at: iso(now), until: iso(now + OUTBOX_CLAIM_MS) });
        if (!row) continue;
        claimedAny = true;
        attempted++;
        await attempt(row);
      }
      if (ids.length < ROWS_A_PASS || !claimedAny) return attempted;
    }
  }

  const passes = periodicPass(pass, 0, (error) => log.error({ err: error }, 'outbox: delivery pass failed'));

  const outbox: Outbox = {
    mailOn: mailer.on,
    async enqueue(input, on = db) {
      const { notice } = input;
      const at = iso(clock.now());
      const base = {
        tenantId: input.tenantId,
        userId: input.userId,
        source: input.source,
        maxAttempts: input.maxAttempts ?? OUTBOX_MAX_ATTEMPTS,
        at,
      };
      let row: StoredDelivery;
      if (notice.kind === 'email') {
        if (notice.to.length === 0) throw new Error('An e-mail needs at least one address');
        const attachments = notice.attachments ?? [];
        const bytes = attachments.reduce((sum, a) => sum + bytesOf(a.content), 0);
        if (bytes > OUTBOX_ATTACHMENTS_MAX_BYTES)
          throw new Error(`Attachments of ${bytes} bytes: an e-mail carries at most ${OUTBOX_ATTACHMENTS_MAX_BYTES}`);
        const payload: StoredEmail = {
          subject: notice.subject,
          text: notice.text,
          ...(notice.html !== undefined ? { html: notice.html } : {}),
          attachments: attachments.map((a) => ({
            filename: a.filename,
            contentType: a.contentType,
            base64: Buffer.from(a.content).toString('base64'),
          })),
        };
        row = await insertDelivery(on, { ...base, kind: 'email', target: [...notice.to], payload });
      } else {
        row = await insertDelivery(on, { ...base, kind: 'webhook', target: notice.url, payload: notice.body });
      }
      // sent soon by this process's loop (when it runs one), after the caller's transaction committed
      if (started && !on.isTransaction) setImmediate(() => void outbox.deliverDue().catch(() => undefined));
      return publicDelivery(row);
    },
    deliverDue: passes.run,
    async of(sources, limit) {
      return (await deliveriesOf(db, sources, limit)).map(publicDelivery);
    },
    start(everyMs = 15_000) {
      started = true;
      return passes.start(everyMs);
    },
    async stop() {
      started = false;
      await passes.stop();
      await agent.close();
    },
  };
  return outbox;
}
