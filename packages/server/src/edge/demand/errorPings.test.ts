import { describe, expect, it } from 'vitest';
import { buildRequestContext } from '../request/context.js';
import { errorPings, MAX_ERROR_PINGS } from './errorPings.js';
import { readVastAnswer } from '../vast/vastAnswer.js';

const NOW = Date.UTC(2026, 10, 25, 8, 15, 7, 127);
const ctx = buildRequestContext(
  { page_url: 'https://news.example.com/a' },
  { remoteAddress: '8.8.8.8', userAgent: 'Mozilla/5.0' },
  NOW,
  () => ({ country: 'US', region: '', usState: '' }),
);

describe("a demand's error trackers for its no-fill", () => {
  it('fills [ERRORCODE] (written bare or URL-encoded) and the IAB macros, as a player would', () => {
    const [bare, encoded] = errorPings(
      [
        'https://d.test/err?c=[ERRORCODE]&ts=[TIMESTAMP]&ss=[SERVERSIDE]&p=[PAGEURL]&x=[ASSETURI]',
        'https://d.test/e2?code=%5BERRORCODE%5D',
      ],
      303,
      ctx,
    );
    const q = new URL(bare!).searchParams;
    expect(q.get('c')).toBe('303');
    expect(q.get('ts')).toBe('2026-11-25T08:15:07.127+00:00');
    expect(q.get('ss')).toBe('1');
    expect(q.get('p')).toBe('https://news.example.com/a');
    // a macro that is not the request's to fill stays as written
    expect(q.get('x')).toBe('[ASSETURI]');
    expect(encoded).toBe('https://d.test/e2?code=303');
  });

  it('fires http(s) URLs only, each once, at most MAX_ERROR_PINGS', () => {
    expect(
      errorPings(
        ['javascript:alert(1)', 'ftp://d.test/e', 'not a url', ' https://d.test/e ', 'https://d.test/e'],
        100,
        ctx,
      ),
    ).toEqual(['https://d.test/e']);
    const many = Array.from({ length: 25 }, (_, i) => `https://d.test/e${i}?c=[ERRORCODE]`);
    expect(errorPings(many, 301, ctx)).toHaveLength(MAX_ERROR_PINGS);
  });

  it("reads where an answer asks to hear of its error: a no-ad response's root <Error>, a failing ad's own", () => {
    const noAd = readVastAnswer(
      '<VAST version="3.0"><Error><![CDATA[https://d.test/noad?c=[ERRORCODE]]]></Error></VAST>',
    );
    expect(noAd).toEqual({
      kind: 'empty',
      vastError: 303,
      reason: 'no_ad',
      errorUrls: ['https://d.test/noad?c=[ERRORCODE]'],
    });
    const noMedia = readVastAnswer(
      '<VAST version="3.0"><Ad><InLine><AdSystem>D</AdSystem><AdTitle>T</AdTitle><Error>https://d.test/inline-err</Error><Impression>https://d.test/imp</Impression><Creatives><Creative><Linear><Duration>00:00:10</Duration><MediaFiles></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>',
    );
    expect(noMedia).toMatchObject({
      kind: 'empty',
      vastError: 401,
      reason: 'no_media',
      errorUrls: ['https://d.test/inline-err'],
    });
    expect(readVastAnswer('<html>')).toMatchObject({ kind: 'empty', vastError: 100, errorUrls: [] });
  });
});
