import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type DecisionTrace } from '@adplane/shared';
import { STATS_TABLE } from '../src/stats/statsStore.js';
import { buildTestApp, createAs, onSqliteStore, login } from './helpers.js';
import { loadSettings } from '../src/settings.js';
import { writeTestCityDb } from './mmdbWriter.js';
import { clientAds, schemaErrors } from './vastSchema.js';
import { exchange } from './rawHttp.js';
import { publisherTenant } from './tenantFixture.js';
import { edgePort, edgeRequest } from './edgeClient.js';

const US_IP = '8.8.8.8';

onSqliteStore((t) => {
  const publisher = publisherTenant(
    t,
    async (p) => {
      await p.create('creative', 'creatives', {
        name: 'Spring spot',
        format: 'video',
        videoSource: 'media',
        approval: 'approved',
        clickUrl: 'https://brand.example.com/spring',
        mediaFiles: [
          {
            url: 'https://cdn.example.com/spring.mp4',
            mime: 'video/mp4',
            duration: 15,
            width: 640,
            height: 360,
            bitrate: 800,
          },
        ],
      });
      await p.campaign('campaign', { name: 'Spring', bid: 7, creatives: ['creative'] });
      await p.vastTag('share', 'Local share', {
        answer: 'inline?price=8&w={{width}}&ip={{ip}}',
        price: { revshare: 50 },
        timeoutMs: 1000,
      });
      await p.vastTag('hang', 'Hanging', { answer: 'hang', price: { cpm: 9 }, timeoutMs: 200 });
      await p.vastTag('junk', 'Garbage', { answer: 'garbage', price: { cpm: 9 } });
      const tiers = [['share'], ['hang'], ['junk']];
      await p.vastChannel('auction', 'Auction CTV', { timeoutMs: 2000, revshare: 70, demand: tiers });
      await p.vastChannel('waterfall', 'Waterfall', {
        vastVersion: '3.0',
        waterfall: true,
        timeoutMs: 400,
        demand: tiers,
      });
      await p.vastChannel('paused', 'Paused', { paused: true, demand: tiers });
      await p.vastTag('measuredTag', 'Measured demand', {
        answer: 'measured?price=20',
        price: { revshare: 100 },
        timeoutMs: 1000,
      });
      await p.vastChannel('measured', 'Measured', { timeoutMs: 2000, demand: ['measuredTag'] });
      // competitive separation: a channel whose creative list excludes the measured demand's advertiser (its <Advertiser>)
      // (creative lists are a V2V kind: made through that edition's app over the same store)
      const v2v = await buildTestApp(t.store, { edition: 'V2V' });
      const competitors = await login(v2v, 'demand')
        .then((cookie) => createAs(v2v, cookie, 'crelists', { name: 'Competing brands', items: ['brand.example.com'] }))
        .finally(() => v2v.close());
      await p.create('separatedRules', 'targetings', {
        name: 'No competing brands',
        rules: { creLists: { mode: 'exclude', ids: [competitors.id] } },
      });
      await p.vastChannel('separated', 'Separated', {
        timeoutMs: 2000,
        targeting: 'separatedRules',
        demand: ['measuredTag'],
      });
    },
    { listen: false, vastDemand: true },
  );
  const { ids } = publisher;

  const vast = (uid: string, query = '') =>
    edgeRequest(publisher.app, { method: 'GET', url: `/vast/${uid}?w=640&h=360&ip=${US_IP}${query}` });
  const debug = async (uid: string, query = '') => {
    const res = await publisher.request({ method: 'GET', url: `/vast/${uid}?w=640&h=360&ip=${US_IP}&debug=1${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { status: number; vast: string; trace: DecisionTrace };
  };

  it('fills an auction channel from the best price: our campaign beats the demand tag, a hanging tag times out, garbage is a no-fill', async () => {
    const { vast: xml, trace } = await debug(ids.auction!.uid);
    expect(schemaErrors('4.2', xml)).toBe('');
    expect(trace.result).toBe('filled');
    expect(trace.winner).toMatchObject({
      source: 'campaign',
      id: ids.campaign!.id,
      fate: 'won',
      clearingCpm: 7_000_000,
      payoutCpm: 4_900_000,
      marginCpm: 2_100_000,
    });
    const fate = (id: number) => trace.sources.find((s) => s.source === 'vast_tag' && s.id === id);
    expect(fate(ids.share!.id)).toMatchObject({
      fate: 'lost',
      bidCpm: 4_000_000,
      lostTo: `campaign#${ids.campaign!.id}`,
    });
    expect(fate(ids.hang!.id)!.fate).toBe('timeout');
    expect(fate(ids.hang!.id)!.ms).toBeLessThan(1500);
    expect(fate(ids.junk!.id)).toMatchObject({ fate: 'no_fill', vastError: 100 });
    expect(trace.context).toMatchObject({ country: 'US', playerSize: 'large' });
    // the demand tag was called with its macros filled in
    const call = publisher.vastDemand.calls.find((c) => c.pathname === '/inline')!;
    expect(call.searchParams.get('w')).toBe('640');
    expect(call.searchParams.get('ip')).toBe(US_IP);
    // on the viewer's behalf, named as VAST 4.1+ asks of a server-side caller (and in the older X-Forwarded-For)
    const sent = publisher.vastDemand.headers[publisher.vastDemand.calls.indexOf(call)]!;
    expect(sent).toMatchObject({ 'x-device-ip': US_IP, 'x-forwarded-for': US_IP });
    expect(sent['x-device-user-agent']).toBe(sent['user-agent']);
    expect(sent['x-device-referer']).toBeUndefined();
  });

  it("names the player's page to the demand as its Referer would have (X-Device-Referer, VAST 4.1+), when the tag says it", async () => {
    const before = publisher.vastDemand.calls.length;
    await vast(ids.auction!.uid, `&page_url=${encodeURIComponent('https://news.example.com/story?id=7')}`);
    const at = publisher.vastDemand.calls.findIndex((c, i) => i >= before && c.pathname === '/inline');
    expect(publisher.vastDemand.headers[at]!['x-device-referer']).toBe('https://news.example.com/story?id=7');
  });

  it('times every external demand call and every ad request in /metrics (prom-client histograms)', async () => {
    await debug(ids.auction!.uid);
    expect((await vast(ids.auction!.uid)).statusCode).toBe(200);
    const metrics = await publisher.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(/adplane_demand_source_seconds_count\{source="vast_tag",outcome="timeout"\} [1-9]/);
    expect(metrics.body).toMatch(/adplane_demand_source_seconds_count\{source="vast_tag",outcome="(lost|won)"\} [1-9]/);
    expect(metrics.body).toMatch(/adplane_demand_source_seconds_count\{source="vast_tag",outcome="no_fill"\} [1-9]/);
  });

  it('answers a priority channel tier by tier: campaigns first, the tags below are never called', async () => {
    const { vast: xml, trace } = await debug(ids.waterfall!.uid);
    expect(schemaErrors('3.0', xml)).toBe('');
    expect(trace.winner).toMatchObject({ source: 'campaign' });
    expect(
      trace.sources
        .filter((s) => s.fate === 'not_called')
        .map((s) => s.id)
        .sort(),
    ).toEqual([ids.share!.id, ids.hang!.id, ids.junk!.id].sort());
  });

  it("answers in the VAST version a tag asks for (vast_version), else in the channel's; an unknown version is ignored", async () => {
    for (const version of ['2.0', '3.0', '4.0', '4.1'] as const) {
      const res = await vast(ids.waterfall!.uid, `&vast_version=${version}`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(`<VAST version="${version}"`);
      expect(res.body).toContain('spring.mp4');
      expect(schemaErrors(version, res.body), version).toBe('');
    }
    // the debug view reads the same version, and the channel's own answer is unchanged
    expect((await debug(ids.waterfall!.uid, '&vast_version=4.2')).vast).toContain('<VAST version="4.2"');
    for (const query of ['', '&vast_version=5.0', '&vast_version=', '&vast_version=4']) {
      const res = await vast(ids.waterfall!.uid, query);
      expect(res.body, query).toContain('<VAST version="3.0"');
      expect(schemaErrors('3.0', res.body)).toBe('');
    }
  });

  it("keeps what the demand's buyer measures with, through its wrapper, in every version: verification vendors, viewability, the AdChoices icon and the wrapper's other icon, skip offset, VPAID, captions, mezzanine, SIMID, its companion", async () => {
    for (const version of ['2.0', '3.0', '4.0', '4.1', '4.2'] as const) {
      const res = await vast(ids.measured!.uid, `&vast_version=${version}`);
      const xml = res.body;
      expect(schemaErrors(version, xml), version).toBe('');
      const ad = clientAds(xml).ads[0] as {
        adVerifications: { vendor: string }[];
        viewableImpression: unknown[];
        creatives: {
          type: string;
          skipDelay: number | null;
          icons: unknown[];
          mediaFiles: { apiFramework: string | null }[];
          variations?: unknown[];
        }[];
      };
      const linear = ad.creatives.find((c) => c.type === 'linear')!;
      expect(ad.creatives.find((c) => c.type === 'companion')?.variations, version).toHaveLength(1);
      // the wrapper's vendor and the inline's, in AdVerifications (4.1+) or an Extension (before)
      expect(
        ad.adVerifications.map((v) => v.vendor),
        version,
      ).toEqual(['wrapper-vendor', 'inline-vendor']);
      expect(ad.viewableImpression.length, version).toBe(version.startsWith('4') ? 1 : 0);
      expect(linear.skipDelay, version).toBe(version === '2.0' ? null : 5);
      // the inline's AdChoices icon (the wrapper's of the same program set aside) and the wrapper's other one; 4.0 and 4.1 take one
      expect(linear.icons.length, version).toBe(version === '2.0' ? 0 : version === '4.0' || version === '4.1' ? 1 : 2);
      if (version !== '2.0') expect(xml).toContain('/icons/adchoices.png');
      expect(xml).not.toContain('wrapper-adchoices.png');
      expect(xml).not.toContain('wrapper-companion.png');
      // captions (4.1+), the mezzanine and the SIMID file (4.x) a CTV player or stitcher needs, as a VAST client reads them
      const media = linear as unknown as {
        closedCaptionFiles: { fileURL: string; language: string }[];
        mezzanine: { fileURL: string } | null;
        interactiveCreativeFile: { fileURL: string; apiFramework: string } | null;
      };
      expect(
        media.closedCaptionFiles.map((c) => `${c.language} ${c.fileURL.replace(publisher.vastDemand.url, '')}`),
        version,
      ).toEqual(version === '4.1' || version === '4.2' ? ['en /media/captions-en.vtt'] : []);
      // (4.0's XSD makes the mezzanine a bare URI, whose type and size a client will not guess)
      expect(media.mezzanine?.fileURL.replace(publisher.vastDemand.url, '') ?? null, version).toBe(
        version === '4.1' || version === '4.2' ? '/media/mezzanine.mp4' : null,
      );
      expect(xml.includes('/media/mezzanine.mp4'), version).toBe(version.startsWith('4'));
      expect(media.interactiveCreativeFile?.apiFramework ?? null, version).toBe(
        version.startsWith('4') ? 'SIMID' : null,
      );
      // whom the ad is for (3.0+) and what it is about (VAST 4), for the player's competitive separation
      expect(xml.includes('<Advertiser>brand.example.com</Advertiser>'), version).toBe(version !== '2.0');
      expect(
        xml.includes('<Category authority="https://iabtechlab.com/standards/content-taxonomy">IAB2-3</Category>'),
        version,
      ).toBe(version.startsWith('4'));
      expect(
        linear.mediaFiles.map((m) => m.apiFramework),
        version,
      ).toEqual([null, 'VPAID']);
      expect(xml).toContain('{"placement":"p1"}');
      expect(xml).toContain(
        version.startsWith('4') ? '<Tracking event="playerExpand">' : '<Tracking event="fullscreen">',
      );
    }
  });

  it("keeps a demand's ad off a channel whose creative list excludes its advertiser, as it keeps our creatives", async () => {
    const { trace } = await debug(ids.separated!.uid);
    expect(trace.sources.find((f) => f.id === ids.measuredTag!.id)).toMatchObject({
      fate: 'no_fill',
      reason: 'blocked_adomain',
    });
    expect(trace.winner?.id).not.toBe(ids.measuredTag!.id);
  });

  it('never answers 500: unknown channel is a 404 VAST, a paused one and garbage macros an empty VAST', async () => {
    const unknown = await edgeRequest(publisher.app, { method: 'GET', url: '/vast/no-such-channel' });
    expect(unknown.statusCode).toBe(404);
    expect(schemaErrors('4.2', unknown.body)).toBe('');
    const paused = await debug(ids.paused!.uid);
    expect(paused.trace.result).toBe('channel_paused');
    expect(schemaErrors('4.2', paused.vast)).toBe('');
    const garbage = await edgeRequest(publisher.app, {
      method: 'GET',
      url: `/vast/${ids.auction!.uid}?w=%ZZ&h=-1&ip=999.1.1.1&ua=%00%01&gdpr=x&w=1&dnt[]=1`,
    });
    expect(garbage.statusCode).toBe(200);
    expect(schemaErrors('4.2', garbage.body)).toBe('');
    const badPath = await edgeRequest(publisher.app, { method: 'GET', url: '/vast/%E0%A4%A' });
    expect(badPath.statusCode).toBeLessThan(500);
  });

  it('shows the trace only to users of the tenant', async () => {
    const other = await login(publisher.app, 'acme');
    const res = await edgeRequest(publisher.app, {
      cookie: other,
      method: 'GET',
      url: `/vast/${ids.auction!.uid}?debug=1`,
    });
    expect(res.headers['content-type']).toMatch(/xml/);
    expect(res.headers['x-adplane-debug']).toMatch(/refused/);
  });

  it('counts a tracked impression once, refuses a forged token, and the counters reach the stats store', async () => {
    const res = await vast(ids.auction!.uid);
    const impression = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(res.body)![1]!;
    const path = impression.slice(impression.indexOf('/ev'));
    const first = await edgeRequest(publisher.app, { method: 'GET', url: path });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('image/gif');
    await edgeRequest(publisher.app, { method: 'GET', url: path });
    const forged = await edgeRequest(publisher.app, {
      method: 'GET',
      url: path.replace(
        /t=([^.]+)\.(.)/,
        (_m, body: string, first: string) => `t=${body}.${first === 'A' ? 'B' : 'A'}`,
      ),
    });
    expect(forged.statusCode).toBe(403);
    // a short answer states its length rather than coming chunked
    expect(forged.headers['content-length']).toBe(String(forged.body.length));
    expect(forged.headers['transfer-encoding']).toBeUndefined();
    const click = await edgeRequest(publisher.app, { method: 'GET', url: path.replace('e=impression', 'e=click') });
    expect(click.statusCode).toBe(302);
    expect(click.headers.location).toBe('https://brand.example.com/spring');
    await publisher.app.edge.flush();
    const [row] = await publisher.app.stats.select(
      `SELECT sum(imps) AS imps, sum(revenue) AS revenue, sum(cost) AS cost, sum(clicks) AS clicks FROM ${STATS_TABLE} WHERE channel_id = ${ids.auction!.id} AND campaign_id = ${ids.campaign!.id}`,
    );
    expect(row).toMatchObject({ imps: 1, revenue: 7000, cost: 4900, clicks: 1 });
    const [reqs] = await publisher.app.stats.select(
      `SELECT sum(reqs) AS reqs, sum(timeouts) AS timeouts FROM ${STATS_TABLE} WHERE channel_id = ${ids.auction!.id}`,
    );
    expect(Number(reqs!.reqs)).toBeGreaterThanOrEqual(3);
    expect(Number(reqs!.timeouts)).toBeGreaterThanOrEqual(2);
  });

  it('reads the viewer of a server-side caller from X-Device-IP and X-Device-User-Agent (VAST 4.1+ section 1.1.3); the macros still come first', async () => {
    const roku = 'Roku/DVP-12.0 (12.0.0.4182-88)';
    const stitched = async (query: string) => {
      const res = await publisher.request({
        method: 'GET',
        url: `/vast/${ids.waterfall!.uid}?w=640&h=360&debug=1${query}`,
        headers: { 'user-agent': 'stitcher/1.0', 'x-device-ip': '81.2.69.160', 'x-device-user-agent': roku },
      });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { trace: DecisionTrace }).trace.context;
    };
    expect(await stitched('')).toMatchObject({ ip: '81.2.69.160', country: 'GB', device: 'smarttv', tvFamily: 'roku' });
    expect(await stitched(`&ip=${US_IP}`)).toMatchObject({ ip: US_IP, country: 'US', device: 'smarttv' });
    const listed = await publisher.request({
      method: 'GET',
      url: `/vast/${ids.waterfall!.uid}?w=640&h=360&debug=1`,
      headers: { 'x-device-ip': '81.2.69.160, 10.0.0.1' },
    });
    expect((listed.json() as { trace: DecisionTrace }).trace.context).toMatchObject({
      ip: '81.2.69.160',
      country: 'GB',
    });
  });

  it("answers a HEAD, a browser's prefetch and a CORS preflight on /vast and /ev without a decision or a count, from node:http and from fetch", async () => {
    const res = await vast(ids.waterfall!.uid);
    const impression = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(res.body)![1]!;
    const event = impression.slice(impression.indexOf('/ev'));
    const click = event.replace('e=impression', 'e=click');
    const counted = async () => {
      await publisher.app.edge.flush();
      const [row] = await publisher.app.stats.select(
        `SELECT sum(reqs) AS reqs, sum(imps) AS imps, sum(clicks) AS clicks FROM ${STATS_TABLE} WHERE channel_id = ${ids.waterfall!.id}`,
      );
      return { reqs: Number(row!.reqs), imps: Number(row!.imps), clicks: Number(row!.clicks) };
    };
    const before = await counted();
    expect(before.reqs).toBeGreaterThanOrEqual(1);
    // what a GET of the click gets (counted: the HEADs below must not add to it)
    const clickGet = await edgeRequest(publisher.app, { method: 'GET', url: click });
    const clickStatus = clickGet.statusCode;
    const clickType = String(clickGet.headers['content-type'] ?? '');
    expect([302, 204]).toContain(clickStatus);
    before.clicks += 1;
    const port = await edgePort(publisher.app);
    const live = (path: string, init: RequestInit) =>
      fetch(`http://127.0.0.1:${port}${path}`, { redirect: 'manual', ...init });
    const origin = 'https://player.example';
    for (const send of ['node:http', 'fetch'] as const) {
      const call = async (method: 'GET' | 'HEAD' | 'OPTIONS', path: string, headers: Record<string, string> = {}) => {
        if (send === 'node:http') {
          const r = await edgeRequest(publisher.app, { method, url: path, headers });
          return { status: r.statusCode, body: r.body, header: (name: string) => String(r.headers[name] ?? '') };
        }
        const r = await live(path, { method, headers });
        return { status: r.status, body: await r.text(), header: (name: string) => r.headers.get(name) ?? '' };
      };
      const head = await call('HEAD', `/vast/${ids.waterfall!.uid}?w=640&h=360&ip=${US_IP}`, { origin });
      expect(head.status, send).toBe(200);
      expect(head.body).toBe('');
      expect(head.header('content-type')).toMatch(/^application\/xml/);
      expect(head.header('access-control-allow-origin')).toBe(origin);
      const pixelHead = await call('HEAD', event);
      expect(pixelHead.status, send).toBe(200);
      expect(pixelHead.header('content-type')).toBe('image/gif');
      expect(pixelHead.body).toBe('');
      // a click's HEAD gets the click's answer (its redirect, or 204 for a click tracker), not the pixel
      const clickHead = await call('HEAD', click, { origin });
      expect(
        [clickHead.status, clickHead.header('content-type'), clickHead.header('access-control-allow-origin')],
        send,
      ).toEqual([clickStatus, clickType, origin]);
      // a browser prefetching the click on hover, or the pixel for a preview: a 503 never stored, nothing counted
      for (const [path, headers] of [
        [click, { 'sec-purpose': 'prefetch' }],
        [click, { 'sec-purpose': 'prefetch;prerender' }],
        [click, { purpose: 'prefetch' }],
        [event, { 'x-moz': 'prefetch' }],
        [event, { 'x-purpose': 'preview' }],
      ] as const) {
        const got = await call('GET', path, { origin, ...headers });
        expect(
          [got.status, got.header('cache-control'), got.header('location')],
          `${send} ${JSON.stringify(headers)}`,
        ).toEqual([503, 'no-store', '']);
      }
      for (const path of [`/vast/${ids.waterfall!.uid}`, event]) {
        const pre = await call('OPTIONS', path, {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-player-id',
        });
        expect(pre.status, `${send} ${path}`).toBe(204);
        expect(pre.header('access-control-allow-origin')).toBe(origin);
        expect(pre.header('access-control-allow-credentials')).toBe('true');
        expect(pre.header('access-control-allow-methods')).toContain('GET');
        expect(pre.header('access-control-allow-headers')).toBe('x-player-id');
      }
    }
    // nothing was decided, held or counted: the impression is still there to count, once
    expect(await counted()).toEqual(before);
    // a GET from a page's script echoes its Origin with credentials, as /vast does; an <img> (no Origin) gets *
    const got = await edgeRequest(publisher.app, { method: 'GET', url: event, headers: { origin } });
    expect(got.statusCode).toBe(200);
    expect(got.headers).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'content-type': 'image/gif',
    });
    expect((await counted()).imps).toBe(before.imps + 1);
    expect(event).toContain('e=impression');
    const start = await live(event.replace('e=impression', 'e=start'), { headers: { origin } });
    expect([
      start.status,
      start.headers.get('access-control-allow-origin'),
      start.headers.get('access-control-allow-credentials'),
    ]).toEqual([200, origin, 'true']);
    const beacon = await live(event.replace('e=impression', 'e=midpoint'), {});
    expect([
      beacon.status,
      beacon.headers.get('access-control-allow-origin'),
      beacon.headers.get('access-control-allow-credentials'),
    ]).toEqual([200, '*', null]);
    // a cache buster a stitcher appended with a second '?' leaves the token whole (a 403 otherwise)
    expect((await live(`${event.replace('e=impression', 'e=complete')}?cb=123`, {})).status).toBe(200);
    expect(
      (
        await edgeRequest(publisher.app, {
          method: 'GET',
          url: `${event.replace('e=impression', 'e=thirdQuartile')}?cb=1?x=2`,
        })
      ).statusCode,
    ).toBe(200);
    const refused = await live(event.replace(/t=[^&]+/, 't=forged'), { headers: { origin } });
    expect([refused.status, refused.headers.get('access-control-allow-origin')]).toEqual([403, origin]);
  });

  it('serves the demo: the demo channel fills with the video adplane serves, and the demo demand answers VAST with a price', async () => {
    const list = await publisher.request({
      method: 'GET',
      url: '/api/demand/channels?search=Demo%20player&pageSize=10',
    });
    const channel = (list.json() as { items: { uid: string; name: string }[] }).items.find(
      (c) => c.name === 'Demo player - auction',
    )!;
    const res = await vast(channel.uid);
    expect(schemaErrors('4.2', res.body)).toBe('');
    expect(res.body).toContain('/media/demo-ad.mp4');
    const video = await edgeRequest(publisher.app, {
      method: 'GET',
      url: '/media/demo-ad.mp4',
      headers: { range: 'bytes=0-99' },
    });
    expect(video.statusCode).toBe(206);
    expect(video.rawPayload.subarray(4, 8).toString()).toBe('ftyp');
    const demoDemand = await edgeRequest(publisher.app, { method: 'GET', url: '/demo/demand/vast?price=2.5' });
    expect(schemaErrors('3.0', demoDemand.body)).toBe('');
    expect(demoDemand.body).toContain('>2.50</Pricing>');
    // skippable, with an AdChoices icon whose image adplane serves
    expect(demoDemand.body).toContain('<Linear skipoffset="00:00:03">');
    const icon = /<StaticResource creativeType="image\/svg\+xml"><!\[CDATA\[https?:\/\/[^/]+(\/[^\]]+)\]\]>/.exec(
      demoDemand.body,
    )![1]!;
    const svg = await edgeRequest(publisher.app, { method: 'GET', url: icon });
    expect(svg.statusCode).toBe(200);
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
  });

  it('serves a channel created through the API within a second, without a restart', async () => {
    const fresh = await publisher.create('fresh', 'channels', { name: 'Fresh', demand: [] });
    const started = Date.now();
    let status = 404;
    while (status === 404 && Date.now() - started < 3000) {
      status = (await vast(fresh.uid)).statusCode;
      if (status === 404) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('answers the edge in its lane and the console in node:http on one pipelined connection, in order', async () => {
    if (!publisher.app.server.listening) await publisher.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = publisher.app.server.address() as { port: number };
    const first = await exchange(
      port,
      [
        `GET /vast/${ids.waterfall!.uid}?w=640&h=360&ip=${US_IP} HTTP/1.1\r\nHost: ads.example\r\nOrigin: https://player.example\r\n\r\n`,
      ],
      1,
    );
    const impression = /<Impression><!\[CDATA\[([^\]]+)\]\]>/.exec(first.answers[0]!.body)![1]!;
    const event = impression.slice(impression.indexOf('/ev'));
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: ads.example\r\n\r\n`;
    const { answers } = await exchange(
      port,
      [
        get(`/vast/${ids.waterfall!.uid}?w=640&h=360&ip=${US_IP}`) +
          get(event) +
          get('/api/auth/session') +
          get(event) +
          get('/healthz'),
      ],
      5,
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(schemaErrors('3.0', answers[0]!.body)).toBe('');
    expect(answers[0]!.headers['content-type']).toMatch(/^application\/xml/);
    expect(answers[1]!.headers['content-type']).toBe('image/gif');
    // from the console's request on, node:http (and Fastify) answer: its JSON, then the edge again through the raw handler
    expect(answers[2]!.headers['content-type']).toMatch(/^application\/json/);
    expect(answers[3]!.headers['content-type']).toBe('image/gif');
    expect(JSON.parse(answers[4]!.body)).toMatchObject({ status: 'ok' });
    expect(first.answers[0]!.headers).toMatchObject({
      'access-control-allow-origin': 'https://player.example',
      connection: 'keep-alive',
    });
  });

  it('reads geo from the MaxMind database set in ADPLANE_MAXMIND_DB', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'adplane-geo-'));
    const { maxmindDb } = loadSettings({ ADPLANE_MAXMIND_DB: writeTestCityDb(dir) });
    const geoApp = await buildTestApp(t.store, { maxmindDb });
    try {
      const geoCookie = await login(geoApp, 'demand');
      const res = await edgeRequest(geoApp, {
        cookie: geoCookie,
        method: 'GET',
        url: `/vast/${ids.auction!.uid}?w=640&h=360&ip=81.2.69.160&debug=1`,
      });
      expect((res.json() as { trace: DecisionTrace }).trace.context).toMatchObject({ country: 'SE', region: 'AB' });
    } finally {
      await geoApp.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
