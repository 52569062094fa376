import { readFileSync } from 'node:fs';
import { type FastifyInstance } from 'fastify';
import { DEMO_DEMAND_PATH, DEMO_VIDEO_PATH } from '../../store/seedEdgeDemo.js';
import { xmlEscape } from '../vast/xml.js';
import { serverPath } from '../../serverRoot.js';

/**
 * The demo's world, served by adplane itself so that `npm start` fills offline: the demo video
 * (a 6-second H.264 MP4 recorded once from a canvas in Chromium, committed under assets/) and a
 * demo demand partner answering inline VAST 3.0 with a <Pricing> (`price` in USD, default 4.50), its
 * own trackers, a skip offset and an AdChoices icon, as an external VAST demand tag would.
 */
const VIDEO_FILE = serverPath('assets/demo-ad.mp4');

/** Whom the demo partner's ad is for (its <Advertiser>: a domain, as VAST recommends, which bids carry as adomain). */
const DEMO_ADVERTISER = 'demo-brand.example';

/** The demo partner's AdChoices icon (its ad is skippable after 3 s and carries the icon, as a real buy's often does). */
const ADCHOICES_PATH = '/demo/demand/adchoices.svg';
const ADCHOICES_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="19" height="15" viewBox="0 0 19 15"><rect width="19" height="15" rx="2" fill="#fff"/><path d="M5 3v9l8-4.5z" fill="none" stroke="#00aecd" stroke-width="1.6" stroke-linejoin="round"/></svg>';

export function registerDemoDemand(app: FastifyInstance, origin: string): void {
  const video = readFileSync(VIDEO_FILE);
  app.get(DEMO_VIDEO_PATH, (request, reply) => {
    const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? '');
    reply
      .header('accept-ranges', 'bytes')
      .header('cache-control', 'public, max-age=86400')
      .header('access-control-allow-origin', '*')
      .type('video/mp4');
    if (!range) return reply.send(video);
    const start = range[1] ? Number(range[1]) : Math.max(0, video.length - Number(range[2]));
    const end = range[1] && range[2] ? Math.min(Number(range[2]), video.length - 1) : video.length - 1;
    if (start >= video.length || start > end)
      return reply.code(416).header('content-range', `bytes */${video.length}`).send();
    return reply
      .code(206)
      .header('content-range', `bytes ${start}-${end}/${video.length}`)
      .send(video.subarray(start, end + 1));
  });

  app.get<{ Querystring: Record<string, string | undefined> }>(DEMO_DEMAND_PATH, (request, reply) => {
    const price = Number(request.query.price ?? '4.5');
    const usd = Number.isFinite(price) && price >= 0 && price < 1000 ? price : 4.5;
    const track = (e: string) => `${origin}/demo/demand/track?e=${e}`;
    const xml = `<?xml version="1.0" encoding="UTF-8"?><VAST version="3.0"><Ad id="demo-demand"><InLine><AdSystem>adplane demo demand</AdSystem><AdTitle>Demo demand spot</AdTitle><Advertiser>${DEMO_ADVERTISER}</Advertiser><Pricing model="cpm" currency="USD">${usd.toFixed(2)}</Pricing><Error><![CDATA[${track('error')}&code=[ERRORCODE]]]></Error><Impression><![CDATA[${track('impression')}]]></Impression><Creatives><Creative><Linear skipoffset="00:00:03"><Icons><Icon program="AdChoices" width="19" height="15" xPosition="right" yPosition="top"><StaticResource creativeType="image/svg+xml"><![CDATA[${origin}${ADCHOICES_PATH}]]></StaticResource><IconClicks><IconClickThrough><![CDATA[${xmlEscape(origin)}/]]></IconClickThrough></IconClicks></Icon></Icons><Duration>00:00:06</Duration><TrackingEvents><Tracking event="start"><![CDATA[${track('start')}]]></Tracking><Tracking event="complete"><![CDATA[${track('complete')}]]></Tracking></TrackingEvents><VideoClicks><ClickThrough><![CDATA[${xmlEscape(origin)}/]]></ClickThrough></VideoClicks><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[${origin}${DEMO_VIDEO_PATH}?ad=demo-demand]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`;
    return reply.header('cache-control', 'no-store').type('application/xml; charset=utf-8').send(xml);
  });

  app.get(`/demo/demand/track`, (_request, reply) => reply.code(204).header('access-control-allow-origin', '*').send());
  app.get(ADCHOICES_PATH, (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=86400')
      .header('access-control-allow-origin', '*')
      .type('image/svg+xml')
      .send(ADCHOICES_SVG),
  );
}
