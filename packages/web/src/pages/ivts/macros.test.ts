import { describe, expect, it } from 'vitest';
import { IVT_MACROS, IvtInput } from '@adplane/shared';
import { MACRO_INFO, insertMacro, previewPixel, unknownMacros } from './macros.js';

describe('pixel URL macros', () => {
  it('describes every macro the contract allows', () => {
    expect(Object.keys(MACRO_INFO).sort()).toEqual([...IVT_MACROS].sort());
  });

  it('inserts a macro at the cursor, replacing a selection', () => {
    expect(insertMacro('https://p.test/?ip=', 19, 19, '{{ip}}')).toEqual({
      text: 'https://p.test/?ip={{ip}}',
      caret: 25,
    });
    expect(insertMacro('a=X&b', 2, 3, '{{country}}')).toEqual({ text: 'a={{country}}&b', caret: 13 });
    // No cursor yet: at the end.
    expect(insertMacro('https://p.test/?cb=', null, null, '{{cachebuster}}').text).toBe(
      'https://p.test/?cb={{cachebuster}}',
    );
    // Out-of-range positions are clamped.
    expect(insertMacro('ab', 9, 12, '{{ip}}')).toEqual({ text: 'ab{{ip}}', caret: 8 });
  });

  it('finds the macros the ad server does not fill, as the server does', () => {
    const url = 'https://p.test/?ip={{ip}}&x={{bogus}}&y={{bogus}}&z={{ }}';
    expect(unknownMacros(url)).toEqual(['{{bogus}}', '{{ }}']);
    expect(unknownMacros('https://p.test/?ip={{ip}}&cb={{cachebuster}}')).toEqual([]);
    expect(IvtInput.safeParse({ name: 'x', vendor: 'v', urlTemplate: url }).success).toBe(false);
    expect(IvtInput.safeParse({ name: 'x', vendor: 'v', urlTemplate: 'https://p.test/?ip={{ip}}' }).success).toBe(true);
  });

  it('previews the call with example values', () => {
    expect(previewPixel('https://p.test/?ip={{ip}}&geo={{country}}&x={{bogus}}')).toBe(
      'https://p.test/?ip=203.0.113.7&geo=US&x={{bogus}}',
    );
    expect(previewPixel('https://p.test/?u={{page_url}}')).toBe(
      'https://p.test/?u=https%3A%2F%2Fexample.com%2Fwatch%2F42',
    );
  });
});
