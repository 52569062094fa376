import { describe, expect, it } from 'vitest';
import { formatReport, invalidLines, invalidMessage, listEntries, mergeImport, reportHeadline } from './importList.js';

const CSV = 'bundle\ncom.example.tv\n123456789\nnot a bundle!\ncom.example.tv\n';

describe('CSV import of an app list', () => {
  it('merges the valid entries, drops the duplicate and reports the bad lines by number', () => {
    const { text, report } = mergeImport('applists', '', CSV);
    expect(text).toBe('com.example.tv\n123456789');
    expect(report).toEqual({
      added: 2,
      duplicates: 1,
      total: 2,
      invalid: [
        { line: 1, value: 'bundle', reason: 'is not an app bundle (com.example.app) or store id' },
        { line: 4, value: 'not a bundle!', reason: 'is not an app bundle (com.example.app) or store id' },
      ],
    });
    expect(formatReport(report)).toBe(
      '2 added, 1 duplicate removed, 2 invalid lines: line 1 "bundle" is not an app bundle (com.example.app) or store id; ' +
        'line 4 "not a bundle!" is not an app bundle (com.example.app) or store id',
    );
  });

  it('keeps what was typed and counts entries already in the list as duplicates', () => {
    const { text, report } = mergeImport(
      'applists',
      'com.example.tv\nid555000111\n\n',
      '"com.example.tv",Example TV\ncom.other.app;x\n',
    );
    expect(text).toBe('com.example.tv\nid555000111\ncom.other.app');
    expect(report).toMatchObject({ added: 1, duplicates: 1, total: 3, invalid: [] });
    expect(formatReport(report)).toBe('1 added, 1 duplicate removed, 0 invalid lines');
  });

  it('compares publisher domains without case', () => {
    const { text, report } = mergeImport('publists', 'Example.com', 'example.com\nNEWS.example.org\n');
    expect(text).toBe('Example.com\nnews.example.org');
    expect(report).toMatchObject({ added: 1, duplicates: 1, total: 2 });
  });

  it('counts the entries a text holds as they will be saved', () => {
    expect(listEntries('crelists', 'cr-1\nCR-1\nbet365.com\n').items).toEqual(['cr-1', 'bet365.com']);
  });

  it('words the report and the validation message', () => {
    expect(reportHeadline({ added: 0, duplicates: 2, invalid: [], total: 0 })).toBe(
      '0 added, 2 duplicates removed, 0 invalid lines',
    );
    const many = Array.from({ length: 23 }, (_, i) => ({ line: i + 1, value: `x${i}`, reason: 'is bad' }));
    expect(invalidLines(many)).toHaveLength(21);
    expect(invalidLines(many).at(-1)).toBe('and 3 more invalid lines');
    expect(invalidMessage([])).toBeNull();
    expect(invalidMessage(many.slice(0, 1))).toBe('1 line is not valid, fix or remove it: line 1 "x0" is bad');
    expect(invalidMessage(many.slice(0, 4))).toBe(
      '4 lines are not valid, fix or remove them: line 1 "x0" is bad; line 2 "x1" is bad; line 3 "x2" is bad; and 1 more invalid line',
    );
  });
});
