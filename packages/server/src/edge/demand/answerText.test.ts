import { describe, expect, it } from 'vitest';
import { answerText } from './answerText.js';

const latin1 = (s: string) => Buffer.from(s, 'latin1');

describe('answerText', () => {
  it('reads an answer in the encoding its XML declaration names (ISO-8859-1, as European ad servers write)', () => {
    const body = latin1(
      '<?xml version="1.0" encoding="ISO-8859-1"?><VAST><AdTitle>Caf\u00e9 cr\u00e8me</AdTitle></VAST>',
    );
    expect(answerText(body, 'application/xml')).toContain('<AdTitle>Café crème</AdTitle>');
    // single quotes, blank lines first, a header without charset
    expect(answerText(latin1("\n<?xml version='1.0' encoding='iso-8859-1'?><a>\u00e9</a>"), undefined)).toContain(
      '<a>é</a>',
    );
  });

  it("takes the Content-Type's charset over the declaration, and a byte-order mark over both", () => {
    expect(
      answerText(latin1('<VAST><AdTitle>\u00e9t\u00e9</AdTitle></VAST>'), 'text/xml; charset=ISO-8859-1'),
    ).toContain('été');
    expect(
      answerText(latin1('<?xml version="1.0" encoding="UTF-8"?><a>\u00e9</a>'), 'text/xml;charset="windows-1252"'),
    ).toContain('<a>é</a>');
    const bom = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><a>é</a>', 'utf8'),
    ]);
    expect(answerText(bom, 'text/xml; charset=ISO-8859-1')).toContain('<a>é</a>');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<a>é</a>', 'utf16le')]);
    expect(answerText(utf16, undefined)).toBe('<a>é</a>');
  });

  it('reads UTF-8 when nothing says otherwise, the encoding is unknown, or UTF-16 is claimed without a byte-order mark', () => {
    const utf8 = Buffer.from('<?xml version="1.0"?><a>Café ☕</a>', 'utf8');
    expect(answerText(utf8, 'application/xml')).toContain('Café ☕');
    expect(answerText(Buffer.from('<?xml version="1.0" encoding="x-klingon"?><a>é</a>', 'utf8'), undefined)).toContain(
      '<a>é</a>',
    );
    expect(answerText(Buffer.from('<?xml version="1.0" encoding="UTF-16"?><a>é</a>', 'utf8'), undefined)).toContain(
      '<a>é</a>',
    );
  });
});
