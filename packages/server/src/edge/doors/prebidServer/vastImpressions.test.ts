import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { vastImpressions, withVastImpression } from './vastImpressions.js';

const URL_IN = 'https://ads.example.com/event?t=imp&b=1';
const EVENT = `<Impression><![CDATA[${URL_IN}]]></Impression>`;
const vast = (ads: string, head = '<VAST version="3.0">') => `${head}${ads}</VAST>`;
const inline = (body: string, id = 'a') =>
  `<Ad id="${id}"><InLine><AdSystem>S</AdSystem><AdTitle>T</AdTitle>${body}</InLine></Ad>`;

/** `xml` with `added` written in at `at` (the first occurrence of `at`, `after` it or before). */
const insertedAt = (xml: string, at: string, added: string, after = true) => {
  const i = xml.indexOf(at) + (after ? at.length : 0);
  return xml.slice(0, i) + added + xml.slice(i);
};

/** Prebid Server's impression event in a VAST (vtrack.go ModifyVastXmlString), found by the XML reader and written in by text. */
describe('withVastImpression', () => {
  it('goes in after the first <Impression>, into an empty first one, and nowhere without one', () => {
    const two = vast(
      inline('<Impression><![CDATA[https://a/1]]></Impression><Impression><![CDATA[https://a/2]]></Impression>'),
    );
    expect(withVastImpression(two, URL_IN)).toBe(insertedAt(two, '<![CDATA[https://a/1]]></Impression>', EVENT));
    const empty = vast(
      '<Ad><Wrapper><AdSystem>W</AdSystem><VASTAdTagURI>https://w/v</VASTAdTagURI><Impression></Impression></Wrapper></Ad>',
    );
    expect(withVastImpression(empty, URL_IN)).toBe(
      empty.replace('<Impression></Impression>', `<Impression><![CDATA[${URL_IN}]]></Impression>`),
    );
    // blanks only, or an empty CDATA, are as empty to a player: the URL goes in beside them
    const blank = vast(inline('<Impression id="x">\n  <![CDATA[]]>\n</Impression>'));
    expect(withVastImpression(blank, URL_IN)).toBe(insertedAt(blank, '</Impression>', `<![CDATA[${URL_IN}]]>`, false));
    // a self-closed one has no content to write in: a new one after it
    const closed = vast(inline('<Impression id="x"/>'));
    expect(withVastImpression(closed, URL_IN)).toBe(insertedAt(closed, '<Impression id="x"/>', EVENT));
    for (const none of [
      vast(inline('<ViewableImpression><Viewable>https://v/1</Viewable></ViewableImpression>')),
      '<VAST version="4.2"/>',
      '<VAST version="4.2"></VAST>',
    ]) {
      expect(withVastImpression(none, URL_IN)).toBe(none);
    }
  });

  it("finds the ad's <Impression> as XML reads it: not one in a comment, a CDATA section or an Extension; attributes, blanks, prefixes as written", () => {
    // a commented-out impression, and the text of one in a CDATA section, before the real one
    const commented = vast(
      inline(
        '<!-- <Impression>https://old/1</Impression> --><Description><![CDATA[ends with </Impression>]]></Description><Impression>https://a/1</Impression>',
      ),
    );
    expect(withVastImpression(commented, URL_IN)).toBe(insertedAt(commented, 'https://a/1</Impression>', EVENT));
    // an attribute with '>' in it, an end tag with a blank and a line break
    const attrs = vast(inline('<Impression id="a>b" \n>\n  https://a/1?x=1&amp;y=2\n</Impression\n>'));
    expect(vastImpressions(attrs)?.map((i) => i.url)).toEqual(['https://a/1?x=1&y=2']);
    expect(withVastImpression(attrs, URL_IN)).toBe(insertedAt(attrs, '</Impression\n>', EVENT));
    // an Extension's own <Impression> (any XML goes there) is not the ad's
    const extension = vast(
      '<Ad><InLine><AdSystem>S</AdSystem><Extensions><Extension type="x"><Impression>https://ext/1</Impression></Extension></Extensions><Impression>https://a/1</Impression></InLine></Ad>',
    );
    expect(vastImpressions(extension)?.map((i) => i.url)).toEqual(['https://a/1']);
    expect(withVastImpression(extension, URL_IN)).toBe(insertedAt(extension, 'https://a/1</Impression>', EVENT));
    // a namespace prefix: the new element is written with it
    const prefixed =
      '<v:VAST xmlns:v="http://www.iab.com/VAST" version="4.2"><v:Ad><v:InLine><v:Impression><![CDATA[https://a/1]]></v:Impression></v:InLine></v:Ad></v:VAST>';
    expect(withVastImpression(prefixed, URL_IN)).toBe(
      insertedAt(prefixed, '</v:Impression>', `<v:Impression><![CDATA[${URL_IN}]]></v:Impression>`),
    );
  });

  it('goes in the first ad that has an <Impression>, in its own', () => {
    const pod = vast(
      `<Ad id="none"><InLine><AdSystem>S</AdSystem></InLine></Ad>${inline('<Impression>https://b/1</Impression>', 'b')}${inline('<Impression>https://c/1</Impression>', 'c')}`,
    );
    expect(vastImpressions(pod)?.map((i) => [i.ad, i.url])).toEqual([
      [1, 'https://b/1'],
      [2, 'https://c/1'],
    ]);
    expect(withVastImpression(pod, URL_IN)).toBe(insertedAt(pod, 'https://b/1</Impression>', EVENT));
  });

  it('leaves what is not well-formed VAST as it is (Prebid Server would write in it by text)', () => {
    for (const sloppy of [
      vast(inline('<AdTitle>Fish & Chips</AdTitle><Impression>https://a/1</Impression>')),
      '<VideoAdServingTemplate><Ad><InLine><Impression>https://a/1</Impression></InLine></Ad></VideoAdServingTemplate>',
      'not xml',
    ]) {
      expect(vastImpressions(sloppy)).toBeNull();
      expect(withVastImpression(sloppy, URL_IN)).toBe(sloppy);
    }
  });

  it('keeps every demand sample byte for byte but for the event, which a reader finds in its first ad (VAST 2.0 to 4.2, BOM, pods, wrappers)', () => {
    const dir = new URL('../../../../test/fixtures/vast/demand/', import.meta.url);
    let changed = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.xml'))) {
      const xml = readFileSync(new URL(file, dir), 'utf8');
      const out = withVastImpression(xml, URL_IN);
      const before = vastImpressions(xml);
      if (!before?.length) {
        expect(out, file).toBe(xml);
        continue;
      }
      changed++;
      const first = before[0]!;
      // (bom-prefixed.xml's elements are vast:Impression and so on: the new one too)
      const tag = /^<([^\s/>]+)/.exec(xml.slice(first.at.start))![1];
      const added = first.url ? `<${tag}><![CDATA[${URL_IN}]]></${tag}>` : `<![CDATA[${URL_IN}]]>`;
      const at = first.url ? first.at.end : first.at.close;
      expect(out, file).toBe(xml.slice(0, at) + added + xml.slice(at));
      const after = vastImpressions(out)!;
      expect(
        after.filter((i) => i.url === URL_IN).map((i) => i.ad),
        file,
      ).toEqual([first.ad]);
      expect(
        after.filter((i) => i.url !== URL_IN).map((i) => i.url),
        file,
      ).toEqual(before.slice(first.url ? 0 : 1).map((i) => i.url));
    }
    expect(changed).toBeGreaterThan(30);
    // the samples this is about: a 2.0 inline whose first Impression has an id and its URL on lines of its own, and a 4.2 wrapper
    const v2 = readFileSync(new URL('iab20-inline-linear.xml', dir), 'utf8');
    expect(withVastImpression(v2, URL_IN)).toBe(insertedAt(v2, ']]>\n\t\t</Impression>', EVENT));
    const wrapper = readFileSync(new URL('iab42-wrapper.xml', dir), 'utf8');
    expect(withVastImpression(wrapper, URL_IN)).toBe(
      insertedAt(wrapper, '<![CDATA[__DEMAND__/t/wrapper-impression]]></Impression>', EVENT),
    );
  });
});
