import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { forEachStore } from './helpers.js';

/** At info the terminal holds start-up, warnings and errors: per-request lines only at debug, or with ADPLANE_ACCESS_LOG=1. */
forEachStore(
  (t) => {
    async function linesOf(level: string, accessLog: boolean): Promise<Record<string, unknown>[]> {
      const lines: Record<string, unknown>[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const line of chunk.toString().split('\n'))
            if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
          done();
        },
      });
      const app = await buildApp({
        settings: { ...t.settings, accessLog },
        store: t.store,
        logger: pino({ level }, sink),
      });
      await app.ready();
      await app.inject({ method: 'GET', url: '/healthz' });
      await app.inject({ method: 'GET', url: '/api/nope' });
      await app.close();
      return lines;
    }
    const requestLines = (lines: Record<string, unknown>[]) =>
      lines.filter((l) => l.msg === 'request' || l.msg === 'incoming request' || l.msg === 'request completed');

    describe('access log', () => {
      it('writes no line per request at info', async () => {
        expect(requestLines(await linesOf('info', false))).toEqual([]);
      });
      it('writes one line per request at debug', async () => {
        const lines = requestLines(await linesOf('debug', false));
        expect(lines.map((l) => [l.msg, l.method, l.url, l.status])).toEqual([
          ['request', 'GET', '/healthz', 200],
          ['request', 'GET', '/api/nope', 404],
        ]);
      });
      it('writes them at info with ADPLANE_ACCESS_LOG=1', async () => {
        expect(requestLines(await linesOf('info', true))).toHaveLength(2);
      });
    });
  },
  { seed: false },
);
