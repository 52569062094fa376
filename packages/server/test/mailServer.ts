import { type AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A message the test SMTP server accepted: the envelope's recipients and the parsed message. */
export interface ReceivedMail {
  envelopeTo: string[];
  mail: ParsedMail;
}

/**
 * A real SMTP server on loopback (smtp-server) on a free port, keeping what it receives: what tests
 * point ADPLANE_SMTP_URL at. It takes any user and password (AUTH PLAIN/LOGIN, which nodemailer
 * sends when the URL carries them) and offers no STARTTLS, as a local relay would.
 */
export async function startMailServer(): Promise<{
  url: string;
  received: ReceivedMail[];
  close: () => Promise<void>;
}> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth: (_auth, _session, done) => done(null, { user: 'test' }),
    onData(stream, session, done) {
      simpleParser(stream)
        .then((mail) => {
          received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), mail });
          done();
        })
        .catch((error: unknown) => done(error as Error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://mailer:secret@127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
