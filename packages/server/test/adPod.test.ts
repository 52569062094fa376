import { describe, expect, it } from 'vitest';
import { type DecisionTrace } from '@adplane/shared';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { forEachStore } from './helpers.js';
import { publisherTenant, type PublisherTenant } from './tenantFixture.js';
import { clientAds, schemaErrors } from './vastSchema.js';
import { edgeRequest } from './edgeClient.js';

/**
 * Ad pods through the real app (edge/decision/adPod.ts): a VAST request asking for an ad break
 * (`pod_max_ads`, `pod_max_dur`) gets one document of several ads in sequence, each its own
 * decision, none repeating a campaign, an advertiser or a video of the break, all within its length.
 */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const US_IP = '8.8.8.8';

forEachStore((t) => {
  const spot = (p: PublisherTenant, name: string, seconds: number, adomain: string) =>
    p.create(name, 'creatives', {
      name,
      format: 'video',
      videoSource: 'media',
      approval: 'approved',
      adomain: [adomain],
      mediaFiles: [
        {
          url: `https://cdn.example.com/${name}.mp4`,
          mime: 'video/mp4',
          duration: seconds,
          width: 640,
          height: 360,
          bitrate: 800,
        },
      ],
    });
  const publisher = publisherTenant(
    t,
    async (p) => {
      const advertiser = (name: string) =>
        p.create(name, 'advs', {
          name: `${name} (pods)`,
          username: `${name}-pods-${t.dialect}`,
          email: `${name}-pods@example.com`,
          password: 'correct horse battery',
        });
      const acme = await advertiser('acme');
      const globex = await advertiser('globex');
      // bids: acme's two campaigns first, then globex, then a 30 s spot of a third brand
      await p.create('acmeHigh', 'campaigns', {
        name: 'Acme high',
        startDate: day(-1),
        bidCpm: 20_000_000,
        channelScope: 'all',
        advertiserId: acme.id,
        creativeIds: [(await spot(p, 'acmeOne', 15, 'acme.example')).id],
      });
      await p.create('acmeLow', 'campaigns', {
        name: 'Acme low',
        startDate: day(-1),
        bidCpm: 19_000_000,
        channelScope: 'all',
        advertiserId: acme.id,
        creativeIds: [(await spot(p, 'acmeTwo', 15, 'acme.example')).id],
      });
      await p.create('globexCamp', 'campaigns', {
        name: 'Globex',
        startDate: day(-1),
        bidCpm: 18_000_000,
        channelScope: 'all',
        advertiserId: globex.id,
        creativeIds: [(await spot(p, 'globexOne', 15, 'globex.example')).id],
      });
      await p.create('long', 'campaigns', {
        name: 'Initech long',
        startDate: day(-1),
        bidCpm: 17_000_000,
        channelScope: 'all',
        creativeIds: [(await spot(p, 'initechLong', 30, 'initech.example')).id],
      });
      await p.vastChannel('pod', 'CTV pods', { timeoutMs: 2000 });
      await p.vastChannel('pod3', 'CTV pods (VAST 3)', { vastVersion: '3.0', timeoutMs: 2000 });
      await p.vastChannel('pod2', 'Old player (VAST 2)', { vastVersion: '2.0', timeoutMs: 2000 });
      // a demand tag whose every answer is the same video, above every campaign: it may fill one slot only
      await p.vastTag('tag', 'Same spot demand', {
        answer: 'inline?price=30&duration=10',
        price: { revshare: 100 },
        timeoutMs: 1000,
      });
      await p.vastChannel('withTag', 'CTV pods with demand', { vastVersion: '4.1', timeoutMs: 2000, demand: ['tag'] });
      await p.rtbTag('rtb', 'Pod RTB', 'name=pod&price=40');
      // an RTB bidder under acme's campaign, for acme's domain, its VAST a wrapper (no <Advertiser> to read)
      await p.rtbTag('acmeBidder', 'Acme via RTB', 'name=acmebid&price=19.5&adomain=acme.example&adm=wrapper');
      await p.vastChannel('withAcmeBidder', 'CTV pods, acme via RTB', { timeoutMs: 2000, demand: ['acmeBidder'] });
      await p.vastChannel('checked', 'CTV pods, IVT blocked', { timeoutMs: 2000, blockInvalidTraffic: true });
      await p.create('supplier', 'sups', {
        name: 'CTV exchange (pods)',
        qpsLimit: 'unlimited',
        marginPercent: 0,
        formats: ['video'],
      });
      await p.vastChannel('withRtb', 'CTV pods with RTB', { timeoutMs: 2000, demand: ['rtb'] });
    },
    { listen: false, programmatic: {}, vastDemand: true },
  );
  const { ids } = publisher;

  const debug = async (uid: string, query: string) => {
    const res = await publisher.request({ method: 'GET', url: `/vast/${uid}?w=640&h=360&ip=${US_IP}&debug=1${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { status: number; vast: string; trace: DecisionTrace };
  };
  const sequences = (xml: string) => [...xml.matchAll(/<Ad sequence="(\d+)"/g)].map((m) => Number(m[1]));
  const media = (xml: string) => [...xml.matchAll(/cdn\.example\.com\/(\w+)\.mp4/g)].map((m) => m[1]);

  it("answers an ad break with its ads in sequence, no advertiser twice, within the break's length; XSD-valid and read by a VAST client", async () => {
    const { vast: xml, trace } = await debug(ids.pod!.uid, '&pod_max_ads=4&pod_max_dur=60');
    expect(schemaErrors('4.2', xml)).toBe('');
    expect(sequences(xml)).toEqual([1, 2, 3]);
    // acme's second campaign is left out (acme is in the break); initech's 30 s fits the 30 s left
    expect(media(xml)).toEqual(['acmeOne', 'globexOne', 'initechLong']);
    const ads = clientAds(xml).ads as { sequence: number | null; impressionURLTemplates: { url: string }[] }[];
    expect(ads.map((a) => Number(a.sequence))).toEqual([1, 2, 3]);
    // each ad its own decision: its own token in its trackers
    const tokens = ads.map((a) => new URL(a.impressionURLTemplates[0]!.url).searchParams.get('t'));
    expect(new Set(tokens).size).toBe(3);
    expect(trace.pod!.map((s) => [s.sequence, s.result, s.winner?.id, s.maxDurationS, s.durationS])).toEqual([
      [1, 'filled', ids.acmeHigh!.id, 60, 15],
      [2, 'filled', ids.globexCamp!.id, 45, 15],
      [3, 'filled', ids.long!.id, 30, 30],
    ]);
    // the break is full: no fourth slot was decided
    expect(trace.pod).toHaveLength(3);
  });

  it("stops at the break's length and at the ads asked; counts each ad's impression", async () => {
    const short = await debug(ids.pod!.uid, '&pod_max_ads=4&pod_max_dur=35');
    expect(media(short.vast)).toEqual(['acmeOne', 'globexOne']);
    // the third slot had 5 s left: no ad that short, and the break ends there
    expect(short.trace.pod!.map((s) => [s.result, s.maxDurationS])).toEqual([
      ['filled', 35],
      ['filled', 20],
      ['no_demand', 5],
    ]);
    // the slot that ended the break was no request of its own and never offered: no row of zeros for it
    await publisher.app.edge.flush();
    const [zeros] = await publisher.app.stats.select(
      `SELECT count(*) AS n FROM ${STATS_TABLE} WHERE channel_id = ${ids.pod!.id} AND tag_id = 0 AND campaign_id = 0 AND reqs = 0 AND opps = 0`,
    );
    expect(Number(zeros?.n)).toBe(0);
    const two = await debug(ids.pod!.uid, '&pod_max_ads=2');
    expect(media(two.vast)).toEqual(['acmeOne', 'globexOne']);
    // one ad asked is the plain answer: no sequence, no pod in the trace
    const one = await debug(ids.pod!.uid, '&pod_max_ads=1');
    expect(sequences(one.vast)).toEqual([]);
    expect(one.trace.pod).toBeUndefined();

    // each ad's impression beacon counts: the player fires one per ad
    const sums = async () => {
      await publisher.app.edge.flush();
      const [row] = await publisher.app.stats.select(
        `SELECT sum(imps) AS imps, sum(reqs) AS reqs, sum(opps) AS opps FROM ${STATS_TABLE} WHERE channel_id = ${ids.pod!.id}`,
      );
      return { imps: Number(row?.imps ?? 0), reqs: Number(row?.reqs ?? 0), opps: Number(row?.opps ?? 0) };
    };
    const imps = async () => (await sums()).imps;
    const counted = await sums();
    const res = await edgeRequest(publisher.app, {
      method: 'GET',
      url: `/vast/${ids.pod!.uid}?w=640&h=360&ip=${US_IP}&pod_max_ads=3&pod_max_dur=45`,
    });
    const ads = clientAds(res.body).ads as { impressionURLTemplates: { url: string }[] }[];
    expect(ads).toHaveLength(3);
    // the break is one request received, and three opportunities (its slots decided)
    const after = await sums();
    expect([after.reqs - counted.reqs, after.opps - counted.opps]).toEqual([1, 3]);
    const before = after.imps;
    for (const ad of ads) {
      const url = new URL(ad.impressionURLTemplates[0]!.url);
      expect(
        (await edgeRequest(publisher.app, { method: 'GET', url: `${url.pathname}${url.search}` })).statusCode,
      ).toBe(200);
    }
    expect((await imps()) - before).toBe(3);
  });

  it('answers pods in VAST 3.0, and one ad to a VAST 2.0 channel (pods came with 3.0)', async () => {
    const v3 = await edgeRequest(publisher.app, {
      method: 'GET',
      url: `/vast/${ids.pod3!.uid}?w=640&h=360&ip=${US_IP}&pod_max_ads=3&pod_max_dur=45`,
    });
    expect(schemaErrors('3.0', v3.body)).toBe('');
    expect(sequences(v3.body)).toEqual([1, 2, 3]);
    const v2 = await edgeRequest(publisher.app, {
      method: 'GET',
      url: `/vast/${ids.pod2!.uid}?w=640&h=360&ip=${US_IP}&pod_max_ads=3`,
    });
    expect(schemaErrors('2.0', v2.body)).toBe('');
    expect(sequences(v2.body)).toEqual([]);
    expect(media(v2.body)).toEqual(['acmeOne']);
  });

  it('lets a demand tag fill one slot, and refuses its same video in the next (pod_repeat), where a campaign fills', async () => {
    const { vast: xml, trace } = await debug(ids.withTag!.uid, '&pod_max_ads=3&pod_max_dur=60');
    expect(schemaErrors('4.1', xml)).toBe('');
    expect(sequences(xml)).toEqual([1, 2, 3]);
    expect(xml.indexOf(`${publisher.vastDemand.url}/media/spot.mp4`)).toBeGreaterThan(0);
    expect(xml.split(`${publisher.vastDemand.url}/media/spot.mp4`)).toHaveLength(2);
    expect(trace.pod!.map((s) => s.winner?.source)).toEqual(['vast_tag', 'campaign', 'campaign']);
    // the trace of the first slot is the answer's own; the tag's refusal in the later ones is counted with its reason
    expect(trace.winner).toMatchObject({ source: 'vast_tag', id: ids.tag!.id });
    await publisher.app.edge.flush();
    const [row] = await publisher.app.stats.select(
      `SELECT sum(source_reqs) AS n FROM ${STATS_TABLE} WHERE tag_id = ${ids.tag!.id} AND nofill_reason = 'pod_repeat'`,
    );
    expect(Number(row?.n)).toBe(2);
    expect(trace.pod![0]!.durationS).toBe(10);
  });

  it('asks OpenRTB demand for one ad of the pod: the pod id, the slot position it can count on, the length the slot allows', async () => {
    const { vast: xml, trace } = await debug(ids.withRtb!.uid, '&pod_max_ads=3&pod_max_dur=70');
    expect(schemaErrors('4.2', xml)).toBe('');
    // the bid's video (10 s) fills the first slot; its same video is refused in the next ones
    expect(trace.pod!.map((s) => s.winner?.source)).toEqual(['rtb_tag', 'campaign', 'campaign']);
    const videos = publisher.bidders
      .requestsOf('pod')
      .slice(-3)
      .map((r) => r.body.imp[0]!.video!);
    expect(videos.map((v) => [v.slotinpod, v.maxduration])).toEqual([
      [1, 70],
      [0, 60],
      [-1, 45],
    ]);
    expect(new Set(videos.map((v) => v.podid)).size).toBe(1);
    expect(videos[0]!.podid).toMatch(/^[0-9a-f-]{36}$/);
    // the refused bids hear why (200, "creative filtered": the very video the break already has)
    await publisher.bidders.waitForNotices('/notice/loss', 2);
    expect(
      publisher.bidders.notices.filter((n) => n.pathname === '/notice/loss').map((n) => n.searchParams.get('loss')),
    ).toEqual(['200', '200']);
  });

  it('bids on an OpenRTB 2.6 ad pod (imps sharing video.podid) with no campaign or advertiser twice; imps of no pod stay independent', async () => {
    const video = (podid?: string, slotinpod?: number) => ({
      mimes: ['video/mp4'],
      w: 640,
      h: 360,
      maxduration: 30,
      ...(podid ? { podid, slotinpod } : {}),
    });
    const request = (imps: object[]) => ({
      id: `pod-${Math.random()}`,
      imp: imps,
      site: { domain: 'tv.example.com' },
      device: { ip: US_IP, ua: 'Roku/DVP-12.0' },
    });
    const post = async (body: object) => {
      const res = await edgeRequest(publisher.app, {
        method: 'POST',
        url: `/rtb/bid/${ids.supplier!.uid}`,
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(200);
      const answer = res.json() as { seatbid: { bid: { impid: string; cid?: string; adomain?: string[] }[] }[] };
      return new Map(answer.seatbid.flatMap((s) => s.bid).map((b) => [b.impid, b]));
    };
    const pod = await post(
      request([1, 2, 3].map((n) => ({ id: `s${n}`, video: video('break-1', n === 1 ? 1 : n === 3 ? -1 : 0) }))),
    );
    expect([...pod.keys()].sort()).toEqual(['s1', 's2', 's3']);
    expect(['s1', 's2', 's3'].map((i) => pod.get(i)!.cid)).toEqual(
      [ids.acmeHigh!.id, ids.globexCamp!.id, ids.long!.id].map(String),
    );
    // the same impressions, no pod: each takes the best campaign
    const apart = await post(request([1, 2].map((n) => ({ id: `a${n}`, video: video() }))));
    expect(['a1', 'a2'].map((i) => apart.get(i)!.cid)).toEqual([ids.acmeHigh!.id, ids.acmeHigh!.id].map(String));
  });

  describe('OpenRTB 2.6 dynamic pods (video.poddur, maxseq)', () => {
    type Answered = { impid: string; cid?: string; dur?: number; price: number };
    const ask = async (imps: object[]) => {
      const res = await edgeRequest(publisher.app, {
        method: 'POST',
        url: `/rtb/bid/${ids.supplier!.uid}`,
        payload: {
          id: `dyn-${Math.random()}`,
          imp: imps,
          site: { domain: 'tv.example.com' },
          device: { ip: US_IP, ua: 'Roku/DVP-12.0' },
        },
      });
      if (res.statusCode === 204) return [];
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { seatbid: { bid: Answered[] }[] }).seatbid.flatMap((s) => s.bid);
    };
    const dynamic = (video: object, extra: object = {}) => ({
      id: 'break',
      video: { mimes: ['video/mp4'], w: 640, h: 360, podid: 'preroll', ...video },
      ...extra,
    });
    const cids = (bids: Answered[]) => bids.map((b) => Number(b.cid));

    it('bids several ads for one impression, each its length, no advertiser twice, all within poddur', async () => {
      const bids = await ask([dynamic({ maxduration: 30, poddur: 60, maxseq: 4 })]);
      // acme's second campaign is refused (acme has a slot): globex, then the 30 s spot fills the minute
      expect(cids(bids)).toEqual([ids.acmeHigh!.id, ids.globexCamp!.id, ids.long!.id]);
      expect(bids.map((b) => [b.impid, b.dur])).toEqual([
        ['break', 15],
        ['break', 15],
        ['break', 30],
      ]);
      expect(new Set(bids.map((b) => (b as { id?: string }).id)).size).toBe(3);
      // a shorter break: the 30 s spot no longer fits the 15 s left; a shorter ad of another brand takes them
      const shorter = await ask([dynamic({ maxduration: 30, poddur: 45 })]);
      expect(cids(shorter).slice(0, 2)).toEqual([ids.acmeHigh!.id, ids.globexCamp!.id]);
      expect(cids(shorter)).not.toContain(ids.long!.id);
      expect(shorter.reduce((sum, b) => sum + b.dur!, 0)).toBeLessThanOrEqual(45);
      // maxseq caps the ads
      expect(cids(await ask([dynamic({ maxduration: 30, poddur: 60, maxseq: 1 })]))).toEqual([ids.acmeHigh!.id]);
      // the impression is one request on the supplier's row, each ad an opportunity
      const supplierSums = async () => {
        await publisher.app.edge.flush();
        const [row] = await publisher.app.stats.select(
          `SELECT sum(reqs) AS reqs, sum(opps) AS opps FROM ${STATS_TABLE} WHERE supplier_id = ${ids.supplier!.id}`,
        );
        return [Number(row?.reqs ?? 0), Number(row?.opps ?? 0)];
      };
      const [reqs, opps] = await supplierSums();
      expect(await ask([dynamic({ maxduration: 30, poddur: 60, maxseq: 4 })])).toHaveLength(3);
      const [reqsAfter, oppsAfter] = await supplierSums();
      expect([reqsAfter - reqs, oppsAfter - opps]).toEqual([1, 3]);
    });

    it('keeps to rqddurs and to a floor per second (mincpmpersec)', async () => {
      // only 30 s ads: the one 30 s spot, once
      expect(cids(await ask([dynamic({ rqddurs: [30], poddur: 60 })]))).toEqual([ids.long!.id]);
      // $0.60 a second: the 15 s spots ($20, $18) pass, the 30 s one ($17 < $18) is refused in the
      // auction, and a spot that does reach the floor takes the third slot instead
      const bids = await ask([dynamic({ maxduration: 30, poddur: 60, mincpmpersec: 0.6 })]);
      expect(cids(bids).slice(0, 2)).toEqual([ids.acmeHigh!.id, ids.globexCamp!.id]);
      expect(cids(bids)).not.toContain(ids.long!.id);
      for (const b of bids) expect(b.price, `bid ${b.cid}`).toBeGreaterThanOrEqual(0.6 * b.dur!);
      const without = await ask([dynamic({ maxduration: 30, poddur: 60 })]);
      expect(cids(without)).toContain(ids.long!.id);
      // a single ad too: only the 30 s spot is that long, and it is below $18
      const long = {
        id: 'one',
        video: { mimes: ['video/mp4'], w: 640, h: 360, minduration: 30, maxduration: 30, mincpmpersec: 0.6 },
      };
      expect(await ask([long])).toEqual([]);
      expect(cids(await ask([{ ...long, video: { ...long.video, mincpmpersec: 0.5 } }]))).toEqual([ids.long!.id]);
    });

    it("holds a deal's bid to the deal's own floor per second, not the open auction's; a fixed-price deal to none", async () => {
      const fixed = await publisher.deal('ctvFixed', {
        name: 'CTV fixed price',
        dealId: 'CTV-FIXED',
        floor: 5,
        auctionType: 3,
      });
      await publisher.create('dealSpot', 'campaigns', {
        name: 'Deal spot',
        startDate: day(-1),
        bidCpm: 6_000_000,
        channelScope: 'all',
        dealIds: [fixed.id],
        creativeIds: [(await spot(publisher, 'dealLong', 30, 'dealbrand.example')).id],
      });
      await publisher.app.edge.snapshots.rebuild();
      // $0.60 a second would ask $18 of a 30 s ad in the open auction; the fixed-price deal's price is $5
      const imp = {
        id: 'd',
        video: { mimes: ['video/mp4'], w: 640, h: 360, minduration: 30, maxduration: 30, mincpmpersec: 0.6 },
        pmp: { private_auction: 1, deals: [{ id: 'CTV-FIXED' }] },
      };
      const bids = await ask([imp]);
      expect(bids.map((b) => [Number(b.cid), b.price, (b as { dealid?: string }).dealid])).toEqual([
        [ids.dealSpot!.id, 5, 'CTV-FIXED'],
      ]);
    });

    it('turns the floor per second into a longest ad on an RTB channel paying a fixed CPM', async () => {
      const channel = await publisher.create('rtbFixedPayout', 'channels', {
        name: 'SSP, $5 fixed payout',
        integration: 'RTB',
        format: 'video',
        vastVersion: '4.2',
        demandMode: 'auction',
        payout: { type: 'cpm', cpm: 5_000_000 },
        demand: [],
      });
      await publisher.app.edge.snapshots.rebuild();
      const bid = async (video: object) => {
        const res = await edgeRequest(publisher.app, {
          method: 'POST',
          url: `/rtb/${channel.uid}`,
          payload: {
            id: `fx-${Math.random()}`,
            imp: [{ id: '1', video: { mimes: ['video/mp4'], w: 640, h: 360, ...video } }],
            site: { domain: 'tv.example.com' },
            device: { ip: US_IP, ua: 'Roku/DVP-12.0' },
          },
        });
        return res.statusCode === 204
          ? []
          : (res.json() as { seatbid: { bid: Answered[] }[] }).seatbid.flatMap((s) => s.bid);
      };
      // $5 at $0.25 a second pays for 20 s at most: the 30 s spot cannot be bid, a 15 s one can
      expect(await bid({ minduration: 30, maxduration: 30, mincpmpersec: 0.25 })).toEqual([]);
      expect((await bid({ maxduration: 30, mincpmpersec: 0.25 })).map((b) => b.dur)).toEqual([15]);
      // at $0.10 a second, 50 s: the 30 s spot is bid
      expect(cids(await bid({ minduration: 30, maxduration: 30, mincpmpersec: 0.1 }))).toEqual([ids.long!.id]);
    });

    it('shares the separation between the structured slots and the dynamic part of a hybrid pod', async () => {
      const bids = await ask([
        {
          id: 'first',
          video: { mimes: ['video/mp4'], w: 640, h: 360, podid: 'hybrid', slotinpod: 1, maxduration: 15 },
        },
        {
          id: 'rest',
          video: { mimes: ['video/mp4'], w: 640, h: 360, podid: 'hybrid', maxduration: 30, poddur: 45, maxseq: 3 },
        },
      ]);
      expect(bids.map((b) => [b.impid, Number(b.cid)])).toEqual([
        ['first', ids.acmeHigh!.id],
        ['rest', ids.globexCamp!.id],
        ['rest', ids.long!.id],
      ]);
    });

    it('refuses a malformed pod field with a 400 naming it', async () => {
      const res = await edgeRequest(publisher.app, {
        method: 'POST',
        url: `/rtb/bid/${ids.supplier!.uid}`,
        payload: { id: 'bad', imp: [dynamic({ poddur: '60s' })] },
      }); // ('60' is read as 60, as exchanges quote numbers)
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ field: 'imp[0].video.poddur' });
      for (const rqddurs of [
        [15, 'x'],
        [0, 15],
      ]) {
        const rqd = await edgeRequest(publisher.app, {
          method: 'POST',
          url: `/rtb/bid/${ids.supplier!.uid}`,
          payload: { id: 'bad', imp: [dynamic({ rqddurs })] },
        });
        expect(rqd.statusCode).toBe(400);
        expect(rqd.json()).toMatchObject({ field: 'imp[0].video.rqddurs' });
      }
    });

    it('counts a break too short for any ad it takes as one refused request (pod_too_short)', async () => {
      const refused = async () => {
        await publisher.app.edge.flush();
        const [row] = await publisher.app.stats.select(
          `SELECT sum(reqs) AS n FROM ${STATS_TABLE} WHERE supplier_id = ${ids.supplier!.id} AND nofill_reason = 'pod_too_short'`,
        );
        return Number(row?.n ?? 0);
      };
      const before = await refused();
      expect(await ask([dynamic({ minduration: 15, maxduration: 30, poddur: 10 })])).toEqual([]);
      expect(await ask([dynamic({ rqddurs: [30], poddur: 20 })])).toEqual([]);
      expect((await refused()) - before).toBe(2);
    });
  });

  it("refuses in a later slot an OpenRTB bid for an advertiser the pod has, read from the bid's adomain", async () => {
    const { trace } = await debug(ids.withAcmeBidder!.uid, '&pod_max_ads=2');
    // acme's campaign takes the first slot; acme's bid (19.50) would beat globex (18.00) in the second
    expect(trace.pod!.map((s) => [s.winner?.source, s.winner?.id])).toEqual([
      ['campaign', ids.acmeHigh!.id],
      ['campaign', ids.globexCamp!.id],
    ]);
  });

  it('checks a pod once for invalid traffic: its slots are one request to the rate rule', async () => {
    const UA = encodeURIComponent(
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
    );
    // 20 breaks of 4 ads from one viewer in a moment: 20 requests (the rule allows 60 in 10 s), not 80
    for (let i = 0; i < 20; i++) {
      const res = await edgeRequest(publisher.app, {
        method: 'GET',
        url: `/vast/${ids.checked!.uid}?w=640&h=360&ip=73.162.1.20&ua=${UA}&pod_max_ads=4`,
      });
      expect(sequences(res.body), `break ${i + 1}`).toEqual([1, 2, 3, 4]);
    }
  });
});
