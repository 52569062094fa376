import { type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { localServer } from './localServer.js';

/**
 * Keeps in `holds` how long `res` was held for `key`: from `arrived` until its answer is written,
 * the longest of the calls with the same key (the bench's partners: a request's slowest call).
 */
export function keepHold(holds: Map<string, number>, key: string, res: ServerResponse, arrived: number): void {
  res.on('finish', () => holds.set(key, Math.max(holds.get(key) ?? 0, performance.now() - arrived)));
}

/**
 * A local VAST demand server for tests and the bench (the edge of the world: an external demand
 * partner). Paths:
 * - /inline?price=<usd>&delay=<ms>&duration=<s>: an inline VAST 3.0 ad (10 s) with its own trackers and <Pricing>;
 *   with fill=<percent>&key=<k>, the ad on that share of the calls naming the same key, spread evenly
 *   (a Bresenham draw, no randomness), a VAST with no ad on the others;
 * - /wrapper?depth=<n>&follow=false&end=empty: a wrapper chain of n hops (each with an error tracker
 *   naming its hop) ending in /inline (follow=false: the first hop says followAdditionalWrappers="false";
 *   end=empty: ending in /empty?error=1; end=broken: in an HTTP 500; end=<URL>: at that URL);
 * - /measured?price=<usd>: a VAST 3.0 wrapper with a verification vendor, in front of a VAST 4.2
 *   inline that carries what a measured buy does (verification, viewability, icon, skip, VPAID);
 * - /empty: a VAST with no ad (error=1: with a root <Error> tracker); /garbage: not XML at all; /hang: never answers; /status?code=500.
 * Every request is recorded in `calls` (path and query) and its headers in `headers` (same index),
 * so tests can assert the macros and the viewer's headers sent. A call naming `rid=<id>` also has
 * its hold (ms from its arrival to its answer written: the delay asked, plus this server's own
 * lateness) kept in `holds`, the longest of the calls naming the same id: the bench's five-tag case
 * reads it to measure what the edge adds to the slowest answer.
 */
export interface DemandServer {
  url: string;
  calls: URL[];
  headers: IncomingHttpHeaders[];
  holds: Map<string, number>;
  close(): Promise<void>;
}

export function inlineVast(base: string, price: number | null, id = 'demand-ad'): string {
  const pricing = price === null ? '' : `<Pricing model="CPM" currency="USD">${price.toFixed(2)}</Pricing>`;
  return `<?xml version="1.0" encoding="UTF-8"?><VAST version="3.0"><Ad id="${id}"><InLine><AdSystem>LocalDemand</AdSystem><AdTitle>Demand spot</AdTitle>${pricing}<Error><![CDATA[${base}/track/error?c=[ERRORCODE]]]></Error><Impression><![CDATA[${base}/track/imp]]></Impression><Creatives><Creative><Linear><Duration>00:00:10</Duration><TrackingEvents><Tracking event="start"><![CDATA[${base}/track/start]]></Tracking><Tracking event="complete"><![CDATA[${base}/track/complete]]></Tracking></TrackingEvents><VideoClicks><ClickThrough><![CDATA[https://brand.example.com/landing]]></ClickThrough><ClickTracking><![CDATA[${base}/track/click]]></ClickTracking></VideoClicks><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[${base}/media/spot.mp4]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>`;
}

/**
 * A VAST 4.2 ad as a measured buy carries it: its advertiser and category, a verification vendor (Open Measurement), viewability
 * trackers, an AdChoices icon, a skip offset, a progress event, a VPAID file with its AdParameters,
 * a companion banner, captions, a mezzanine and a SIMID file, and a fullscreen event under VAST 4's name.
 */
function measuredVast(base: string, price: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><VAST version="4.2" xmlns="http://www.iab.com/VAST"><Ad id="m"><InLine><AdSystem>MeasuredDemand</AdSystem><Impression><![CDATA[${base}/track/imp]]></Impression><Pricing model="CPM" currency="USD">${price}</Pricing>
<ViewableImpression><Viewable><![CDATA[${base}/track/viewable]]></Viewable><NotViewable><![CDATA[${base}/track/not-viewable]]></NotViewable></ViewableImpression><AdServingId>m-1</AdServingId><AdTitle>Measured spot</AdTitle>
<AdVerifications><Verification vendor="inline-vendor"><JavaScriptResource apiFramework="omid" browserOptional="true"><![CDATA[${base}/verify/omid.js]]></JavaScriptResource><TrackingEvents><Tracking event="verificationNotExecuted"><![CDATA[${base}/verify/not-executed?r=[REASON]]]></Tracking></TrackingEvents><VerificationParameters><![CDATA[{"k":"v"}]]></VerificationParameters></Verification></AdVerifications>
<Advertiser>brand.example.com</Advertiser><Category authority="https://iabtechlab.com/standards/content-taxonomy">IAB2-3</Category>
<Creatives><Creative><Linear skipoffset="00:00:05"><Icons><Icon program="AdChoices" width="77" height="15" xPosition="right" yPosition="top"><StaticResource creativeType="image/png"><![CDATA[${base}/icons/adchoices.png]]></StaticResource><IconClicks><IconClickThrough><![CDATA[https://privacy.example.com/]]></IconClickThrough></IconClicks></Icon></Icons>
<TrackingEvents><Tracking event="progress" offset="00:00:03"><![CDATA[${base}/track/progress3]]></Tracking><Tracking event="playerExpand"><![CDATA[${base}/track/expand]]></Tracking><Tracking event="start"><![CDATA[${base}/track/start]]></Tracking></TrackingEvents>
<AdParameters><![CDATA[{"placement":"p1"}]]></AdParameters><Duration>00:00:15</Duration><MediaFiles><ClosedCaptionFiles><ClosedCaptionFile type="text/vtt" language="en"><![CDATA[${base}/media/captions-en.vtt]]></ClosedCaptionFile></ClosedCaptionFiles>
<MediaFile delivery="progressive" type="video/mp4" width="640" height="360" codec="H.264"><![CDATA[${base}/media/spot.mp4]]></MediaFile>
<MediaFile delivery="progressive" type="application/javascript" width="640" height="360" apiFramework="VPAID"><![CDATA[${base}/media/vpaid.js]]></MediaFile>
<Mezzanine delivery="progressive" type="video/mp4" width="1920" height="1080" fileSize="52000000"><![CDATA[${base}/media/mezzanine.mp4]]></Mezzanine>
<InteractiveCreativeFile type="text/html" apiFramework="SIMID" variableDuration="false"><![CDATA[${base}/media/simid.html]]></InteractiveCreativeFile></MediaFiles></Linear></Creative>
<Creative><CompanionAds><Companion width="300" height="250"><StaticResource creativeType="image/png"><![CDATA[${base}/media/companion.png]]></StaticResource><CompanionClickThrough><![CDATA[https://brand.example.com/companion]]></CompanionClickThrough>
<TrackingEvents><Tracking event="creativeView"><![CDATA[${base}/track/companion-view]]></Tracking></TrackingEvents></Companion></CompanionAds></Creative></Creatives></InLine></Ad></VAST>`;
}

/**
 * A VAST 3.0 wrapper with a verification vendor of its own (as VAST before 4.1 carries one: an
 * Extension), in front of measuredVast, adding two icons (an AdChoices one, which the inline's
 * overrides, and one of another program) and a companion (the inline's are kept instead).
 */
const measuredWrapper = (base: string, price: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><VAST version="3.0"><Ad id="mw"><Wrapper><AdSystem>MeasuredWrapper</AdSystem><VASTAdTagURI><![CDATA[${base}/measured-inline?price=${price}]]></VASTAdTagURI><Impression><![CDATA[${base}/track/wrapper-imp]]></Impression>
<Creatives><Creative><Linear><Icons><Icon program="AdChoices" width="20" height="20" xPosition="left" yPosition="top"><StaticResource creativeType="image/png"><![CDATA[${base}/icons/wrapper-adchoices.png]]></StaticResource></Icon><Icon program="PartnerMark" width="30" height="15" xPosition="left" yPosition="bottom"><StaticResource creativeType="image/png"><![CDATA[${base}/icons/partner.png]]></StaticResource></Icon></Icons></Linear></Creative>
<Creative><CompanionAds><Companion width="728" height="90"><StaticResource creativeType="image/png"><![CDATA[${base}/media/wrapper-companion.png]]></StaticResource></Companion></CompanionAds></Creative></Creatives>
<Extensions><Extension type="AdVerifications"><AdVerifications><Verification vendor="wrapper-vendor"><JavaScriptResource apiFramework="omid"><![CDATA[${base}/verify/wrapper.js]]></JavaScriptResource></Verification></AdVerifications></Extension></Extensions></Wrapper></Ad></VAST>`;

/** A wrapper (hop `depth` of its chain) in front of `next`; its error tracker names its hop. */
const wrapperVast = (base: string, next: string, depth: number, follow = true) =>
  `<?xml version="1.0" encoding="UTF-8"?><VAST version="3.0"><Ad id="w"><Wrapper${follow ? '' : ' followAdditionalWrappers="false"'}><AdSystem>LocalWrapper</AdSystem><VASTAdTagURI><![CDATA[${next}]]></VASTAdTagURI><Error><![CDATA[${base}/track/wrapper-error?hop=${depth}&c=[ERRORCODE]]]></Error><Impression><![CDATA[${base}/track/wrapper-imp]]></Impression><Creatives></Creatives></Wrapper></Ad></VAST>`;

function xml(res: ServerResponse, body: string) {
  res.writeHead(200, { 'content-type': 'application/xml' });
  res.end(body);
}

export async function startDemandServer(): Promise<DemandServer> {
  const calls: URL[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const hanging = new Set<ServerResponse>();
  const holds = new Map<string, number>();
  const fillCalls = new Map<string, number>();
  let base = '';
  const demand = await localServer((req, res) => {
    const arrived = performance.now();
    const url = new URL(req.url ?? '/', base);
    calls.push(url);
    headers.push(req.headers);
    const delay = Number(url.searchParams.get('delay') ?? 0);
    const rid = url.searchParams.get('rid');
    if (rid) keepHold(holds, rid, res, arrived);
    const answer = () => {
      switch (url.pathname) {
        case '/inline': {
          const fill = url.searchParams.get('fill');
          if (fill !== null) {
            const key = url.searchParams.get('key') ?? '';
            const n = fillCalls.get(key) ?? 0;
            fillCalls.set(key, n + 1);
            const share = Number(fill) / 100;
            if (Math.floor((n + 1) * share) === Math.floor(n * share))
              return xml(res, '<?xml version="1.0"?><VAST version="3.0"/>');
          }
          const price = url.searchParams.get('price');
          // duration=<s>: the ad lasts that long (10 s otherwise)
          const seconds = Number(url.searchParams.get('duration') ?? 10);
          return xml(
            res,
            inlineVast(base, price === null ? null : Number(price)).replace(
              '<Duration>00:00:10</Duration>',
              `<Duration>00:00:${String(seconds).padStart(2, '0')}</Duration>`,
            ),
          );
        }
        case '/wrapper': {
          const depth = Number(url.searchParams.get('depth') ?? 1);
          const price = url.searchParams.get('price') ?? '3';
          // end=empty: the chain ends in a "no ad" answer (/empty?error=1) instead of the inline ad
          // end=broken: the chain ends in an answer of HTTP 500
          // end=<an http(s) URL>: the chain's last wrapper sends the player there
          const endAt = url.searchParams.get('end');
          const end =
            endAt === 'empty'
              ? `${base}/empty?error=1`
              : endAt === 'broken'
                ? `${base}/status?code=500`
                : endAt && /^https?:/.test(endAt)
                  ? endAt
                  : `${base}/inline?price=${price}`;
          const next =
            depth > 1
              ? `${base}/wrapper?depth=${depth - 1}&price=${price}${endAt ? `&end=${encodeURIComponent(endAt)}` : ''}`
              : end;
          // follow=false: the first hop allows no further wrapper (followAdditionalWrappers)
          return xml(res, wrapperVast(base, next, depth, url.searchParams.get('follow') !== 'false'));
        }
        case '/measured':
          return xml(res, measuredWrapper(base, url.searchParams.get('price') ?? '3'));
        case '/measured-inline':
          return xml(res, measuredVast(base, url.searchParams.get('price') ?? '3'));
        case '/empty':
          // error=1: the "no ad" answer names an error tracker (a root <Error>, VAST 3+)
          return xml(
            res,
            url.searchParams.get('error')
              ? `<?xml version="1.0"?><VAST version="3.0"><Error><![CDATA[${base}/track/no-ad?c=[ERRORCODE]&ts=[TIMESTAMP]]]></Error></VAST>`
              : '<?xml version="1.0"?><VAST version="3.0"/>',
          );
        case '/garbage':
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end('<html><body>oops {"not": vast} <<<</body>');
        case '/hang':
          hanging.add(res);
          return;
        case '/status':
          res.writeHead(Number(url.searchParams.get('code') ?? 500));
          return res.end();
        default:
          res.writeHead(404);
          return res.end();
      }
    };
    if (delay > 0) setTimeout(answer, delay);
    else answer();
  });
  demand.server.keepAliveTimeout = 60_000;
  base = demand.url;
  return {
    url: base,
    calls,
    headers,
    holds,
    close: async () => {
      for (const res of hanging) res.destroy();
      await demand.close();
    },
  };
}
