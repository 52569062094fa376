import { describe, expect, it } from 'vitest';
import { prebidPublisher } from './tenantFixture.js';
import { forEachStore } from './helpers.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Requests Prebid Server accepts that a Prebid Server client may send, through the real app:
 * - `ext.prebid.targeting` with includewinners and includebidderkeys both false: Prebid Server Go's
 *   sample endpoints/openrtb2/sample-requests/valid-whole/exemplary/targeting-optional-all-false.json
 *   answers it 200 with the bids and no targeting keys (its request validation no longer asks for one
 *   of them);
 * - an alias of adplane declared with the bidder code in another case (`{ "mybidder": "AdPlane" }`):
 *   Prebid Server normalises an alias's bidder (openrtb_ext.NormalizeBidderName) as it does a bidder
 *   named in an impression;
 * - `ext.prebid.bidadjustmentfactors` (a publisher's gross-to-net adjustment, `s2sConfig.extPrebid`):
 *   the bid's price (and so hb_pb, and the floor's check) is multiplied by adplane's factor (its code
 *   in any case, Prebid Server's bid-adj-factors-case-insensitive sample), Prebid Server Java's media
 *   type factor first; `origbidcpm` stays the price before it; a factor that is not above 0 is a 400.
 */
type Obj = Record<string, unknown>;
interface Answer {
  seatbid: {
    seat: string;
    bid: { impid: string; price: number; ext: { prebid: { targeting?: Record<string, string> } } }[];
  }[];
  ext: { warnings?: unknown; errors?: unknown };
}

forEachStore((t) => {
  const publisher = prebidPublisher(t, {
    label: 'Compat',
    imageUrl: 'https://cdn.example.com/c300x250.png',
    mediaUrl: 'https://cdn.example.com/compat.mp4',
    listen: false,
  });
  const { ids } = publisher;

  const request = (imp: Obj, prebid: Obj): Obj => ({
    id: 'compat-1',
    site: { page: 'https://news.example.com/story', publisher: { id: 'acct-1' } },
    device: { ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0.0.0 Safari/537.36' },
    tmax: 1000,
    imp: [{ id: 'div-1', banner: { format: [{ w: 300, h: 250 }] }, ...imp }],
    ext: { prebid },
  });
  const auction = async (body: Obj) => {
    const res = await edgeRequest(publisher.app, {
      method: 'POST',
      url: '/openrtb2/auction',
      payload: JSON.stringify(body),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Answer;
  };

  describe('what Prebid Server accepts', () => {
    it('answers targeting with includewinners and includebidderkeys both false with the bid and no keys, as Prebid Server Go', async () => {
      const body = await auction(
        request(
          { ext: { prebid: { bidder: { adplane: { channel: ids.display!.uid } } } } },
          { targeting: { includewinners: false, includebidderkeys: false, includeformat: false } },
        ),
      );
      expect(body.seatbid).toHaveLength(1);
      const bid = body.seatbid[0]!.bid[0]!;
      expect(bid).toMatchObject({ impid: 'div-1', price: 3.5 });
      expect(bid.ext.prebid.targeting).toBeUndefined();
      expect(body.ext.errors).toBeUndefined();
    });

    it('reads an alias declared with the bidder code in another case ("AdPlane") as adplane\'s', async () => {
      const body = await auction(
        request(
          { ext: { prebid: { bidder: { mybidder: { channel: ids.display!.uid } } } } },
          { aliases: { mybidder: 'AdPlane' }, targeting: { includewinners: true, includebidderkeys: false } },
        ),
      );
      expect(body.ext.warnings).toBeUndefined();
      expect(body.seatbid).toHaveLength(1);
      expect(body.seatbid[0]!.seat).toBe('mybidder');
      expect(body.seatbid[0]!.bid[0]!.ext.prebid.targeting!.hb_bidder).toBe('mybidder');
    });

    it('multiplies the bid by the bid adjustment factor before the price bucket and the floor', async () => {
      const imp = { ext: { prebid: { bidder: { adplane: { channel: ids.display!.uid } } } } };
      const targeting = { includewinners: true, includebidderkeys: false };
      // $5.00 campaign at 70%: the publisher's $3.50, adjusted by 0.6
      const adjusted = await auction(
        request(imp, { targeting, bidadjustmentfactors: { AdPlane: 0.6, appnexus: 0.9 } }),
      );
      const bid = adjusted.seatbid[0]!.bid[0]! as Answer['seatbid'][number]['bid'][number] & {
        ext: { origbidcpm: number };
      };
      expect(bid.price).toBe(2.1);
      expect(bid.ext.prebid.targeting!.hb_pb).toBe('2.10');
      expect(bid.ext.origbidcpm).toBe(3.5);
      // Prebid Server Java's media type factor comes before the bidder's
      const byType = await auction(
        request(imp, { targeting, bidadjustmentfactors: { adplane: 0.8, mediatypes: { banner: { adplane: 0.5 } } } }),
      );
      expect(byType.seatbid[0]!.bid[0]!.price).toBe(1.75);
      // the adjusted price meets the floor: under it, no bid
      const floored = await auction(
        request({ ...imp, bidfloor: 3 }, { targeting, bidadjustmentfactors: { adplane: 0.6 } }),
      );
      expect(floored.seatbid).toEqual([]);
      const bad = await edgeRequest(publisher.app, {
        method: 'POST',
        url: '/openrtb2/auction',
        payload: JSON.stringify(request(imp, { bidadjustmentfactors: { adplane: 0 } })),
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toMatch(/ext\.prebid\.bidadjustmentfactors\.adplane must be a positive number/);
    });
  });
});
