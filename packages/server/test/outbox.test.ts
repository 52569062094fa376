import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../src/clock.js';
import { ANY_ADDRESS, outboundPolicy } from '../src/http/outboundAddress.js';
import { createMailer } from '../src/mail/mailer.js';
import { backoffMs, createOutbox, type Outbox } from '../src/notify/outbox.js';
import { claimDelivery, getDelivery } from '../src/store/deliveries.js';
import { forEachStore } from './helpers.js';
import { startMailServer } from './mailServer.js';

const START = Date.parse('2026-11-28T10:00:00Z');
const MINUTE = 60_000;
const log = pino({ level: 'silent' });

/** A local webhook receiver answering each call with the next status of `statuses` (then the last), keeping the bodies. */
async function startHookServer(statuses: number[]) {
  const bodies: unknown[] = [];
  let calls = 0;
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      const status = statuses[Math.min(calls++, statuses.length - 1)]!;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 300 ? 'broken' : 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The outbox over a real store (SQLite and PostgreSQL): e-mail to a real SMTP server on loopback,
 * webhooks to real local HTTP servers, retries on the test clock, and two outboxes (two processes)
 * over one store sending each row once.
 */
forEachStore(
  (t) => {
    let mail: Awaited<ReturnType<typeof startMailServer>>;
    const clock = new TestClock(START);
    const outboxes: Outbox[] = [];
    const outboxOf = (smtpUrl: string | null, outbound = ANY_ADDRESS) => {
      const outbox = createOutbox({
        db: t.store.db,
        mailer: createMailer(smtpUrl ? { smtpUrl, from: 'adplane <reports@example.com>' } : null),
        clock,
        log,
        outbound,
      });
      outboxes.push(outbox);
      return outbox;
    };
    beforeAll(async () => {
      mail = await startMailServer();
    });
    afterAll(async () => {
      for (const o of outboxes) await o.stop();
      await mail.close();
    });

    it('sends an e-mail with its attachment once, and marks it sent', async () => {
      clock.set(START);
      const outbox = outboxOf(mail.url);
      const csv = 'Date,Impressions\n2026-11-27,42\nTotal,42\n';
      const queued = await outbox.enqueue({
        source: 'test:mail',
        tenantId: null,
        userId: null,
        notice: {
          kind: 'email',
          to: ['ops@example.com', 'finance@example.com'],
          subject: 'Daily numbers',
          text: 'Attached.',
          attachments: [{ filename: 'daily.csv', contentType: 'text/csv', content: csv }],
        },
      });
      expect(queued).toMatchObject({ status: 'pending', attempts: 0, target: 'ops@example.com, finance@example.com' });
      expect(await outbox.deliverDue()).toBe(1);
      expect(await outbox.deliverDue()).toBe(0);
      const got = mail.received.filter((r) => r.mail.subject === 'Daily numbers');
      expect(got).toHaveLength(1);
      expect(got[0]!.envelopeTo).toEqual(['ops@example.com', 'finance@example.com']);
      expect(got[0]!.mail.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['daily.csv', csv]]);
      expect(await outbox.of(['test:mail'])).toEqual([
        expect.objectContaining({
          status: 'sent',
          attempts: 1,
          sentAt: new Date(START).toISOString(),
          lastError: null,
        }),
      ]);
    });

    it('tries a webhook answering 500 again after 1 and 5 minutes, until it answers 200', async () => {
      clock.set(START);
      const hook = await startHookServer([500, 502, 200]);
      try {
        const outbox = outboxOf(null);
        const body = { text: 'Report "Daily" ran', report: { id: 1 } };
        const { id } = await outbox.enqueue({
          source: 'test:hook',
          tenantId: null,
          userId: null,
          notice: { kind: 'webhook', url: hook.url, body },
        });
        expect(await outbox.deliverDue()).toBe(1);
        expect(await getDelivery(t.store.db, id)).toMatchObject({
          status: 'pending',
          attempts: 1,
          lastError: 'HTTP 500: broken',
          nextAt: new Date(START + MINUTE).toISOString(),
        });
        // not due before its time
        clock.advance(MINUTE - 1);
        expect(await outbox.deliverDue()).toBe(0);
        clock.advance(1);
        expect(await outbox.deliverDue()).toBe(1);
        expect(await getDelivery(t.store.db, id)).toMatchObject({
          status: 'pending',
          attempts: 2,
          lastError: 'HTTP 502: broken',
          nextAt: new Date(START + MINUTE + 5 * MINUTE).toISOString(),
        });
        clock.advance(5 * MINUTE);
        expect(await outbox.deliverDue()).toBe(1);
        expect(await getDelivery(t.store.db, id)).toMatchObject({ status: 'sent', attempts: 3, lastError: null });
        expect(hook.bodies).toEqual([body, body, body]);
      } finally {
        await hook.close();
      }
    });

    it('marks a row failed, with its last error, after its last attempt; an SMTP server that is down is retried', async () => {
      clock.set(START);
      const outbox = outboxOf('smtp://127.0.0.1:1');
      const { id } = await outbox.enqueue({
        source: 'test:down',
        tenantId: null,
        userId: null,
        maxAttempts: 3,
        notice: { kind: 'email', to: ['ops@example.com'], subject: 'never', text: 'x' },
      });
      for (const attempts of [1, 2, 3]) {
        expect(await outbox.deliverDue()).toBe(1);
        const row = await getDelivery(t.store.db, id);
        expect(row).toMatchObject({ attempts, status: attempts < 3 ? 'pending' : 'failed' });
        expect(row?.lastError).toMatch(/ECONNREFUSED/);
        clock.advance(backoffMs(attempts));
      }
      clock.advance(24 * 60 * MINUTE);
      expect(await outbox.deliverDue()).toBe(0);
      expect(backoffMs(1)).toBe(MINUTE);
      expect(backoffMs(3)).toBe(25 * MINUTE);
    });

    it('fails an e-mail at once, saying so, when mail is off', async () => {
      clock.set(START);
      const outbox = outboxOf(null);
      expect(outbox.mailOn).toBe(false);
      const { id } = await outbox.enqueue({
        source: 'test:off',
        tenantId: null,
        userId: null,
        notice: { kind: 'email', to: ['ops@example.com'], subject: 's', text: 't' },
      });
      await outbox.deliverDue();
      expect(await getDelivery(t.store.db, id)).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastError: 'mail is off',
      });
    });

    it('refuses a webhook to a private address unless allowed, as a failed attempt naming it', async () => {
      clock.set(START);
      const hook = await startHookServer([200]);
      try {
        const outbox = outboxOf(null, outboundPolicy(false, []));
        const { id } = await outbox.enqueue({
          source: 'test:guard',
          tenantId: null,
          userId: null,
          maxAttempts: 1,
          notice: { kind: 'webhook', url: hook.url, body: { text: 'x' } },
        });
        await outbox.deliverDue();
        expect(await getDelivery(t.store.db, id)).toMatchObject({ status: 'failed' });
        expect((await getDelivery(t.store.db, id))?.lastError).toMatch(/127\.0\.0\.1/);
        expect(hook.bodies).toEqual([]);
      } finally {
        await hook.close();
      }
    });

    it('sends a row again when the process that claimed it stopped while sending, once its claim ran out', async () => {
      clock.set(START);
      const hook = await startHookServer([200]);
      try {
        const outbox = outboxOf(null);
        const { id } = await outbox.enqueue({
          source: 'test:lease',
          tenantId: null,
          userId: null,
          notice: { kind: 'webhook', url: hook.url, body: { text: 'once' } },
        });
        // another process claims it for 5 minutes and stops before it settles
        const at = new Date(START).toISOString();
        const until = new Date(START + 5 * MINUTE).toISOString();
        expect(await claimDelivery(t.store.db, id, { token: 'stopped', at, until })).toMatchObject({
          status: 'sending',
        });
        expect(await outbox.deliverDue()).toBe(0);
        clock.advance(5 * MINUTE - 1);
        expect(await outbox.deliverDue()).toBe(0);
        clock.advance(1);
        expect(await outbox.deliverDue()).toBe(1);
        expect(await getDelivery(t.store.db, id)).toMatchObject({ status: 'sent', attempts: 1 });
        expect(hook.bodies).toEqual([{ text: 'once' }]);
      } finally {
        await hook.close();
      }
    });

    it('sends each row once when two processes deliver from one store at the same time', async () => {
      clock.set(START);
      const hook = await startHookServer([200]);
      try {
        const [a, b] = [outboxOf(null), outboxOf(null)];
        for (let i = 0; i < 30; i++)
          await a.enqueue({
            source: 'test:race',
            tenantId: null,
            userId: null,
            notice: { kind: 'webhook', url: hook.url, body: { text: `n${i}` } },
          });
        const [byA, byB] = await Promise.all([a.deliverDue(), b.deliverDue()]);
        expect(byA + byB).toBe(30);
        expect(hook.bodies).toHaveLength(30);
        expect(new Set(hook.bodies.map((x) => (x as { text: string }).text)).size).toBe(30);
        expect((await a.of(['test:race'])).every((d) => d.status === 'sent' && d.attempts === 1)).toBe(true);
      } finally {
        await hook.close();
      }
    });
  },
  { seed: false },
);

describe('outbox limits', () => {
  it('backs off 1, 5, 25, 125 minutes', () => {
    expect([1, 2, 3, 4].map(backoffMs)).toEqual([1, 5, 25, 125].map((m) => m * MINUTE));
  });
});
