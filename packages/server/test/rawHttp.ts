import { connect } from 'node:net';

/**
 * HTTP/1.1 over a raw socket, for tests that pipeline requests or send bytes no HTTP client would
 * (the edge lane's): what was sent comes back as the answers, parsed in order.
 */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Reads answers (framed by Content-Length or chunked) until `count` came or the connection ended. */
export function parseAnswers(raw: Buffer, head: boolean[] = []): Answer[] {
  const answers: Answer[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const lines = raw.toString('latin1', at, end).split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const c = line.indexOf(':');
      headers[line.slice(0, c).toLowerCase()] = line.slice(c + 1).trim();
    }
    let bodyStart = end + 4;
    let body = '';
    if (head[answers.length] || status === 204 || status === 304) {
      // none
    } else if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = raw.indexOf('\r\n', bodyStart);
        const size = parseInt(raw.toString('latin1', bodyStart, lineEnd), 16);
        bodyStart = lineEnd + 2;
        if (size === 0) {
          bodyStart += 2;
          break;
        }
        body += raw.toString('utf8', bodyStart, bodyStart + size);
        bodyStart += size + 2;
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = raw.toString('utf8', bodyStart, bodyStart + length);
      bodyStart += length;
    }
    answers.push({ status, headers, body });
    at = bodyStart;
  }
  return answers;
}

/** Sends `parts` (one write each, `gapMs` apart) and collects what comes back until `count` answers or the end. */
export async function exchange(
  port: number,
  parts: (string | Buffer)[],
  count: number,
  opts: { gapMs?: number; head?: boolean[]; waitEndMs?: number } = {},
): Promise<{ answers: Answer[]; ended: boolean }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const chunks: Buffer[] = [];
  let ended = false;
  const done = new Promise<void>((resolve) => {
    const check = () => {
      if (parseAnswers(Buffer.concat(chunks), opts.head).length >= count && !opts.waitEndMs) resolve();
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      check();
    });
    socket.on('close', () => {
      ended = true;
      resolve();
    });
    socket.on('error', () => undefined);
    if (opts.waitEndMs) setTimeout(resolve, opts.waitEndMs);
  });
  for (const part of parts) {
    socket.write(part);
    if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
  }
  await done;
  socket.destroy();
  return { answers: parseAnswers(Buffer.concat(chunks), opts.head), ended };
}
