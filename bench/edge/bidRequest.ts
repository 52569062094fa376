import { type BidRequest } from '@adplane/shared';

/** A realistic OpenRTB bid request for the edge's benchmarks (openrtb.bench.ts, edge.bench.ts's tail case). */
const IPS = ['8.8.8.8', '81.2.69.160', '24.24.24.24', '1.1.1.1'];
const UAS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
  'Roku/DVP-12.5 (12.5.0.4174-AE)',
];

/** A video bid request of about 1.5 KB, as an SSP sends it: site, device with geo, user, regs, a two-node schain. */
export function bidRequest(i: number, r: () => number): BidRequest {
  const w = [640, 1280, 1920][Math.floor(r() * 3)]!;
  return {
    id: `bench-${i}-${Math.floor(r() * 1e9).toString(36)}`,
    imp: [
      {
        id: '1',
        video: {
          mimes: ['video/mp4', 'application/x-mpegURL'],
          minduration: 5,
          maxduration: 30,
          protocols: [2, 3, 5, 6, 7, 8],
          w,
          h: Math.round((w * 9) / 16),
          startdelay: 0,
          plcmt: 1,
          linearity: 1,
          skip: 1,
          skipafter: 5,
          playbackmethod: [1],
          api: [2, 7],
        },
        bidfloor: 0.5,
        bidfloorcur: 'USD',
        secure: 1,
        tagid: `placement-${i % 50}`,
      },
    ],
    site: {
      id: `site-${i % 200}`,
      domain: `news${i % 200}.example.com`,
      page: `https://news${i % 200}.example.com/story/${i}?utm_source=feed`,
      cat: ['IAB12'],
      publisher: { id: `pub-${i % 40}`, name: `Publisher ${i % 40}` },
      content: {
        id: `video-${i}`,
        title: `Evening news, part ${i % 9}`,
        genre: 'News',
        language: 'en',
        livestream: 0,
        len: 420,
        url: `https://news${i % 200}.example.com/video/${i}`,
      },
    },
    device: {
      ua: UAS[i % UAS.length],
      ip: IPS[i % IPS.length],
      devicetype: 2,
      make: 'Generic',
      model: 'Browser',
      os: 'Windows',
      language: 'en',
      js: 1,
      connectiontype: 2,
      geo: { country: 'USA', region: 'CA', type: 2 },
    },
    user: {
      id: `user-${Math.floor(r() * 1e12).toString(36)}`,
      consent: '',
      eids: [
        { source: 'id5-sync.com', uids: [{ id: `ID5*${Math.floor(r() * 1e15).toString(36)}`, atype: 1 }] },
        { source: 'liveramp.com', uids: [{ id: `XY${Math.floor(r() * 1e15).toString(36)}`, atype: 3 }] },
      ],
    },
    at: 1,
    tmax: 200,
    cur: ['USD'],
    bcat: ['IAB25', 'IAB26'],
    badv: ['blocked.example.com'],
    source: {
      tid: `tid-${i}`,
      schain: {
        ver: '1.0',
        complete: 1,
        nodes: [
          { asi: 'exchange-one.example', sid: `${1000 + (i % 40)}`, hp: 1 },
          { asi: 'reseller.example', sid: 'r-77', hp: 1 },
        ],
      },
    },
    regs: { coppa: 0, gdpr: 0, us_privacy: '1---' },
  };
}
