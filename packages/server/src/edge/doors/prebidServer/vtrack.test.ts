import { describe, expect, it } from 'vitest';
import { type Decision } from '../../tracking/trackingToken.js';
import { ourImpression, trackedVast, type VtrackContext, type VtrackPut } from './vtrack.js';

const ORIGIN = 'https://ads.example.com';
/** A signer whose only good token is `good.token`. */
const signer = { verify: (token: string): Decision | null => (token === 'good.token' ? ({} as Decision) : null) };
const ctx: VtrackContext = { origin: ORIGIN, account: 'acct-1', integration: 'pbjs', signer, nowS: 1_760_000_000 };
const OURS = `${ORIGIN}/ev?e=impression&t=good.token&b=n1&bs=s1`;
const put = (vast: string): VtrackPut => ({
  bidId: 'req-1',
  bidder: 'adplane',
  vast,
  ttlSeconds: null,
  timestamp: 1_760_000_000_000,
});

const ad = (id: string, impressions: string) =>
  `<Ad id="${id}"><InLine><AdSystem>S</AdSystem><AdTitle>T</AdTitle>${impressions}</InLine></Ad>`;
const vast = (...ads: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<VAST version="4.2" xmlns="http://www.iab.com/VAST">${ads.join('\n')}</VAST>`;
/** Prebid Server's impression event for put(), our token and notices in it. */
const EVENT =
  '<Impression><![CDATA[https://ads.example.com/event?t=imp&b=req-1&a=acct-1&bidder=adplane&f=b&int=pbjs&ts=1760000000000&tk=good.token&n=b%3Dn1%26bs%3Ds1]]></Impression>';
/** `doc` with the event right after the first `after` in it. */
const withEventAfter = (doc: string, after: string) => {
  const i = doc.indexOf(after) + after.length;
  return doc.slice(0, i) + EVENT + doc.slice(i);
};

/** /vtrack recognises our bid by our impression URL, as the VAST's reader finds it, and puts the event in that ad. */
describe('vtrack', () => {
  it('recognises our impression URL in CDATA or in text, blanks and entities as XML reads them, with its token and notices', () => {
    for (const written of [
      `<![CDATA[${OURS}]]>`,
      `\n  <![CDATA[ ${OURS} ]]>\n`,
      OURS.replaceAll('&', '&amp;'),
      OURS.replaceAll('&', '&#38;'),
    ]) {
      const doc = vast(ad('a', `<Impression id="x">${written}</Impression>`));
      expect(ourImpression(doc, ORIGIN, signer, ctx.nowS), written).toMatchObject({
        token: 'good.token',
        notices: 'b=n1&bs=s1',
      });
      expect(trackedVast(put(doc), ctx)).toEqual({ vast: withEventAfter(doc, '</Impression>'), tracked: true });
    }
  });

  it('puts the event in the ad that carries our URL, after its first <Impression> (a demand tracker before ours)', () => {
    const doc = vast(
      ad('theirs', '<Impression>https://other.example/i</Impression>'),
      ad('ours', `<Impression>https://demand.example/i</Impression><Impression><![CDATA[${OURS}]]></Impression>`),
    );
    expect(trackedVast(put(doc), ctx).vast).toBe(withEventAfter(doc, 'https://demand.example/i</Impression>'));
  });

  it('takes no commented-out, CDATA-quoted or Extension URL for ours, nor a forged token, nor a VAST that has its event', () => {
    const notOurs = [
      vast(
        ad(
          'a',
          `<!-- <Impression><![CDATA[${OURS}]]></Impression> --><Impression>https://other.example/i</Impression>`,
        ),
      ),
      vast(
        ad(
          'a',
          `<Description><![CDATA[<Impression>${OURS}</Impression>]]></Description><Impression>https://other.example/i</Impression>`,
        ),
      ),
      vast(
        `<Ad><InLine><AdSystem>S</AdSystem><Impression>https://other.example/i</Impression><Extensions><Extension><Impression><![CDATA[${OURS}]]></Impression></Extension></Extensions></InLine></Ad>`,
      ),
      vast(ad('a', `<Impression><![CDATA[${OURS.replace('good.token', 'forged.token')}]]></Impression>`)),
      vast(
        ad(
          'a',
          `<Impression><![CDATA[${OURS}]]></Impression><Impression><![CDATA[${ORIGIN}/event?t=imp&b=x&a=acct-1&tk=good.token]]></Impression>`,
        ),
      ),
      // not well-formed (a bare &): stored as posted
      vast(ad('a', `<Impression>${OURS}</Impression>`)),
    ];
    for (const doc of notOurs) {
      expect(ourImpression(doc, ORIGIN, signer, ctx.nowS), doc).toBeNull();
      expect(trackedVast(put(doc), ctx), doc).toEqual({ vast: doc, tracked: false });
    }
    // nothing is recognised without the edge's signer
    const ours = vast(ad('a', `<Impression><![CDATA[${OURS}]]></Impression>`));
    expect(trackedVast(put(ours), { ...ctx, signer: null })).toEqual({ vast: ours, tracked: false });
  });

  it("keeps a comment holding an <Impression> before ours as it is, the event after the ad's first real one", () => {
    const doc = vast(
      ad(
        'a',
        `<!-- was: <Impression>https://old.example/i</Impression> -->\n<Impression id="1" ><![CDATA[${OURS}]]></Impression >`,
      ),
    );
    expect(trackedVast(put(doc), ctx).vast).toBe(withEventAfter(doc, '</Impression >'));
  });
});
