import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, type SettingsError } from '../settings.js';
import { startMailServer } from '../../test/mailServer.js';
import { createMailer, type Mail, type MailAttachment, type MailOutcome } from './mailer.js';

describe('mailer', () => {
  let server: Awaited<ReturnType<typeof startMailServer>>;
  beforeAll(async () => {
    server = await startMailServer();
  });
  afterAll(async () => server.close());

  it('hands a message with HTML and an attachment to the SMTP server, which reads back what was sent', async () => {
    const mailer = createMailer({ smtpUrl: server.url, from: 'adplane <reports@example.com>' });
    try {
      const csv: MailAttachment = {
        filename: 'report.csv',
        content: 'day,imps\n2026-11-28,42\n',
        contentType: 'text/csv',
      };
      const mail: Mail = {
        to: ['ops@example.com', 'finance@example.com'],
        subject: 'Daily report ✓',
        text: 'See the attached file.',
        html: '<p>See the <b>attached</b> file.</p>',
        attachments: [csv],
      };
      const outcome: MailOutcome = await mailer.send(mail);
      expect(outcome.sent).toBe(true);
      const got = server.received.find((r) => r.mail.subject === 'Daily report ✓');
      expect(got?.envelopeTo).toEqual(['ops@example.com', 'finance@example.com']);
      expect(got?.mail.from?.value).toEqual([{ name: 'adplane', address: 'reports@example.com' }]);
      expect(got?.mail.text?.trim()).toBe('See the attached file.');
      expect(got?.mail.html).toContain('<b>attached</b>');
      expect(got?.mail.attachments.map((a) => [a.filename, a.contentType, a.content.toString()])).toEqual([
        ['report.csv', 'text/csv', 'day,imps\n2026-11-28,42\n'],
      ]);
      if (outcome.sent) expect(got?.mail.messageId).toBe(outcome.messageId);
    } finally {
      mailer.close();
    }
  });

  it('throws what the connection says when no SMTP server answers', async () => {
    const mailer = createMailer({ smtpUrl: 'smtp://127.0.0.1:1', from: 'a@example.com' });
    await expect(mailer.send({ to: 'x@example.com', subject: 's', text: 't' })).rejects.toThrow(/ECONNREFUSED/);
    mailer.close();
  });

  it('is off without settings, and says so instead of sending', async () => {
    const mailer = createMailer(null);
    expect(mailer.on).toBe(false);
    expect(await mailer.send({ to: 'x@example.com', subject: 's', text: 't' })).toEqual({
      sent: false,
      reason: 'mail is off',
    });
  });
});

describe('mail settings', () => {
  it('are both set or neither: one alone stops the program naming the other', () => {
    expect(loadSettings({}).mail).toBeNull();
    expect(
      loadSettings({ ADPLANE_SMTP_URL: 'smtp://u:p@mail.example.com:587', ADPLANE_MAIL_FROM: 'a@example.com' }).mail,
    ).toEqual({ smtpUrl: 'smtp://u:p@mail.example.com:587', from: 'a@example.com' });
    const problems = (env: Record<string, string>) => {
      try {
        loadSettings(env);
        return [];
      } catch (error) {
        return (error as SettingsError).problems.map((p) => p.variable);
      }
    };
    expect(problems({ ADPLANE_SMTP_URL: 'smtp://mail.example.com' })).toEqual(['ADPLANE_MAIL_FROM']);
    expect(problems({ ADPLANE_MAIL_FROM: 'a@example.com' })).toEqual(['ADPLANE_SMTP_URL']);
    expect(problems({ ADPLANE_SMTP_URL: 'http://mail.example.com', ADPLANE_MAIL_FROM: 'a@example.com' })).toEqual([
      'ADPLANE_SMTP_URL',
    ]);
    expect(problems({ ADPLANE_SMTP_URL: 'smtp://mail.example.com', ADPLANE_MAIL_FROM: 'not an address' })).toEqual([
      'ADPLANE_MAIL_FROM',
    ]);
  });

  it('never print the SMTP password of a bad URL', () => {
    try {
      loadSettings({ ADPLANE_SMTP_URL: 'smtp//user:hunter2@mail', ADPLANE_MAIL_FROM: 'a@example.com' });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
});
