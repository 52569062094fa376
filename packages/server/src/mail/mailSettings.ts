/** Outgoing mail's settings: where to hand messages over, and whom they come from. */
export interface MailSettings {
  /** smtp://user:pass@host:587 (STARTTLS when the server offers it) or smtps://...:465 (TLS from the start). */
  smtpUrl: string;
  /** The From of every message: `a@example.com` or `adplane <a@example.com>`. */
  from: string;
}

/** An e-mail address alone, or a display name with the address in angle brackets. */
const FROM = /^(?:[^<>@\s][^<>@]*\s)?<?[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+>?$/;

/**
 * What is wrong with ADPLANE_SMTP_URL and ADPLANE_MAIL_FROM together (null: nothing): mail needs
 * both, so one without the other is a mistake the operator hears of at start, not a silent "mail is off".
 */
export function mailSettingsProblem(
  smtpUrl: string | undefined,
  from: string | undefined,
): { variable: string; message: string } | null {
  const url = smtpUrl?.trim() ?? '';
  const sender = from?.trim() ?? '';
  if (url === '' && sender === '') return null;
  if (sender === '') return { variable: 'ADPLANE_MAIL_FROM', message: 'must be set when ADPLANE_SMTP_URL is set' };
  if (!FROM.test(sender) || sender.includes('<') !== sender.endsWith('>'))
    return {
      variable: 'ADPLANE_MAIL_FROM',
      message: `must be an e-mail address, e.g. adplane@example.com or "adplane <adplane@example.com>" (got '${sender}')`,
    };
  if (url === '') return { variable: 'ADPLANE_SMTP_URL', message: 'must be set when ADPLANE_MAIL_FROM is set' };
  return null;
}
