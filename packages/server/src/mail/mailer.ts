import { createTransport, type Transporter } from 'nodemailer';
import { type MailSettings } from './mailSettings.js';

/** A file sent along with a message. */
export interface MailAttachment {
  filename: string;
  content: string | Uint8Array;
  /** e.g. 'text/csv'; guessed from the file name when left out. */
  contentType?: string;
}

/** One message: plain text always (every client reads it), HTML and attachments when wanted. */
export interface Mail {
  to: string | readonly string[];
  subject: string;
  text: string;
  html?: string;
  attachments?: readonly MailAttachment[];
}

export type MailOutcome = { sent: true; messageId: string } | { sent: false; reason: 'mail is off' };

/**
 * The server's outgoing mail. `send` hands one message to the SMTP server of ADPLANE_SMTP_URL and
 * resolves once that server has accepted it (its message id), or throws what the SMTP server or the
 * connection said. Without mail settings it sends nothing and says so: `{ sent: false, reason: 'mail
 * is off' }` (and `on` is false), so a caller can tell the user instead of pretending.
 */
export interface Mailer {
  readonly on: boolean;
  send(mail: Mail): Promise<MailOutcome>;
  /** Closes pooled connections; later sends open new ones. */
  close(): void;
}

/** Connection limits: an SMTP server that does not answer fails a send instead of holding it for minutes. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 } as const;

export function createMailer(settings: MailSettings | null): Mailer {
  if (!settings) {
    return {
      on: false,
      send: () => Promise.resolve({ sent: false, reason: 'mail is off' }),
      close: () => undefined,
    };
  }
  let transport: Transporter | null = null;
  const transportOf = () => (transport ??= createTransport({ url: settings.smtpUrl, ...TIMEOUTS }));
  return {
    on: true,
    async send(mail) {
      const info = (await transportOf().sendMail({
        from: settings.from,
        to: typeof mail.to === 'string' ? mail.to : [...mail.to],
        subject: mail.subject,
        text: mail.text,
        ...(mail.html !== undefined ? { html: mail.html } : {}),
        ...(mail.attachments
          ? {
              attachments: mail.attachments.map((a) => ({
                filename: a.filename,
                content: typeof a.content === 'string' ? a.content : Buffer.from(a.content),
                ...(a.contentType ? { contentType: a.contentType } : {}),
              })),
            }
          : {}),
      })) as { messageId: string };
      return { sent: true, messageId: info.messageId };
    },
    close() {
      transport?.close();
      transport = null;
    },
  };
}
