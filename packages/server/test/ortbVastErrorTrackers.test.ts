import { expect, it } from 'vitest';
import { type DecisionTrace } from '@adplane/shared';
import { onSqliteStore } from './helpers.js';
import { publisherTenant } from './tenantFixture.js';
import { clientAds, schemaErrors } from './vastSchema.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Outbound programmatic demand whose bid's `adm` is a VAST buffet with a broken first ad (no media
 * file), through the real app: the player gets the ad that plays, and the broken ad's error tracker
 * is called with its code (401), as a player that tried it would and as a VAST demand tag's buffet is
 * reported (docs/programmatic.md, "What the player gets"). For an RTB demand tag, for Prebid Server
 * demand, and for a supplier's OpenRTB request answered through an RTB channel; an `adm` with no ad
 * to play is a counted no-fill with its VAST code, its error tracker told as well.
 */
onSqliteStore((t) => {
  const publisher = publisherTenant(
    t,
    async (publisher) => {
      const channel = { revshare: 60, auctionPrice: 'first' } as const;
      await publisher.rtbTag('buffet', 'Buffet RTB', 'name=buf&price=60&adm=buffet');
      await publisher.vastChannel('rtbChannel', 'Buffet channel', { ...channel, demand: ['buffet'] });
      await publisher.rtbTag('broken', 'Unplayable RTB', 'name=unp&price=70&adm=unplayable');
      await publisher.vastChannel('brokenChannel', 'Unplayable channel', { ...channel, demand: ['broken'] });
      await publisher.prebidTag('prebid', 'PubMatic buffet via Prebid', 'pubmaticP', {
        publisherId: '156209',
        adSlot: 'slot1@640x360',
      });
      await publisher.vastChannel('prebidChannel', 'Prebid buffet channel', { ...channel, demand: ['prebid'] });
      await publisher.rtbTag('inboundTag', 'Buffet RTB inbound', 'name=inb&price=60&adm=buffet');
      await publisher.openRtbChannel('inboundChannel', 'Inbound buffet', { demand: ['inboundTag'] });
    },
    { listen: false, programmatic: { prebidServer: 'price=60&adm=buffet' } },
  );
  const { ids } = publisher;
  const errorsOf = (name: string) =>
    publisher.bidders.notices.filter((n) => n.pathname === '/notice/error' && n.searchParams.get('name') === name);
  const settle = () => new Promise((r) => setTimeout(r, 150));

  it("serves an RTB tag's buffet's playable ad and calls the broken ad's error tracker with 401, not the played ad's", async () => {
    const res = await publisher.request({
      method: 'GET',
      url: `/vast/${ids.rtbChannel!.uid}?w=640&h=360&ip=8.8.8.8&debug=1`,
    });
    const { vast: xml, trace } = res.json() as { vast: string; trace: DecisionTrace };
    expect(trace.winner).toMatchObject({ source: 'rtb_tag', id: ids.buffet!.id });
    expect(schemaErrors('4.2', xml)).toBe('');
    expect(clientAds(xml).ads).toHaveLength(1);
    expect(xml).toContain(`${publisher.bidders.url}/notice/adm-imp?name=buf`);
    expect(xml).not.toContain('broken-imp');
    // the trace names the ping, its code filled
    const fate = trace.sources.find((s) => s.source === 'rtb_tag' && s.id === ids.buffet!.id)!;
    expect(fate.errorPings).toEqual([`${publisher.bidders.url}/notice/error?name=buf&ad=broken&code=401`]);
    // fired after the auction, once; the playable ad's own error tracker is the player's
    await expect
      .poll(() => errorsOf('buf').map((n) => [n.searchParams.get('ad'), n.searchParams.get('code')]), { timeout: 3000 })
      .toEqual([['broken', '401']]);
    await settle();
    expect(errorsOf('buf')).toHaveLength(1);
  });

  it('does the same for Prebid Server demand (a PreBid tag)', async () => {
    const res = await publisher.request({
      method: 'GET',
      url: `/vast/${ids.prebidChannel!.uid}?w=640&h=360&ip=8.8.8.8&debug=1`,
    });
    const { vast: xml, trace } = res.json() as { vast: string; trace: DecisionTrace };
    expect(trace.winner).toMatchObject({ source: 'prebid_tag', id: ids.prebid!.id });
    expect(schemaErrors('4.2', xml)).toBe('');
    await expect
      .poll(() => errorsOf('pubmatic').map((n) => [n.searchParams.get('ad'), n.searchParams.get('code')]), {
        timeout: 3000,
      })
      .toEqual([['broken', '401']]);
  });

  it("does the same for a supplier's OpenRTB request to an RTB channel", async () => {
    const request = {
      id: 'inbound-buffet',
      tmax: 1000,
      site: { page: 'https://news.example.com/v' },
      device: { ip: '8.8.8.8', ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36' },
      imp: [{ id: '1', video: { mimes: ['video/mp4'], w: 640, h: 360, protocols: [2, 3, 5, 6] } }],
    };
    const res = await edgeRequest(publisher.app, {
      method: 'POST',
      url: `/rtb/${ids.inboundChannel!.uid}`,
      payload: request,
    });
    expect(res.statusCode, res.body).toBe(200);
    const bid = (res.json() as { seatbid: { bid: { crid: string; adm: string }[] }[] }).seatbid[0]!.bid[0]!;
    expect(bid.crid).toBe('cr-inb');
    expect(bid.adm).not.toContain('broken-imp');
    await expect
      .poll(() => errorsOf('inb').map((n) => [n.searchParams.get('ad'), n.searchParams.get('code')]), { timeout: 3000 })
      .toEqual([['broken', '401']]);
  });

  it("counts an adm with no ad to play as the tag's no-fill with its VAST code, and tells its error tracker as well as its loss notice", async () => {
    const res = await publisher.request({
      method: 'GET',
      url: `/vast/${ids.brokenChannel!.uid}?w=640&h=360&ip=8.8.8.8&debug=1`,
    });
    const { trace } = res.json() as { trace: DecisionTrace };
    const fate = trace.sources.find((s) => s.source === 'rtb_tag' && s.id === ids.broken!.id)!;
    expect(fate).toMatchObject({ fate: 'no_fill', reason: 'bad_adm_no_media', vastError: 401 });
    await expect.poll(() => errorsOf('unp').map((n) => n.searchParams.get('code')), { timeout: 3000 }).toEqual(['401']);
    await expect
      .poll(
        () =>
          publisher.bidders.notices
            .filter((n) => n.pathname === '/notice/loss' && n.searchParams.get('name') === 'unp')
            .map((n) => n.searchParams.get('loss')),
        { timeout: 3000 },
      )
      .toEqual(['3']);
  });
});
