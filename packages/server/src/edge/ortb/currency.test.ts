import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localServer } from '../../../test/localServer.js';
import {
  answerCurrency,
  CurrencyFeed,
  CurrencyRates,
  floorMicros,
  parseCurrencyFile,
  RatesInTurn,
} from './currency.js';

/** A currency file as Prebid's (one unit of the outer currency is worth that many of the inner). */
const FILE = { dataAsOf: '2026-11-24', conversions: { USD: { EUR: 0.8, GBP: 0.75 }, EUR: { JPY: 160 } } };

describe('currency rates', () => {
  const rates = parseCurrencyFile(FILE);

  it('converts as given, by the reverse rate, and through a third currency', () => {
    expect(rates.rate('USD', 'EUR')).toBe(0.8);
    expect(rates.rate('eur', 'usd')).toBeCloseTo(1.25, 12);
    expect(rates.rate('GBP', 'EUR')).toBeCloseTo(0.8 / 0.75, 12);
    expect(rates.rate('USD', 'JPY')).toBeCloseTo(128, 9);
    expect(rates.rate('JPY', 'USD')).toBeCloseTo(1 / 128, 12);
    expect(rates.rate('USD', 'USD')).toBe(1);
    expect(rates.rate('USD', 'CHF')).toBeNull();
    expect(CurrencyRates.USD_ONLY.rate('USD', 'EUR')).toBeNull();
    expect(rates.currencies).toEqual(['EUR', 'GBP', 'JPY', 'USD']);
    expect(rates.asOf).toBe('2026-11-24');
  });

  it('refuses a file that is not one, naming what is wrong', () => {
    expect(() => parseCurrencyFile([])).toThrow(/JSON object/);
    expect(() => parseCurrencyFile({})).toThrow(/"conversions" must be an object/);
    expect(() => parseCurrencyFile({ conversions: { usd: { EUR: 1 } } })).toThrow(/"usd" is not a currency code/);
    expect(() => parseCurrencyFile({ conversions: { USD: { EUR: 0 } } })).toThrow(
      /conversions\.USD\.EUR must be a positive number/,
    );
    expect(() => parseCurrencyFile({ conversions: { USD: { EUR: '0.9' } } })).toThrow(/positive number/);
  });

  it("tries rates in turn: a request's own before the operator's", () => {
    const own = parseCurrencyFile({ conversions: { USD: { EUR: 0.5 } } });
    const both = new RatesInTurn([own, rates]);
    expect(both.rate('USD', 'EUR')).toBe(0.5);
    expect(both.rate('USD', 'GBP')).toBe(0.75);
  });

  it("picks the answer's currency from a request's cur: USD when it may, else the first with a rate", () => {
    expect(answerCurrency(undefined, rates)).toEqual({ currency: 'USD', usdPerUnit: 1 });
    expect(answerCurrency([], rates)).toEqual({ currency: 'USD', usdPerUnit: 1 });
    expect(answerCurrency(['EUR', 'USD'], rates)).toEqual({ currency: 'USD', usdPerUnit: 1 });
    expect(answerCurrency(['CHF', 'EUR'], rates)).toEqual({ currency: 'EUR', usdPerUnit: 1.25 });
    expect(answerCurrency(['CHF'], rates)).toBeNull();
  });

  it('reads a floor in its currency as micro-dollars (rounded up: never under the floor)', () => {
    expect(floorMicros(2, undefined, rates)).toBe(2_000_000);
    expect(floorMicros(2, 'EUR', rates)).toBe(2_500_000);
    expect(floorMicros(undefined, 'EUR', rates)).toBe(0);
    expect(floorMicros(2, 'CHF', rates)).toBeNull();
    expect(floorMicros(2, 'EUR', undefined)).toBeNull();
    expect(floorMicros(2, 'nope', rates)).toBeNull();
  });
});

describe('the currency feed', () => {
  const log = {
    lines: [] as string[],
    info: (_: object, m: string) => log.lines.push(m),
    warn: (_: object, m: string) => log.lines.push(m),
  };

  it('reads a file at start; USD only without a source; keeps the last good rates when a load fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'adplane-currency-'));
    const file = join(dir, 'rates.json');
    writeFileSync(file, JSON.stringify(FILE));
    const feed = new CurrencyFeed(file, log);
    await feed.start();
    expect(feed.current.rate('EUR', 'USD')).toBeCloseTo(1.25, 12);
    const none = new CurrencyFeed(null, log);
    await none.start();
    expect(none.current).toBe(CurrencyRates.USD_ONLY);
    writeFileSync(file, '{"conversions": {"USD": {"EUR": -1}}}');
    const broken = new CurrencyFeed(file, log);
    await broken.start();
    expect(broken.current).toBe(CurrencyRates.USD_ONLY);
    expect(log.lines.at(-1)).toMatch(/could not be loaded/);
  });

  it('reads a URL, and again on its refresh, keeping the last good rates when the URL fails', async () => {
    let body = JSON.stringify(FILE);
    let status = 200;
    const rates = await localServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    });
    const feed = new CurrencyFeed(`${rates.url}/latest.json`, log, 1);
    try {
      await feed.start();
      expect(feed.current.rate('USD', 'EUR')).toBe(0.8);
      status = 500;
      await (feed as unknown as { load(): Promise<void> }).load();
      expect(feed.current.rate('USD', 'EUR')).toBe(0.8);
      status = 200;
      body = JSON.stringify({ conversions: { USD: { EUR: 0.9 } } });
      await (feed as unknown as { load(): Promise<void> }).load();
      expect(feed.current.rate('USD', 'EUR')).toBe(0.9);
    } finally {
      feed.stop();
      await rates.close();
    }
  });
});
