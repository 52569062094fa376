import { describe, expect, it } from 'vitest';
import { type DecisionTrace, type SourceFate, type TargetingMiss } from '@adplane/shared';
import {
  armSentence,
  dealsSentence,
  demandOrderSentence,
  fateText,
  indexedOutText,
  ivtSentence,
  missText,
  podSentence,
  podSlotText,
  postbidSentence,
  reasonText,
  resultSentence,
  setAsideSummary,
  sourceLabel,
  templateUrl,
  trackerUrlPattern,
} from './traceText.js';

const campaign: SourceFate = {
  source: 'campaign',
  id: 7,
  name: 'Spring',
  priority: 0,
  fate: 'won',
  bidCpm: 7_000_000,
  clearingCpm: 6_500_000,
  payoutCpm: 4_550_000,
  marginCpm: 1_950_000,
};
const tag: SourceFate = {
  source: 'vast_tag',
  id: 3,
  name: 'Beacon DSP',
  priority: 1,
  fate: 'lost',
  bidCpm: 4_000_000,
  lostTo: 'campaign#7',
  ms: 21,
};
const trace = (over: Partial<DecisionTrace>): DecisionTrace => ({
  channel: null,
  context: {
    ip: '',
    country: 'US',
    region: '',
    usState: '',
    device: 'desktop',
    os: 'windows',
    browser: 'chrome',
    tvFamily: '',
    playerSize: 'large',
    width: 640,
    height: 360,
    appBundle: '',
    domain: '',
  },
  result: 'filled',
  indexedOut: 0,
  sources: [campaign, tag],
  winner: campaign,
  totalMs: 3,
  snapshotVersion: 1,
  ivt: null,
  ...over,
});

describe('the trace in words', () => {
  it('says who filled at what price, or why nothing did', () => {
    expect(resultSentence(trace({}))).toBe('Filled: campaign “Spring” won at $6.50 CPM.');
    expect(resultSentence(trace({ winner: { ...tag, fate: 'won', clearingCpm: 4_000_000 } }))).toBe(
      'Filled: VAST tag “Beacon DSP” won at $4.00 CPM.',
    );
    expect(sourceLabel({ source: 'ad_exchange' })).toBe('Ad exchange');
    expect(resultSentence(trace({ result: 'no_bid', winner: null, sources: [{ ...tag, fate: 'no_fill' }] }))).toBe(
      'Not filled: 1 demand source was asked and none bid above the floor.',
    );
    expect(resultSentence(trace({ result: 'channel_targeting.country', winner: null }))).toBe(
      "Not filled: the channel's own targeting refused this request (country).",
    );
    expect(resultSentence(trace({ result: 'channel_targeting.iab_category', winner: null }))).toBe(
      "Not filled: the channel's own targeting refused this request (IAB content category).",
    );
    expect(resultSentence(trace({ result: 'channel_paused', winner: null }))).toMatch(/paused or archived/);
    expect(resultSentence(trace({ result: 'ivt.datacenter_ip', winner: null, sources: [] }))).toBe(
      'Not filled: blocked as invalid traffic (data centre or cloud IP address).',
    );
  });

  it('states whether the post-bid pixels were added and why not', () => {
    const base = {
      source: 'channel' as const,
      percent: 25,
      draw: 12.5,
      pixels: [{ id: 1, vendor: 'HUMAN', samplePercent: 100, draw: 3, added: true }],
      maxImps: 1000,
      monthUsed: 10,
    };
    expect(postbidSentence(trace({}))).toBe('');
    expect(postbidSentence(trace({ postbid: { ...base, result: 'added' } }))).toBe(
      'Post-bid pixels: HUMAN added (25% of impressions are scanned; this one drew 12.50).',
    );
    expect(postbidSentence(trace({ postbid: { ...base, result: 'sampled_out', draw: 80 } }))).toBe(
      'Post-bid pixels: not added, this impression is outside the 25% scanned (it drew 80.00).',
    );
    expect(postbidSentence(trace({ postbid: { ...base, result: 'cap_reached' } }))).toBe(
      'Post-bid pixels: not added, the monthly cap of 1,000 scanned impressions is reached.',
    );
    expect(postbidSentence(trace({ postbid: { ...base, result: 'cap_lease' } }))).toBe(
      'Post-bid pixels: not added, this edge process was still getting its share of the monthly cap.',
    );
    expect(postbidSentence(trace({ postbid: { ...base, result: 'none_configured', source: null } }))).toBe(
      'Post-bid pixels: none configured for this channel.',
    );
  });

  it("states the pre-bid IVT check's verdict, or nothing when the channel is not checked", () => {
    expect(ivtSentence(trace({}))).toBe('');
    expect(ivtSentence(trace({ ivt: { mode: 'count', reason: '', blocked: false } }))).toBe(
      'IVT check: clean (flagged requests are served and counted as IVT).',
    );
    expect(ivtSentence(trace({ ivt: { mode: 'count', reason: 'known_crawler', blocked: false } }))).toBe(
      'IVT check: flagged as known crawler or spider; served, counted as IVT.',
    );
    expect(ivtSentence(trace({ ivt: { mode: 'block', reason: 'bot_user_agent', blocked: true } }))).toBe(
      'IVT check: flagged as bot, automation tool or HTTP library; blocked, answered empty.',
    );
  });

  it('gives each fate its rule, error, time, bid and rival', () => {
    const all = [campaign, tag];
    expect(fateText(campaign, all)).toBe('Won at $6.50 CPM (bid $7.00)');
    expect(fateText(tag, all)).toBe('Bid $4.00 CPM, lost to Spring');
    expect(fateText({ ...tag, fate: 'timeout', ms: 1500 }, all)).toBe('Timed out after 1500 ms');
    expect(fateText({ ...tag, fate: 'no_fill', reason: 'bad_xml', vastError: 100 }, all)).toBe(
      'No fill: the answer was not well-formed XML, VAST error 100 (XML parsing error)',
    );
    expect(
      fateText(
        {
          ...tag,
          fate: 'no_fill',
          reason: 'no_ad',
          vastError: 303,
          errorPings: ['https://d.test/w?c=303', 'https://d.test/e?c=303'],
        },
        all,
      ),
    ).toBe(
      "No fill: the answer held no ad, VAST error 303 (no ads VAST response after wrappers); live traffic reports it to the demand's 2 error trackers",
    );
    expect(fateText({ ...tag, fate: 'filtered', reason: 'targeting.os' }, all)).toBe(
      'Filtered: its targeting refused the request (os)',
    );
    expect(fateText({ ...tag, fate: 'filtered', reason: 'targeting.iab_category' }, all)).toBe(
      'Filtered: its targeting refused the request (IAB content category)',
    );
    expect(fateText({ ...tag, fate: 'below_floor', bidCpm: 1_000_000, reason: 'floor_2500000' }, all)).toBe(
      'Bid $1.00 CPM, below the $2.50 floor',
    );
    expect(reasonText('http_500')).toBe('the demand server answered HTTP 500');
    expect(fateText({ ...tag, fate: 'no_fill', reason: 'blocked_adomain' }, all)).toBe(
      'No fill: its advertiser is blocked here',
    );
    expect(reasonText('something_new')).toBe('something new');
    expect(fateText({ ...tag, fate: 'no_fill', reason: 'nonlinear_too_large', vastError: 501 }, all)).toBe(
      'No fill: its overlay (NonLinear) ad is larger than the slot, VAST error 501 (NonLinear ad larger than the display area)',
    );
    expect(fateText({ ...tag, fate: 'no_fill', reason: 'no_nonlinear_resource', vastError: 503 }, all)).toMatch(
      /nothing to show, VAST error 503/,
    );
    expect(fateText({ ...tag, fate: 'no_fill', reason: 'not_linear', vastError: 201 }, all)).toMatch(
      /VAST error 201 \(expecting different linearity\)$/,
    );
    expect(fateText({ ...tag, fate: 'no_fill', reason: 'linear_on_display', vastError: 201 }, all)).toBe(
      'No fill: the ad was a linear video, which a display slot cannot play (it had no overlay, NonLinear, creative), VAST error 201 (expecting different linearity)',
    );
    expect(fateText({ ...campaign, fate: 'filtered', reason: 'below_duration_floor' }, all)).toBe(
      "Filtered: its price is below the floor of its ad's length (durfloors)",
    );
    expect(reasonText('bad_adm_no_media')).toBe(
      "its bid's VAST had no ad a player could play (the ad had no media file)",
    );
    expect(reasonText('currency_XYZ')).toBe("its bid's currency (XYZ) has no rate");
    expect(reasonText('deal.flight_ended')).toBe('under the deal, its flight has ended');
    expect(reasonText('delivery.frequency_cap')).toBe(
      'it won the auction, then delivery control refused it: its frequency cap for this viewer is reached',
    );
  });

  it('matches a tracker URL as the VAST library sends it, macros filled in', () => {
    const pattern = trackerUrlPattern(
      'https://ads.example.com/ev?e=error&code=[ERRORCODE]&cb=%5BCACHEBUSTING%5D&t=a.b',
    );
    expect(pattern.test('https://ads.example.com/ev?e=error&code=405&cb=12345678&t=a.b')).toBe(true);
    expect(pattern.test('https://ads.example.com/ev?e=start&code=405&cb=1&t=a.b')).toBe(false);
    expect(trackerUrlPattern('http://x.test/ev?e=start&t=q.r').test('http://x.test/ev?e=start&t=q.r')).toBe(true);
    expect(templateUrl({ id: null, url: ' http://x.test/imp ' })).toBe('http://x.test/imp');
    expect(templateUrl(42)).toBe('');
  });
});

describe('an ad break in words', () => {
  const slot = (sequence: number, result: string, durationS = 0) => ({
    sequence,
    result,
    winner: null,
    maxDurationS: 60,
    durationS,
  });
  it('sums the filled ads and says where the break ended', () => {
    expect(podSentence([slot(1, 'filled', 15), slot(2, 'filled', 30), slot(3, 'no_bid')])).toBe(
      '2 ads fill 45 s of the break, played in this order (each <Ad sequence="n">). The demand sources below are the first slot\'s.',
    );
    expect(podSentence([slot(1, 'filled', 15), slot(2, 'filled', 0)])).toContain('fill at least 15 s');
    expect(podSentence([slot(1, 'filled', 6)])).toMatch(/^1 ad fills 6 s/);
    expect(podSlotText(slot(2, 'no_demand'))).toMatch(
      /^Not filled \(no demand source was eligible.*repeat.*\): the break ends here\.$/,
    );
  });
});

describe('what was set aside, in words', () => {
  const miss = (over: Partial<TargetingMiss>): TargetingMiss => ({
    rule: 'country',
    include: true,
    values: ['US'],
    more: 0,
    viewer: 'DE',
    ...over,
  });

  it('says each targeting rule with its values and what the request said', () => {
    expect(missText(miss({}))).toBe('country US only; the viewer is in DE');
    expect(missText(miss({ include: false, values: ['DE', 'AT'] }))).toBe(
      'country DE, AT excluded; the viewer is in DE',
    );
    expect(missText(miss({ viewer: '' }))).toBe("country US only; the viewer's country is not known");
    expect(missText(miss({ rule: 'geo', values: ['CA', 'NY'], viewer: '' }))).toBe(
      'US state CA, NY only; the viewer is not in a known US state',
    );
    expect(missText(miss({ rule: 'device', values: ['smarttv'], viewer: 'mobile' }))).toBe(
      "device smarttv only; the viewer's device is mobile",
    );
    expect(missText(miss({ rule: 'os', include: false, values: ['windows'], viewer: 'windows' }))).toBe(
      "OS windows excluded; the viewer's OS is windows",
    );
    expect(missText(miss({ rule: 'tv_family', values: ['roku'], viewer: '' }))).toBe(
      'TV family roku only; the viewer is not on a smart TV',
    );
    expect(missText(miss({ rule: 'player_size', values: ['xlarge'], viewer: 'small' }))).toBe(
      'player size xlarge only; the player is small',
    );
    expect(missText(miss({ rule: 'app_list', values: ['com.a', 'com.b'], more: 1200, viewer: 'com.c' }))).toBe(
      'app list com.a, com.b and 1,200 more only; the app is com.c',
    );
    expect(missText(miss({ rule: 'publisher_list', values: ['news.example.com'], viewer: '' }))).toBe(
      'publisher list news.example.com only; the request names no site or app',
    );
    expect(missText(miss({ rule: 'iab_category', include: false, values: ['IAB7'], viewer: 'IAB7-1,IAB2' }))).toBe(
      'IAB content category IAB7 excluded; the content is IAB7-1, IAB2',
    );
    expect(missText(miss({ rule: 'day_part', values: [], viewer: 'Sat 03:00 UTC' }))).toBe(
      'day-parting: not served at this hour (Sat 03:00 UTC)',
    );
    expect(missText(miss({ rule: 'ip_list', include: false, values: ['Office'], viewer: '198.51.100.9' }))).toBe(
      "IP list Office excluded; the viewer's address is 198.51.100.9",
    );
    expect(missText(miss({ rule: 'key_value', values: ['genre=sports', 'tier=gold'], viewer: 'genre=news' }))).toBe(
      'key-value genre=sports, tier=gold only; the request says genre=news',
    );
    expect(missText(miss({ rule: 'city', values: ['us-ca:mountain view'], viewer: '' }))).toBe(
      "city us-ca:mountain view only; the viewer's city is not known",
    );
    expect(missText(miss({ rule: 'metro', values: ['807'], viewer: '501' }))).toBe(
      "metro 807 only; the viewer's metro is 501",
    );
    expect(missText(miss({ rule: 'postal_code', values: ['us:94043'], viewer: '' }))).toBe(
      "postal code us:94043 only; the viewer's postal code is not known",
    );
  });

  it("names a filtered source's rule, flight day and deal in words, the code kept for the API", () => {
    const all = [campaign, tag];
    expect(fateText({ ...tag, fate: 'filtered', reason: 'targeting.country', miss: miss({}) }, all)).toBe(
      'Filtered: country US only; the viewer is in DE',
    );
    expect(fateText({ ...campaign, fate: 'filtered', reason: 'flight_ended', flightDay: '2026-11-01' }, all)).toBe(
      'Filtered: its flight ended (its last day was 2026-11-01)',
    );
    expect(
      fateText({ ...campaign, fate: 'filtered', reason: 'flight_not_started', flightDay: '2026-12-01' }, all),
    ).toBe('Filtered: its flight starts on 2026-12-01');
    expect(
      fateText(
        {
          ...campaign,
          fate: 'filtered',
          reason: 'deal.targeting.device',
          miss: miss({ rule: 'device', values: ['mobile'], viewer: 'desktop' }),
        },
        all,
      ),
    ).toBe("Filtered: under the deal, device mobile only; the viewer's device is desktop");
    expect(fateText({ ...tag, fate: 'filtered', reason: 'daily_imp_cap' }, all)).toBe(
      'Filtered: its daily impression cap was reached',
    );
    expect(fateText({ ...campaign, fate: 'filtered', reason: 'frequency_cap' }, all)).toBe(
      'Filtered: its frequency cap for this viewer is reached',
    );
    expect(
      indexedOutText({
        id: 4,
        name: 'Summer Promo',
        reason: 'targeting.country',
        misses: [miss({}), miss({ rule: 'device', values: ['smarttv'], viewer: 'desktop' })],
      }),
    ).toBe("country US only; the viewer is in DE; device smarttv only; the viewer's device is desktop");
    // its channel assignment first: the campaign would not run on this channel whatever its targeting said
    expect(indexedOutText({ id: 5, name: 'Other channel', reason: 'channel_not_assigned', misses: [miss({})] })).toBe(
      'its channel assignment leaves out this channel (it runs on other channels only, or on all but this one); country US only; the viewer is in DE',
    );
    expect(indexedOutText({ id: 6, name: 'Elsewhere', reason: 'channel_not_assigned', misses: [] })).toBe(
      'its channel assignment leaves out this channel (it runs on other channels only, or on all but this one)',
    );
  });

  it('says why nothing filled by what set the campaigns and tags aside, counted by kind of rule', () => {
    const filtered = (source: SourceFate['source'], reason: string): SourceFate => ({
      ...tag,
      source,
      fate: 'filtered',
      reason,
    });
    expect(
      resultSentence(
        trace({
          result: 'no_demand',
          winner: null,
          indexedOut: 2,
          sources: [filtered('campaign', 'targeting.publisher_list'), filtered('campaign', 'daily_budget')],
        }),
      ),
    ).toBe('Not filled: no campaign or demand tag was eligible: campaigns set aside by targeting (3) or budget (1).');
    expect(
      resultSentence(
        trace({
          result: 'no_demand',
          winner: null,
          sources: [
            filtered('campaign', 'pacing'),
            filtered('campaign', 'flight_ended'),
            filtered('campaign', 'frequency_cap'),
            filtered('vast_tag', 'daily_request_cap'),
            filtered('vast_tag', 'targeting.os'),
          ],
        }),
      ),
    ).toBe(
      'Not filled: no campaign or demand tag was eligible: campaigns set aside by pacing (1), flight dates (1) or frequency cap (1); demand tags by caps (1) or targeting (1).',
    );
    expect(
      resultSentence(
        trace({
          result: 'no_bid',
          winner: null,
          indexedOut: 5,
          sources: [{ ...tag, fate: 'no_fill', reason: 'no_ad' }],
        }),
      ),
    ).toBe('Not filled: 1 demand source was asked and none bid above the floor; campaigns set aside by targeting (5).');
    expect(resultSentence(trace({ result: 'no_demand', winner: null, sources: [] }))).toBe(
      'Not filled: no demand source was eligible for this request (see why each was filtered).',
    );
    expect(setAsideSummary(trace({}))).toBe('');
    expect(
      resultSentence(
        trace({
          result: 'no_demand',
          winner: null,
          indexedOut: 1,
          sources: [],
          notInAdServer: {
            campaigns: [
              { id: 9, name: 'Pending', reasons: [{ code: 'creative_pending', message: 'Creative pending approval' }] },
            ],
            more: 1,
          },
        }),
      ),
    ).toBe(
      'Not filled: no campaign or demand tag was eligible: campaigns set aside by targeting (1); 2 campaigns are not in the ad server.',
    );
  });
});

describe('an optimised demand order, in words', () => {
  const order: NonNullable<DecisionTrace['demandOrder']> = {
    basis: 'measured',
    explorePercent: 10,
    windowMinutes: 60,
    maxCalls: null,
    timeoutCostCpm: 1_000_000,
    tags: [
      { id: 2, name: 'Steady', pinned: true, priority: 1, calls: 80, fills: 72, timeouts: 0, valueCpm: 21_600_000 },
      { id: 1, name: 'Rich', pinned: false, priority: 2, calls: 120, fills: 60, timeouts: 0, valueCpm: 30_000_000 },
      { id: 3, name: 'New', pinned: false, priority: 3, calls: 4, fills: 1, timeouts: 0, valueCpm: null },
    ],
  };

  it('says why the tags were called in this order, each with its worth per 1,000 calls', () => {
    expect(demandOrderSentence({})).toBe('');
    expect(demandOrderSentence({ demandOrder: order })).toBe(
      'Demand order, by what each tag earned per call in the last 60 minutes: Steady (pinned, $21.60 per 1,000 calls), Rich ($30.00 per 1,000 calls), New (not measured yet).',
    );
    expect(demandOrderSentence({ demandOrder: { ...order, basis: 'exploring', maxCalls: 2 } })).toBe(
      'Demand order, exploring (this request is one of the 10% that try the tags in a random order), 2 called first: Steady (pinned, $21.60 per 1,000 calls), Rich ($30.00 per 1,000 calls), New (not measured yet).',
    );
  });
});

describe('the arm of a split channel, in words', () => {
  it('says which arm served the request and how it was drawn', () => {
    expect(armSentence({})).toBe('');
    expect(armSentence({ arm: { arm: 'B', percent: 30, draw: 12.5, by: 'random' } })).toBe(
      'A/B split: arm B served this request (arm B serves 30% of requests; this one drew 12.50, drawn at random).',
    );
    expect(armSentence({ arm: { arm: 'A', percent: 30, draw: 71, by: 'viewer' } })).toBe(
      "A/B split: arm A served this request (arm B serves 30% of requests; this one drew 71.00, drawn from the viewer's device id).",
    );
  });
});

describe('dealsSentence', () => {
  it('names the deals offered and those left out with why, and says nothing without deals', () => {
    expect(dealsSentence({})).toBe('');
    expect(
      dealsSentence({
        deals: [{ dealId: 'SD-1', name: 'Sports PMP', floorCpm: 5_000_000, auctionType: 1, privateAuction: true }],
        dealsLeftOut: [
          { dealId: 'SD-2', name: 'Capped PMP', reason: 'deal_imp_cap' },
          { dealId: 'SD-3', name: 'Daily PMP', reason: 'deal_daily_imp_cap' },
        ],
      }),
    ).toBe(
      "Deals for buyers: Sports PMP (SD-1, private) offered; Capped PMP (SD-2) left out, its impression cap is reached; Daily PMP (SD-3) left out, today's impression cap is reached.",
    );
    expect(dealsSentence({ dealsLeftOut: [{ dealId: 'SD-2', name: 'Capped PMP', reason: 'budget_lease' }] })).toBe(
      'Deals for buyers: Capped PMP (SD-2) left out, this edge process is still getting its share of the cap.',
    );
  });
});
