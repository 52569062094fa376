import { validateHeaderValue } from 'node:http';
import { describe, expect, it } from 'vitest';
import { TestClock } from '../src/clock.js';
import { type HourlyCounters } from '../src/edge/counters/hourlyCounters.js';
import { type DeliveryGate } from '../src/edge/auction/deliveryGate.js';
import { type EdgeResponse } from '../src/http/edgeHttp.js';
import { type SnapCreative, type Snapshot } from '../src/edge/snapshot/types.js';
import { ReplayGuard } from '../src/edge/tracking/replayGuard.js';
import { handleEvent } from '../src/edge/doors/trackingEvents.js';
import { type Decision, newDecisionId, TokenSigner } from '../src/edge/tracking/trackingToken.js';

/**
 * /ev?e=click as players use it: the click-through a player opens (our creatives' <ClickThrough>:
 * a 302 to the advertiser's page), and the <ClickTracking> beacon a wrapper carries (the
 * click-through is the wrapped ad's own).
 */
const NOW = 1_800_000_000_000;
const signer = new TokenSigner('k'.repeat(32));

const creative = (over: Partial<SnapCreative>): SnapCreative => ({
  id: 7,
  tenantId: 1,
  name: 'Spot',
  advertiserId: 3,
  format: 'video',
  videoSource: 'media',
  vastUrl: '',
  duration: 15,
  displayType: 'image',
  imageUrl: '',
  html: '',
  mediaFiles: [],
  width: 0,
  height: 0,
  clickUrl: '',
  adomain: [],
  iabCategories: [],
  skipAfter: 0,
  ...over,
});

function tokenFor(creativeId: number): string {
  const d: Decision = {
    id: newDecisionId(),
    at: Math.floor(NOW / 1000),
    tenantId: 1,
    channelId: 2,
    subpublisherId: 0,
    tagId: 0,
    campaignId: 5,
    creativeId,
    advertiserId: 3,
    country: 'US',
    device: 'desktop',
    os: 'windows',
    appBundle: '',
    domain: 'news.example',
    revenueCpm: 0,
    costCpm: 0,
    test: 0,
    integration: 'VAST',
    supplierId: 0,
    adexchangeId: 0,
    dealId: '',
    partner: '',
    marketplace: '',
    viewer: '',
    postbid: 0,
    arm: '',
  };
  return signer.sign(d);
}

/** A response that refuses what node's http refuses in a header (what the edge lane checks too). */
function response() {
  const out = { status: 0, headers: {} as Record<string, string>, ended: false };
  const res: EdgeResponse = {
    statusCode: 200,
    headersSent: false,
    destroyed: false,
    writeHead(status, headers) {
      for (const [name, value] of Object.entries(headers ?? {})) {
        validateHeaderValue(name, String(value));
        // node sends a Latin-1 character as its one byte, which browsers read as UTF-8: no valid address
        if (!/^[\x20-\x7e]*$/.test(String(value))) throw new TypeError(`non-ASCII header ${name}`);
        out.headers[name] = String(value);
      }
      out.status = status;
    },
    end() {
      out.ended = true;
    },
  };
  return { res, out };
}

function click(creatives: SnapCreative[]) {
  const counted: Record<string, number>[] = [];
  const deps = {
    clock: new TestClock(NOW),
    signer,
    replay: new ReplayGuard(),
    pacing: {} as DeliveryGate,
    counters: { add: (_d: unknown, m: Record<string, number>) => counted.push(m) } as unknown as HourlyCounters,
    snapshot: () => ({ creatives: new Map(creatives.map((c) => [c.id, c])) }) as unknown as Snapshot,
  };
  const { res, out } = response();
  handleEvent(deps, new URLSearchParams({ e: 'click', t: tokenFor(creatives[0]!.id) }), res, NOW);
  return { ...out, clicks: counted.filter((m) => m.clicks).length };
}

describe('GET /ev?e=click', () => {
  it('redirects to the click-through with the IAB macros a player would have filled ([CACHEBUSTING], [TIMESTAMP]), as the player never sees that URL', () => {
    const r = click([
      creative({
        clickUrl: 'https://brand.example/land?cb=[CACHEBUSTING]&ts=[TIMESTAMP]&enc=%5BCACHEBUSTING%5D&keep=[DOMAIN]',
      }),
    ]);
    expect(r.status).toBe(302);
    const location = new URL(r.headers.location!);
    expect(location.searchParams.get('cb')).toMatch(/^\d{8}$/);
    expect(location.searchParams.get('enc')).toMatch(/^\d{8}$/);
    expect(location.searchParams.get('ts')).toBe(new Date(NOW).toISOString().replace('Z', '+00:00'));
    // (a macro the edge has no value for stays for the advertiser's server to see)
    expect(location.searchParams.get('keep')).toBe('[DOMAIN]');
    expect(r.clicks).toBe(1);
  });

  it('sends a click-through with characters a header cannot hold in its ASCII form, rather than failing the answer', () => {
    for (const [url, expected] of [
      ['https://brand.example/€uro?q=naïve', 'https://brand.example/%E2%82%ACuro?q=na%C3%AFve'],
      ['https://brand.example/café', 'https://brand.example/caf%C3%A9'],
      ['https://bücher.example/x', 'https://xn--bcher-kva.example/x'],
    ] as const) {
      const r = click([creative({ clickUrl: url })]);
      expect(r.status, url).toBe(302);
      expect(r.headers.location, url).toBe(expected);
      expect(r.clicks, url).toBe(1);
    }
  });

  it('counts a click once per decision however often its URL is hit, and still redirects every hit', () => {
    const spot = creative({ clickUrl: 'https://brand.example/land' });
    const counted: Record<string, number>[] = [];
    const deps = {
      clock: new TestClock(NOW),
      signer,
      replay: new ReplayGuard(),
      pacing: {} as DeliveryGate,
      counters: { add: (_d: unknown, m: Record<string, number>) => counted.push(m) } as unknown as HourlyCounters,
      snapshot: () => ({ creatives: new Map([[spot.id, spot]]) }) as unknown as Snapshot,
    };
    const token = tokenFor(spot.id);
    const statuses = Array.from({ length: 25 }, () => {
      const { res, out } = response();
      handleEvent(deps, new URLSearchParams({ e: 'click', t: token }), res, NOW);
      return out.status;
    });
    expect(new Set(statuses)).toEqual(new Set([302]));
    expect(counted.filter((m) => m.clicks)).toHaveLength(1);
  });

  it("counts an error once per decision and fires the demand's forwarded error trackers once, never from a replay", () => {
    const spot = creative({});
    const counted: Record<string, number>[] = [];
    const fired: string[] = [];
    const deps = {
      clock: new TestClock(NOW),
      signer,
      replay: new ReplayGuard(),
      pacing: {} as DeliveryGate,
      counters: { add: (_d: unknown, m: Record<string, number>) => counted.push(m) } as unknown as HourlyCounters,
      snapshot: () => ({ creatives: new Map([[spot.id, spot]]) }) as unknown as Snapshot,
      notify: (url: string) => void fired.push(url),
    };
    const token = tokenFor(spot.id);
    const trackers = 'https://demand.example/err?c=[ERRORCODE]\nhttps://other.example/e?code=[ERRORCODE]';
    const query = () =>
      new URLSearchParams({ e: 'error', t: token, code: '405', de: trackers, ds: signer.attach(token, trackers) });
    for (let i = 0; i < 25; i++) {
      const { res, out } = response();
      handleEvent(deps, query(), res, NOW);
      expect(out.status).toBe(200);
    }
    expect(counted.filter((m) => m.errors)).toHaveLength(1);
    expect(fired).toEqual(['https://demand.example/err?c=405', 'https://other.example/e?code=405']);
  });

  it("answers a wrapper's click tracker without a redirect (its click-through is the wrapped ad's), and counts it", () => {
    const r = click([
      creative({ videoSource: 'vast', vastUrl: 'https://third.example/vast', clickUrl: 'https://brand.example/land' }),
    ]);
    expect(r.status).toBe(204);
    expect(r.headers.location).toBeUndefined();
    expect(r.clicks).toBe(1);
  });
});
