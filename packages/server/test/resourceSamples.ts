import { type ResourceKind } from '@adplane/shared';

/** A valid body for each kind, as a demand user of the tenant would send it (no references). */
export function sampleBody(kind: ResourceKind, n = 1): Record<string, unknown> {
  switch (kind) {
    case 'channels':
      return {
        name: `Roku CTV ${n}`,
        integration: 'VAST',
        environment: 'ctv',
        format: 'video',
        domain: 'roku.example.com',
        floorCpm: 4_000_000,
        payout: { type: 'revshare', percent: 65 },
      };
    case 'tags':
      return {
        name: `SpotX VAST ${n}`,
        integration: 'VAST',
        vastUrl: 'https://ads.example.com/vast?w={{width}}&h={{height}}&cb={{cachebuster}}',
        price: { type: 'cpm', cpm: 6_500_000 },
        floorCpm: 3_000_000,
      };
    case 'sups':
      return { name: `Supplier ${n}`, qpsLimit: 500, marginPercent: 25, formats: ['video'] };
    case 'campaigns':
      return {
        name: `Holiday push ${n}`,
        startDate: '2026-11-01',
        endDate: '2026-12-31',
        totalBudget: 50_000_000_000,
        dailyBudget: 2_000_000_000,
        bidCpm: 12_000_000,
        channelScope: 'all',
        pacing: 'even',
      };
    case 'creatives':
      return {
        name: `Spot 30s ${n}`,
        format: 'video',
        videoSource: 'media',
        mediaFiles: [
          {
            url: 'https://cdn.example.com/spot30.mp4',
            mime: 'video/mp4',
            duration: 30,
            width: 1920,
            height: 1080,
            bitrate: 4500,
          },
        ],
        clickUrl: 'https://brand.example.com/',
        adomain: ['brand.example.com'],
        iabCategories: ['IAB2-1'],
      };
    case 'adexchanges':
      return {
        name: `Exchange ${n}`,
        endpoint: 'https://rtb.example.com/openrtb2',
        tmaxMs: 250,
        qpsLimit: 1000,
        seat: 'seat-1',
        marginPercent: 15,
      };
    case 'deals':
      return { name: `PMP ${n}`, dealId: `DEAL-${n}`, floorCpm: 15_000_000, auctionType: 1, buyerSeats: ['seat-a'] };
    case 'supplydeals':
      return {
        name: `CTV sports PMP ${n}`,
        dealId: `SSP-DEAL-${n}`,
        floorCpm: 12_000_000,
        auctionType: 2,
        privateAuction: false,
        buyerSeats: ['dsp-seat-7'],
        advertiserDomains: ['brand.example.com'],
      };
    case 'targetings':
      return {
        name: `US sports ${n}`,
        rules: {
          countries: { mode: 'include', values: ['US', 'CA'] },
          regions: { mode: 'include', values: ['NAM'] },
          iabCategories: { mode: 'exclude', values: ['IAB25', 'IAB26-1'] },
          devices: { mode: 'include', values: ['smarttv'] },
          dayParting: { enabled: true, timezone: -5, days: [0, 1, 2, 3, 4], hours: [18, 19, 20, 21, 22] },
        },
      };
    case 'applists':
      return { name: `Top CTV apps ${n}`, items: ['com.example.tv', '123456789', 'com.example.tv'] };
    case 'publists':
      return { name: `Premium publishers ${n}`, items: ['news.example.com', 'Sports.Example.com'] };
    case 'crelists':
      return { name: `Blocked creatives ${n}`, items: ['cr-1001', 'badbrand.example.com'] };
    case 'iplists':
      return { name: `Office network ${n}`, items: ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32'] };
    case 'ivts':
      return {
        name: `Pixalate ${n}`,
        vendor: 'Pixalate',
        urlTemplate: 'https://pix.example.com/p?ip={{ip}}&ua={{user_agent}}&cb={{cachebuster}}',
        stage: 'postbid',
        samplePercent: 10,
      };
    case 'tooltips':
      return { key: `channels.floorCpm${n}`, text: 'The lowest CPM this channel accepts.' };
    case 'sdkapps':
      return { name: `Streaming app ${n}`, bundle: `com.example.stream${n}`, platform: 'android' };
    case 'subs':
      return {
        name: `Publisher ${n}`,
        username: `pub${n}_${Math.random().toString(36).slice(2, 8)}`,
        email: '',
        password: 'publisher-pass',
        companyName: 'Pub Co',
        domain: 'pub.example.com',
      };
    case 'advs':
      return {
        name: `Advertiser ${n}`,
        username: `adv${n}_${Math.random().toString(36).slice(2, 8)}`,
        email: '',
        password: 'advertiser-pass',
        domain: 'brand.example.com',
      };
    case 'managers':
      return {
        name: `Trader ${n}`,
        username: `mgr${n}_${Math.random().toString(36).slice(2, 8)}`,
        email: '',
        password: 'manager-pass',
      };
    case 'demands':
      return {
        name: `Tenant ${n}`,
        username: `tenant${n}_${Math.random().toString(36).slice(2, 8)}`,
        email: '',
        password: 'tenant-pass',
        priceReq: 10_000,
        priceImp: 50_000,
      };
  }
}
