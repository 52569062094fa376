import { describe, expect, it } from 'vitest';
import { childNamed, descendantsNamed, parseXmlTree, parseXmlTreeAt, textOf, type XmlTreeNode } from './xmlTree.js';

describe('parseXmlTree', () => {
  it('reads a document after one that broke the strict parser midway, and after a sloppy one', () => {
    const good = '<VAST version="3.0"><Ad id="a"><InLine><AdTitle><![CDATA[One]]></AdTitle></InLine></Ad></VAST>';
    expect(textOf(childNamed(childNamed(childNamed(parseXmlTree(good), 'Ad'), 'InLine'), 'AdTitle'))).toBe('One');
    // a bare & breaks the strict parser midway; the forgiving one reads it
    const sloppy = parseXmlTree(
      '<VAST version="2.0"><Ad id="b"><InLine><AdTitle>Fish & Chips</AdTitle></InLine></Ad></VAST>',
    );
    expect(sloppy?.name).toBe('VAST');
    expect(sloppy?.attrs.version).toBe('2.0');
    expect(textOf(childNamed(childNamed(childNamed(sloppy, 'Ad'), 'InLine'), 'AdTitle'))).toBe('Fish & Chips');
    expect(parseXmlTree('<<<not xml')).toBeNull();
    // the strict parser is whole again: the next document is read afresh, nothing of the ones before
    const again = parseXmlTree(good.replace('One', 'Two').replace('id="a"', 'id="c"'));
    expect(again?.children).toHaveLength(1);
    expect(childNamed(again, 'Ad')?.attrs.id).toBe('c');
    expect(textOf(childNamed(childNamed(childNamed(again, 'Ad'), 'InLine'), 'AdTitle'))).toBe('Two');
    expect(again?.parent).toBeNull();
  });

  it('gives each document its own tree (one parser reused)', () => {
    const a = parseXmlTree('<VAST><Ad id="1"/></VAST>');
    const b = parseXmlTree('<VAST><Ad id="2"/><Ad id="3"/></VAST>');
    expect(a?.children.map((c) => c.attrs.id)).toEqual(['1']);
    expect(b?.children.map((c) => c.attrs.id)).toEqual(['2', '3']);
  });

  it('reads a document after a byte-order mark or blank lines before its XML declaration', () => {
    expect(parseXmlTree('\uFEFF<?xml version="1.0"?><VAST/>')?.name).toBe('VAST');
    expect(parseXmlTree('\r\n\n  <?xml version="1.0" encoding="UTF-8"?>\n<VAST version="2.0"/>')?.attrs.version).toBe(
      '2.0',
    );
  });

  it('says where each element is in the text, for a well-formed document only', () => {
    const xml =
      '\uFEFF\r\n<?xml version="1.0"?>\r\n<!-- <Ad>not one</Ad> --><VAST a="x>y" b=\'<\'><v:Ad id="😀"><![CDATA[</v:Ad>]]><Impression/><Impression ></Impression\r\n></v:Ad></VAST>';
    // (b='<' is no XML: an attribute's '<' is written &lt;)
    expect(parseXmlTreeAt(xml)).toBeNull();
    const good = xml.replace("b='<'", "b='&lt;'");
    const root = parseXmlTreeAt(good)!;
    const text = (node: XmlTreeNode) => ({
      whole: good.slice(node.at!.start, node.at!.end),
      content: good.slice(node.at!.inner, node.at!.close),
    });
    const ad = childNamed(root, 'Ad')!;
    expect(text(root).whole).toBe(good.slice(good.indexOf('<VAST')));
    expect(text(ad)).toEqual({
      whole: '<v:Ad id="😀"><![CDATA[</v:Ad>]]><Impression/><Impression ></Impression\r\n></v:Ad>',
      content: '<![CDATA[</v:Ad>]]><Impression/><Impression ></Impression\r\n>',
    });
    const [closed, open] = descendantsNamed(root, 'Impression');
    expect(text(closed!)).toEqual({ whole: '<Impression/>', content: '' });
    expect(closed!.at!.close).toBe(closed!.at!.end);
    expect(text(open!)).toEqual({ whole: '<Impression ></Impression\r\n>', content: '' });
    expect(open!.at!.close).toBeLessThan(open!.at!.end);
    // the same parser reads the next document without places, as the demand answers are read
    expect(parseXmlTree(good)?.at).toBeUndefined();
    expect(parseXmlTreeAt('<VAST version="2.0"><Ad>Fish & Chips</Ad></VAST>')).toBeNull();
  });
});
