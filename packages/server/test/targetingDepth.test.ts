import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BidResponse, type DecisionTrace, RESOURCES } from '@adplane/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/settings.js';
import { edgeRequest } from './edgeClient.js';
import { forEachStore } from './helpers.js';
import { writeTestCityDb } from './mmdbWriter.js';
import { type DspTenant, expectBid, type PublisherTenant, publisherTenant } from './tenantFixture.js';

/**
 * Targeting by IP list, key-values and city, metro and postal code, end to end through the real
 * edge: the rules saved through the API (an IP list a list kind of its own, on both config stores),
 * compiled into the snapshot's index, and asked by a VAST tag call over a real socket (the viewer
 * named by X-Forwarded-For from a trusted proxy, or the tag's macros), a supplier's OpenRTB bid
 * request and a Prebid.js auction; the refusing rule named in the decision trace.
 *
 * The tenant's campaigns (each with its own spot, so the answer says which won), best bid first:
 * 'Mountain View' ($40: city, metro and postal code of the test City database's 71.10.20.0/24),
 * 'Not the office' ($30: excludes the office's IP list), 'Sports fans' ($20: key-values genre=sports
 * and tier=gold), 'Run of network' ($8, no targeting: above the demo workspace's own $6 spot).
 */
const OFFICE = ['198.51.100.0/24', '203.0.113.7', '2001:db8::/32'];
const MOUNTAIN_VIEW_IP = '71.10.20.5';
const dir = mkdtempSync(join(tmpdir(), 'adplane-targeting-'));
const { maxmindDb } = loadSettings({ ADPLANE_MAXMIND_DB: writeTestCityDb(dir) });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spot = (name: string) => `https://cdn.brand.example.com/${name}.mp4`;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';

forEachStore((t) => {
  describe('targeting by IP list, key-values, city, metro and postal code', () => {
    // a publisher that is a DSP too: its campaigns fill its player's and Prebid's requests and bid to its supplier
    const publisher = publisherTenant(
      t,
      async (tenant) => {
        const p = tenant as PublisherTenant & DspTenant;
        const office = await p.create('officeList', 'iplists', { name: 'Office network', items: OFFICE });
        const targeting = async (name: string, rules: Record<string, unknown>) =>
          p.create(name, 'targetings', { name, rules });
        await targeting('notOffice', { ipLists: { mode: 'exclude', ids: [office.id] } });
        await targeting('sportsFans', { keyValues: { mode: 'include', values: ['genre=sports', 'tier=Gold'] } });
        await targeting('mountainView', {
          cities: { mode: 'include', values: ['US-CA:Mountain View'] },
          metros: { mode: 'include', values: ['807'] },
          postalCodes: { mode: 'include', values: ['US:94043'] },
        });
        const campaign = async (name: string, bid: number, targetingName?: string) => {
          await p.videoSpot(name, {
            name,
            width: 640,
            height: 360,
            bitrate: 800,
            advertiser: 'brand.example.com',
            mediaUrl: spot(name),
          });
          await p.create(`${name} campaign`, 'campaigns', {
            name,
            startDate: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
            bidCpm: bid * 1_000_000,
            channelScope: 'all',
            creativeIds: [p.ids[name]!.id],
            ...(targetingName && { targetingId: p.ids[targetingName]!.id }),
          });
        };
        await campaign('mv', 40, 'mountainView');
        await campaign('office', 30, 'notOffice');
        await campaign('sports', 20, 'sportsFans');
        await campaign('ron', 8);
        await p.vastChannel('player', 'Targeting player', {});
        await p.prebidChannel('instream', 'Targeting instream', { format: 'video' });
        await p.supplier('exchange', 'Targeting exchange');
      },
      { trustProxy: 'loopback', settings: () => ({ maxmindDb }) },
    ) as PublisherTenant & DspTenant;

    /** Which campaign's spot a VAST tag call from `address` (X-Forwarded-For) with `query` is answered with. */
    async function vastWinner(address: string, query = ''): Promise<string> {
      const res = await edgeRequest(publisher.app, {
        url: `/vast/${publisher.ids.player!.uid}?w=640&h=360${query}`,
        remoteAddress: address,
        headers: { 'user-agent': UA },
      });
      expect(res.statusCode).toBe(200);
      return ['mv', 'office', 'sports', 'ron'].find((n) => res.body.includes(spot(n))) ?? 'none';
    }

    it('saves an IP list of addresses and ranges, refuses what is neither, and reads it back', async () => {
      const api = RESOURCES.iplists.api;
      const read = await publisher.request({ method: 'GET', url: `${api}/${publisher.ids.officeList!.id}` });
      expect(read.json().items).toEqual(OFFICE);
      const bad = await publisher.request({
        method: 'POST',
        url: api,
        payload: { name: 'Bad', items: ['10.0.0.1', '10.0.0.0/33', '2001:db8:::1', 'example.com'] },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().field).toMatch(/^items/);
      expect(JSON.stringify(bad.json())).toContain('10.0.0.0/33');
      const list = await publisher.request({ method: 'GET', url: `${api}/list` });
      expect(list.json()).toContainEqual(expect.objectContaining({ name: 'Office network', ipCount: 3 }));
      // a targeting naming it: the list is in use, and cannot be deleted under it
      const usedBy = await publisher.request({ method: 'DELETE', url: `${api}/${publisher.ids.officeList!.id}` });
      expect(usedBy.statusCode).toBe(409);
      expect(usedBy.body).toContain('notOffice');
    });

    it('refuses targeting values it cannot match, naming the field', async () => {
      for (const [field, value] of [
        ['cities', 'Mountain View'],
        ['metros', '12'],
        ['postalCodes', '94043'],
        ['keyValues', 'genre'],
      ] as const) {
        const res = await publisher.request({
          method: 'POST',
          url: RESOURCES.targetings.api,
          payload: { name: `Bad ${field}`, rules: { [field]: { mode: 'include', values: [value] } } },
        });
        expect(res.statusCode, field).toBe(400);
        expect(res.json().field).toBe(`rules.${field}`);
      }
    });

    it('VAST: the viewer address in an excluded IP list, IPv4 or IPv6, keeps the campaign out', async () => {
      expect(await vastWinner('8.8.8.8')).toBe('office');
      expect(await vastWinner('198.51.100.23')).toBe('ron');
      expect(await vastWinner('203.0.113.7')).toBe('ron');
      expect(await vastWinner('203.0.113.8')).toBe('office');
      expect(await vastWinner('2001:db8:1::5')).toBe('ron');
      expect(await vastWinner('2001:db9::5')).toBe('office');
      // the tag's ip macro names the viewer over the connection
      expect(await vastWinner('8.8.8.8', '&ip=198.51.100.7')).toBe('ron');
    });

    it("VAST: key-values from kv, cust_params or the tag's own parameters, one value of each key", async () => {
      const inOffice = '198.51.100.9';
      expect(await vastWinner(inOffice, '&kv=genre%3Dsports%26tier%3Dgold')).toBe('sports');
      expect(await vastWinner(inOffice, '&cust_params=genre%3DSports%3Btier%3Dgold')).toBe('sports');
      expect(await vastWinner(inOffice, '&genre=news,sports&tier=gold')).toBe('sports');
      expect(await vastWinner(inOffice, '&genre=sports')).toBe('ron');
      expect(await vastWinner(inOffice, '&genre=news&tier=gold')).toBe('ron');
      expect(await vastWinner(inOffice, '&genre={{genre}}&tier=gold')).toBe('ron');
    });

    it('VAST: city, metro and postal code from the MaxMind City database', async () => {
      expect(await vastWinner(MOUNTAIN_VIEW_IP)).toBe('mv');
      // the Ohio network has a region but no city: the city rule refuses it
      expect(await vastWinner('24.24.24.24')).toBe('office');
    });

    it('the decision trace names the rule that set each campaign aside, with its values and the request’s', async () => {
      const res = await publisher.request({
        method: 'GET',
        url: `/vast/${publisher.ids.player!.uid}?w=640&h=360&ip=198.51.100.9&genre=news&debug=1`,
      });
      const { trace } = res.json() as { trace: DecisionTrace };
      const aside = Object.fromEntries((trace.indexedOutCampaigns ?? []).map((c) => [c.name, c]));
      expect(aside.office).toMatchObject({
        reason: 'targeting.ip_list',
        misses: [{ rule: 'ip_list', include: false, values: ['Office network'], viewer: '198.51.100.9' }],
      });
      expect(aside.sports).toMatchObject({
        reason: 'targeting.key_value',
        misses: [{ rule: 'key_value', include: true, values: ['genre=sports', 'tier=gold'], viewer: 'genre=news' }],
      });
      expect(aside.mv?.misses.map((m) => m.rule)).toEqual(['city', 'metro', 'postal_code']);
      expect(aside.mv?.misses[0]).toMatchObject({ values: ['us-ca:mountain view'], viewer: '' });
      const here = await publisher.request({
        method: 'GET',
        url: `/vast/${publisher.ids.player!.uid}?w=640&h=360&ip=24.24.24.24&debug=1`,
      });
      const mv = (here.json() as { trace: DecisionTrace }).trace.indexedOutCampaigns?.find((c) => c.name === 'mv');
      expect(mv?.misses[0]).toMatchObject({ rule: 'city', viewer: '' });
      // the context says what the request carried
      expect(trace.context.keyValues).toEqual(['genre=news']);
      const inMountainView = await publisher.request({
        method: 'GET',
        url: `/vast/${publisher.ids.player!.uid}?w=640&h=360&ip=${MOUNTAIN_VIEW_IP}&debug=1`,
      });
      expect((inMountainView.json() as { trace: DecisionTrace }).trace.context).toMatchObject({
        country: 'US',
        usState: 'CA',
        city: 'Mountain View',
        metro: '807',
        postalCode: 'US:94043',
      });
    });

    it("OpenRTB: a supplier's bid request is targeted by its device's address and first-party data", async () => {
      const ask = async (device: Record<string, unknown>, imp: Record<string, unknown> = {}) => {
        const res = await publisher.postBidRequest(publisher.ids.exchange!.uid, {
          id: 'r1',
          imp: [{ id: '1', video: { mimes: ['video/mp4'], w: 640, h: 360, protocols: [2, 3] }, ...imp }],
          site: { domain: 'news.example.com', page: 'https://news.example.com/a' },
          device: { ua: UA, ...device },
        });
        const bid = (await expectBid(res)) as BidResponse;
        return bid.seatbid?.[0]?.bid[0]?.crid;
      };
      const cid = (name: string) => String(publisher.ids[name]!.id);
      expect(await ask({ ip: '8.8.4.4' })).toBe(cid('office'));
      expect(await ask({ ip: '203.0.113.7' })).toBe(cid('ron'));
      expect(await ask({ ipv6: '2001:db8::42' })).toBe(cid('ron'));
      expect(await ask({ ip: '203.0.113.7' }, { ext: { data: { genre: 'sports', tier: ['gold'] } } })).toBe(
        cid('sports'),
      );
      expect(await ask({ ip: MOUNTAIN_VIEW_IP })).toBe(cid('mv'));
    });

    it('Prebid: an auction from the page is targeted by the browser’s address and ortb2Imp.ext.data', async () => {
      const auction = async (address: string, data?: Record<string, unknown>) => {
        const res = await edgeRequest(publisher.app, {
          method: 'POST',
          url: '/openrtb2/auction',
          remoteAddress: address,
          headers: { 'user-agent': UA },
          payload: {
            id: 'a1',
            imp: [
              {
                id: 'div-video',
                video: { mimes: ['video/mp4'], protocols: [2, 3], w: 640, h: 360, plcmt: 1 },
                ext: {
                  prebid: { bidder: { adplane: { channel: publisher.ids.instream!.uid } } },
                  ...(data && { data }),
                },
              },
            ],
            site: { page: 'https://news.example.com/story', domain: 'news.example.com' },
            device: { ua: UA },
            tmax: 1000,
          },
        });
        expect(res.statusCode, res.body).toBe(200);
        const bid = (res.json() as BidResponse).seatbid?.[0]?.bid[0];
        return bid?.crid;
      };
      const cid = (name: string) => String(publisher.ids[name]!.id);
      expect(await auction('8.8.8.8')).toBe(cid('office'));
      expect(await auction('198.51.100.77')).toBe(cid('ron'));
      expect(await auction('198.51.100.77', { genre: 'sports', tier: 'gold' })).toBe(cid('sports'));
      expect(await auction(MOUNTAIN_VIEW_IP)).toBe(cid('mv'));
    });
  });
});
