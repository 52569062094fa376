import {
  type DecisionTrace,
  formatUsdMicros,
  type IndexedOutCampaign,
  IVT_REASONS,
  type PodSlotTrace,
  type SourceFate,
  type TargetingMiss,
} from '@adplane/shared';

/**
 * The decision trace in ad-ops sentences: why a request filled or not, and each demand source's fate.
 * Pure functions, so the drawer and its tests read the same words.
 */

/** Player sizes offered as presets (width x height), one per size bucket of the targeting contract and a full-HD one. */
export const PLAYER_SIZE_PRESETS = [
  { id: '320x180', width: 320, height: 180, label: '320×180 (small)' },
  { id: '480x270', width: 480, height: 270, label: '480×270 (medium)' },
  { id: '640x360', width: 640, height: 360, label: '640×360 (large)' },
  { id: '1280x720', width: 1280, height: 720, label: '1280×720 (x-large)' },
  { id: '1920x1080', width: 1920, height: 1080, label: '1920×1080 (x-large, CTV)' },
] as const;

/** VAST 4.x error codes (IAB, section 2.3.6.3) a no-fill may carry. */
const VAST_ERRORS: Record<number, string> = {
  100: 'XML parsing error',
  101: 'VAST schema validation error',
  102: 'VAST version not supported',
  200: 'trafficking error',
  201: 'expecting different linearity',
  300: 'wrapper error',
  301: "timeout of the wrapper's VAST URI",
  302: 'wrapper limit reached',
  303: 'no ads VAST response after wrappers',
  400: 'general linear error',
  401: 'media file not found',
  402: 'timeout of the media file',
  403: 'no supported media file',
  405: 'problem displaying the media file',
  501: 'NonLinear ad larger than the display area',
  503: 'no NonLinear resource of a supported type',
  900: 'undefined error',
};

function vastErrorText(code: number): string {
  return `VAST error ${code}${VAST_ERRORS[code] ? ` (${VAST_ERRORS[code]})` : ''}`;
}

/** Rules and reasons the edge names, in words; an unknown one is shown as the edge wrote it. */
const REASONS: Record<string, string> = {
  flight_not_started: 'its flight has not started',
  flight_ended: 'its flight has ended',
  no_fitting_creative: "no approved creative fits this channel's format and player",
  daily_budget: 'its daily budget is spent',
  total_budget: 'its total budget is spent',
  no_price_stated: 'the answer stated no <Pricing> and the tag is priced as a revenue share',
  source_error: 'the call failed',
  empty_answer: 'the answer was empty',
  no_ad: 'the answer held no ad',
  bad_xml: 'the answer was not well-formed XML',
  not_vast: 'the answer was not VAST',
  bad_wrapper: 'a wrapper had no VAST URI',
  bad_ad: 'the ad was malformed',
  not_linear: 'the ad had no linear (video) creative, only an overlay (NonLinear) or companions',
  linear_on_display:
    'the ad was a linear video, which a display slot cannot play (it had no overlay, NonLinear, creative)',
  no_creative: 'the ad had no creative',
  unsupported_version: 'the answer was VAST 1.0, which is not supported',
  no_media: 'the ad had no media file',
  nonlinear_too_large: 'its overlay (NonLinear) ad is larger than the slot',
  no_nonlinear_resource: 'its overlay (NonLinear) ad had nothing to show',
  answer_too_large: 'the answer was too large',
  invalid_gzip: 'the answer was not the gzip it said it was',
  bad_url: 'its URL is not a valid address',
  no_endpoint: 'it has no endpoint URL',
  no_bid: 'the demand answered no bid',
  no_time_left: 'too little time was left to call it',
  invalid_response: 'the bid response was malformed',
  request_id_mismatch: 'the bid response answered another request',
  imp_id_mismatch: 'the bid was for another impression',
  invalid_price: 'the bid had no valid price',
  wrong_media: 'the bid was not of the format asked for',
  no_markup: 'the bid had no ad markup',
  currency_invalid: "its bid's currency was not a currency code",
  deal_not_offered: 'its bid named a deal this request does not offer',
  private_auction: 'the auction is private (deals only) and its bid named no deal',
  deal_seat_not_allowed: "its bid's seat is not one of the deal's buyer seats",
  deal_adomain_not_allowed: "its bid's advertiser domain is not one the deal allows",
  no_banner_size: 'the request states no banner size',
  prebid_server_not_configured: 'no Prebid Server is set up (ADPLANE_PREBID_SERVER_URL)',
  unknown_partner: 'its Prebid partner is unknown',
  supplier_not_bought: 'the campaign buys from other suppliers',
  channel_not_assigned:
    'its channel assignment leaves out this channel (it runs on other channels only, or on all but this one)',
  pacing: 'its pacing holds it back for now',
  budget_lease: 'this edge process is still getting its share of the budget',
  frequency_cap: 'its frequency cap for this viewer is reached',
  connection_failed: 'the demand server could not be reached',
  address_refused:
    'its address is on a private network (or the cloud metadata address), which the ad server does not call',
  demand_loop:
    'a demand loop: the request it made came back to this ad server from its own demand call, which the ad server refuses (no fill)',
  'demand_loop.own_entry_point':
    "a demand loop: its URL is one of this ad server's own ad request endpoints, which the ad server does not call",
  wrapper_timeout: 'a wrapper hop timed out',
  too_many_wrappers: 'too many wrappers in a row',
  wrapper_not_allowed: 'a wrapper allowed no further wrapper, and another followed',
  blocked_adomain: 'its advertiser is blocked here',
  pod_separation: 'an earlier ad of the same ad break has its advertiser or its campaign',
  pod_repeat: 'an earlier ad of the same ad break is the same video',
  below_floor_per_second: 'its price is below the floor per second of the ad (mincpmpersec) for its length',
  below_duration_floor: "its price is below the floor of its ad's length (durfloors)",
  blocked_category:
    "its ad category is blocked here (the request's bcat, or the blocked ad categories of the targeting)",
  blocked_attribute: 'it is skippable, which the impression blocks',
  duration_not_allowed: 'its length is not one the player takes',
  mime_not_allowed: 'none of its media files is of a type the player plays',
  qps_limit: 'its QPS limit was reached',
  daily_request_cap: 'its daily request cap was reached',
  daily_imp_cap: 'its daily impression cap was reached',
  deal_imp_cap: "the supply deal's impression cap was reached",
  deal_daily_imp_cap: "the supply deal's daily impression cap was reached",
  zero_price: 'its price was zero',
  tag_paused: 'the tag is paused',
  tag_archived: 'the tag is archived',
  tag_account_paused: "the tag's account or advertiser is paused",
  tag_not_found: 'the tag no longer exists',
};

/** A targeting rule's name (compiledTargeting.ts refusal) as words: `tv_family` -> `tv family`; IAB categories by their full name. */
const ruleText = (rule: string): string => (rule === 'iab_category' ? 'IAB content category' : rule.replace(/_/g, ' '));

export function reasonText(reason: string | undefined): string {
  if (!reason) return '';
  if (REASONS[reason]) return REASONS[reason];
  const rule = /^(?:channel_)?targeting\.(.+)$/.exec(reason);
  if (rule) return `its targeting refused the request (${ruleText(rule[1]!)})`;
  const floor = /^floor_(\d+)$/.exec(reason);
  if (floor) return `below the ${formatUsdMicros(Number(floor[1]))} floor`;
  const http = /^http_(\d+)$/.exec(reason);
  if (http) return `the demand server answered HTTP ${http[1]}`;
  if (reason.startsWith('bad_adm_'))
    return `its bid's VAST had no ad a player could play (${reasonText(reason.slice('bad_adm_'.length))})`;
  const currency = /^currency_(.+)$/.exec(reason);
  if (currency) return `its bid's currency (${currency[1]}) has no rate`;
  if (reason.startsWith('deal.')) return `under the deal, ${reasonText(reason.slice('deal.'.length))}`;
  if (reason.startsWith('delivery.'))
    return `it won the auction, then delivery control refused it: ${reasonText(reason.slice('delivery.'.length))}`;
  return reason.replace(/_/g, ' ');
}

const SOURCE_LABELS: Record<SourceFate['source'], string> = {
  campaign: 'Campaign',
  vast_tag: 'VAST tag',
  rtb_tag: 'RTB tag',
  prebid_tag: 'Prebid tag',
  ad_exchange: 'Ad exchange',
};

/** 'Campaign' -> 'campaign' inside a sentence; 'VAST tag' stays as it is. */
const inSentence = (label: string): string =>
  /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label;

/** What kind of demand a trace row is, in the console's words. */
export const sourceLabel = (s: Pick<SourceFate, 'source'>): string => SOURCE_LABELS[s.source] ?? 'Demand';

/** `campaign#12` -> the name of that source in the same trace. */
function lostToName(lostTo: string | undefined, sources: readonly SourceFate[]): string {
  if (!lostTo) return 'a higher bid';
  const [kind, id] = lostTo.split('#');
  const hit =
    sources.find((s) => String(s.id) === id && s.source === kind) ??
    sources.find(
      (s) => String(s.id) === id && (kind === 'campaign' ? s.source === 'campaign' : s.source !== 'campaign'),
    );
  return hit ? hit.name : lostTo;
}

/** A targeting rule's name in a sentence, by the code a refusal gives it. */
const RULE_LABELS: Record<string, string> = {
  country: 'country',
  geo: 'US state',
  city: 'city',
  metro: 'metro',
  postal_code: 'postal code',
  ip_list: 'IP list',
  key_value: 'key-value',
  device: 'device',
  os: 'OS',
  browser: 'browser',
  tv_family: 'TV family',
  player_size: 'player size',
  app_list: 'app list',
  publisher_list: 'publisher list',
  iab_category: 'IAB content category',
};

/** What the request said for a rule, as a clause: "the viewer is in DE". */
function viewerClause(m: TargetingMiss): string {
  const v = m.viewer;
  switch (m.rule) {
    case 'country':
      return v ? `the viewer is in ${v}` : "the viewer's country is not known";
    case 'geo':
      return v ? `the viewer is in ${v}` : 'the viewer is not in a known US state';
    case 'tv_family':
      return v ? `the viewer's TV family is ${v}` : 'the viewer is not on a smart TV';
    case 'player_size':
      return v ? `the player is ${v}` : "the player's size is not known";
    case 'app_list':
      return v ? `the app is ${v}` : 'the request names no app';
    case 'city':
      return v ? `the viewer is in ${v}` : "the viewer's city is not known";
    case 'ip_list':
      return v ? `the viewer's address is ${v}` : "the viewer's address is not known";
    case 'key_value':
      return v ? `the request says ${v.replace(/,/g, ', ')}` : 'the request has no key-values';
    case 'publisher_list':
      return v ? `the site or app is ${v}` : 'the request names no site or app';
    case 'iab_category':
      return v ? `the content is ${v.replace(/,/g, ', ')}` : 'the request states no content category';
    default:
      return v
        ? `the viewer's ${RULE_LABELS[m.rule] ?? m.rule} is ${v}`
        : `the viewer's ${RULE_LABELS[m.rule] ?? m.rule} is not known`;
  }
}

/** A targeting rule that refused a request, in words: "country US only; the viewer is in DE". */
export function missText(m: TargetingMiss): string {
  if (m.rule === 'day_part') return `day-parting: not served at this hour (${m.viewer})`;
  const label = RULE_LABELS[m.rule] ?? m.rule.replace(/_/g, ' ');
  const list = `${m.values.join(', ')}${m.more ? ` and ${m.more.toLocaleString('en-US')} more` : ''}`;
  return `${label} ${list} ${m.include ? 'only' : 'excluded'}; ${viewerClause(m)}`;
}

/** Why a source was filtered, in words: the rule with its values and the request's, the flight's day, or the reason's words. */
function filteredText(f: SourceFate): string {
  const deal = f.reason?.startsWith('deal.') ? 'under the deal, ' : '';
  if (f.miss) return `${deal}${missText(f.miss)}`;
  const reason = f.reason?.replace(/^deal\./, '');
  if (f.flightDay && reason === 'flight_not_started') return `${deal}its flight starts on ${f.flightDay}`;
  if (f.flightDay && reason === 'flight_ended') return `${deal}its flight ended (its last day was ${f.flightDay})`;
  return reasonText(f.reason) || 'not eligible';
}

/** A campaign the targeting indexes set aside, in words: its channel assignment when it leaves out the channel, and each rule that refused it. */
export const indexedOutText = (c: IndexedOutCampaign): string => {
  const misses = c.misses.map(missText);
  return (c.reason === 'channel_not_assigned' || !misses.length ? [reasonText(c.reason), ...misses] : misses).join(
    '; ',
  );
};

/** The kind of rule a refusal is, for the no-fill summary ("set aside by targeting (3) or pacing (1)"). */
function refusalGroup(reason: string): string {
  const r = reason.replace(/^deal\./, '');
  if (r.startsWith('targeting.')) return 'targeting';
  if (r === 'channel_not_assigned') return 'channel assignment';
  if (r.startsWith('flight_')) return 'flight dates';
  if (r === 'daily_budget' || r === 'total_budget') return 'budget';
  if (r === 'pacing' || r === 'budget_lease') return 'pacing';
  if (r === 'frequency_cap') return 'frequency cap';
  if (r === 'qps_limit' || r === 'daily_request_cap' || r === 'daily_imp_cap') return 'caps';
  if (r.startsWith('tag_')) return 'status';
  if (r === 'no_fitting_creative' || r === 'blocked_category' || r.startsWith('below_')) return 'creative';
  return 'other rules';
}

/** "targeting (3) or pacing (1)": counts by group, the largest first. */
function groupCounts(reasons: readonly string[], extraTargeting = 0): string {
  const counts = new Map<string, number>();
  if (extraTargeting) counts.set('targeting', extraTargeting);
  for (const r of reasons) counts.set(refusalGroup(r), (counts.get(refusalGroup(r)) ?? 0) + 1);
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([g, n]) => `${g} (${n.toLocaleString('en-US')})`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}` : (parts[0] ?? '');
}

/**
 * What was set aside before the auction, in a clause: "campaigns set aside by targeting (3) or
 * pacing (1); demand tags by caps (1); 2 campaigns are not in the ad server"; '' when nothing was.
 */
export function setAsideSummary(trace: Pick<DecisionTrace, 'sources' | 'indexedOut' | 'notInAdServer'>): string {
  const filtered = trace.sources.filter((s) => s.fate === 'filtered');
  const campaigns = groupCounts(
    filtered.filter((s) => s.source === 'campaign').map((s) => s.reason ?? ''),
    trace.indexedOut,
  );
  const others = filtered.filter((s) => s.source !== 'campaign');
  const tags = groupCounts(others.map((s) => s.reason ?? ''));
  const tagWord = others.every((s) => s.source === 'ad_exchange') ? 'ad exchanges' : 'demand tags';
  const absent = trace.notInAdServer ? trace.notInAdServer.campaigns.length + trace.notInAdServer.more : 0;
  return [
    campaigns && `campaigns set aside by ${campaigns}`,
    tags && `${tagWord} by ${tags}`,
    absent && `${absent.toLocaleString('en-US')} campaign${absent === 1 ? ' is' : 's are'} not in the ad server`,
  ]
    .filter(Boolean)
    .join('; ');
}

/** One source's fate as a sentence. */
export function fateText(f: SourceFate, sources: readonly SourceFate[]): string {
  const bid = f.bidCpm !== undefined ? formatUsdMicros(f.bidCpm) : '';
  switch (f.fate) {
    case 'filtered':
      return `Filtered: ${filteredText(f)}`;
    case 'not_called':
      return 'Not called: a higher priority tier filled first';
    case 'timeout':
      return `Timed out after ${f.ms ?? 0} ms`;
    case 'no_fill': {
      const text = [
        'No fill',
        [reasonText(f.reason), f.vastError ? vastErrorText(f.vastError) : ''].filter(Boolean).join(', '),
      ]
        .filter(Boolean)
        .join(': ');
      const pings = f.errorPings?.length ?? 0;
      // a test fires nothing; the same no-fill on live traffic tells the demand
      return pings
        ? `${text}; live traffic reports it to the demand's ${pings === 1 ? 'error tracker' : `${pings} error trackers`}`
        : text;
    }
    case 'below_floor':
      return `Bid ${bid} CPM, ${reasonText(f.reason) || 'below the floor'}`;
    case 'lost':
      return `Bid ${bid} CPM, lost to ${lostToName(f.lostTo, sources)}`;
    case 'won': {
      const pays = f.clearingCpm !== undefined ? formatUsdMicros(f.clearingCpm) : bid;
      return `Won at ${pays} CPM${bid && bid !== pays ? ` (bid ${bid})` : ''}`;
    }
  }
}

/** The request's outcome as one sentence: filled by whom at what price, or why not. */
export function resultSentence(trace: DecisionTrace): string {
  const r = trace.result;
  const w = trace.winner;
  if (r === 'filled' && w)
    return `Filled: ${inSentence(sourceLabel(w))} “${w.name}” won at ${formatUsdMicros(w.clearingCpm ?? w.bidCpm ?? 0)} CPM.`;
  const asked = trace.sources.filter((s) => s.fate !== 'filtered' && s.fate !== 'not_called').length;
  const setAside = setAsideSummary(trace);
  if (r === 'no_bid')
    return `Not filled: ${asked} demand source${asked === 1 ? ' was' : 's were'} asked and none bid above the floor${setAside ? `; ${setAside}` : ''}.`;
  if (r === 'no_demand')
    return setAside
      ? `Not filled: no campaign or demand tag was eligible: ${setAside}.`
      : 'Not filled: no demand source was eligible for this request (see why each was filtered).';
  if (r === 'channel_paused') return 'Not filled: the channel, or an account above it, is paused or archived.';
  if (r.startsWith('ivt.')) return `Not filled: blocked as invalid traffic (${ivtReasonText(r.slice('ivt.'.length))}).`;
  if (r.startsWith('channel_targeting.'))
    return `Not filled: the channel's own targeting refused this request (${ruleText(r.slice('channel_targeting.'.length))}).`;
  if (r === 'unknown_channel') return 'Not filled: the edge does not know this channel yet.';
  if (r === 'warming_up') return 'Not filled: the edge is still loading its configuration.';
  return `Not filled: ${reasonText(r)}.`;
}

/** Why a slot of an ad break did not fill, in words: the break ends at it. */
export function podSlotText(slot: Pick<PodSlotTrace, 'result'>): string {
  const r = slot.result;
  const why =
    r === 'no_bid'
      ? 'no demand source filled it: none bid above the floor, or each bid would repeat an ad or an advertiser of the break'
      : r === 'no_demand'
        ? 'no demand source was eligible: each was filtered, or would repeat an ad, advertiser or campaign of the break'
        : reasonText(r);
  return `Not filled (${why}): the break ends here.`;
}

/** What an ad break holds: its ads and their seconds, and how a player takes them. */
export function podSentence(pod: readonly PodSlotTrace[]): string {
  const filled = pod.filter((s) => s.result === 'filled');
  const seconds = filled.reduce((sum, s) => sum + s.durationS, 0);
  const known = filled.every((s) => s.durationS > 0);
  if (filled.length === 0) return 'The break is empty.';
  const ads = `${filled.length} ad${filled.length === 1 ? '' : 's'}`;
  return `${ads} ${filled.length === 1 ? 'fills' : 'fill'} ${known ? '' : 'at least '}${seconds} s of the break, played in this order (each <Ad sequence="n">). The demand sources below are the first slot's.`;
}

/** An IVT reason code in words: its label, lower-cased inside a sentence. */
function ivtReasonText(reason: string): string {
  const label = (IVT_REASONS as Record<string, { label: string }>)[reason]?.label;
  return label ? inSentence(label) : reason.replace(/_/g, ' ');
}

/** The pre-bid IVT check's verdict in a sentence; '' when the channel's traffic is not checked. */
export function ivtSentence(trace: Pick<DecisionTrace, 'ivt'>): string {
  const v = trace.ivt;
  if (!v) return '';
  const treatment =
    v.mode === 'block' ? 'flagged requests are answered empty' : 'flagged requests are served and counted as IVT';
  if (!v.reason) return `IVT check: clean (${treatment}).`;
  return `IVT check: flagged as ${ivtReasonText(v.reason)}; ${v.blocked ? 'blocked, answered empty' : 'served, counted as IVT'}.`;
}

/** The post-bid pixels of a filled decision in a sentence (docs/traffic-quality.md); '' when it did not fill. */
export function postbidSentence(trace: Pick<DecisionTrace, 'postbid'>): string {
  const p = trace.postbid;
  if (!p) return '';
  const added = p.pixels.filter((x) => x.added).map((x) => x.vendor);
  switch (p.result) {
    case 'added':
      return `Post-bid pixels: ${added.join(', ')} added (${p.percent}% of impressions are scanned; this one drew ${p.draw?.toFixed(2)}).`;
    case 'not_enabled':
      return 'Post-bid pixels: none, post-bid is not enabled for this account.';
    case 'none_configured':
      return 'Post-bid pixels: none configured for this channel.';
    case 'sampled_out':
      return `Post-bid pixels: not added, this impression is outside the ${p.percent}% scanned (it drew ${p.draw?.toFixed(2)}).`;
    case 'pixels_sampled_out':
      return "Post-bid pixels: not added, every pixel's own sample missed this impression.";
    case 'cap_reached':
      return `Post-bid pixels: not added, the monthly cap of ${p.maxImps.toLocaleString('en-US')} scanned impressions is reached.`;
    case 'cap_lease':
      return 'Post-bid pixels: not added, this edge process was still getting its share of the monthly cap.';
  }
}

/** An optimised channel's demand order in a sentence: why the tags were called in this order, each with its worth. */
export function demandOrderSentence(trace: Pick<DecisionTrace, 'demandOrder'>): string {
  const o = trace.demandOrder;
  if (!o) return '';
  const tags = o.tags
    .map((t) => {
      const worth = t.valueCpm === null ? 'not measured yet' : `${formatUsdMicros(t.valueCpm)} per 1,000 calls`;
      return `${t.name} (${t.pinned ? 'pinned, ' : ''}${worth})`;
    })
    .join(', ');
  const why =
    o.basis === 'exploring'
      ? `exploring (this request is one of the ${o.explorePercent}% that try the tags in a random order)`
      : `by what each tag earned per call in the last ${o.windowMinutes} minutes`;
  const sets = o.maxCalls === null ? '' : `, ${o.maxCalls} called first`;
  return `Demand order, ${why}${sets}: ${tags}.`;
}

/** A split channel's arm in a sentence: which arm served the request and why. */
export function armSentence(trace: Pick<DecisionTrace, 'arm'>): string {
  const a = trace.arm;
  if (!a) return '';
  const by = a.by === 'viewer' ? "drawn from the viewer's device id" : 'drawn at random';
  return `A/B split: arm ${a.arm} served this request (arm B serves ${a.percent}% of requests; this one drew ${a.draw.toFixed(2)}, ${by}).`;
}

/** Why delivery control left a supply deal out of the request. */
const DEAL_LEFT_OUT: Readonly<Record<string, string>> = {
  deal_imp_cap: 'its impression cap is reached',
  deal_daily_imp_cap: "today's impression cap is reached",
  budget_lease: 'this edge process is still getting its share of the cap',
};

/** The channel's deals for buyers on the request in a sentence: those offered, and those left out with why. */
export function dealsSentence(trace: Pick<DecisionTrace, 'deals' | 'dealsLeftOut'>): string {
  const offered = (trace.deals ?? []).map((d) => `${d.name} (${d.dealId}${d.privateAuction ? ', private' : ''})`);
  const left = (trace.dealsLeftOut ?? []).map(
    (d) => `${d.name} (${d.dealId}) left out, ${DEAL_LEFT_OUT[d.reason] ?? d.reason}`,
  );
  if (!offered.length && !left.length) return '';
  const parts = [...(offered.length ? [`${offered.join(', ')} offered`] : []), ...left];
  return `Deals for buyers: ${parts.join('; ')}.`;
}

/** What a source earned the publisher and us, for the winner. */
export function winnerMoney(w: SourceFate): string {
  if (w.clearingCpm === undefined) return '';
  return `pays ${formatUsdMicros(w.clearingCpm)} CPM · publisher ${formatUsdMicros(w.payoutCpm ?? 0)} · margin ${formatUsdMicros(w.marginCpm ?? 0)}`;
}

/** A tracking URL template as the library may send it: macros ([CACHEBUSTING], %5BERRORCODE%5D...) match anything. */
export function trackerUrlPattern(template: string): RegExp {
  const parts = template.split(/\[[A-Za-z_]+\]|%5B[A-Za-z_]+%5D|\$\{[A-Za-z_]+\}/);
  return new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/** A template of the VAST library (a string, or `{ id, url }`) as its URL. */
export function templateUrl(t: unknown): string {
  if (typeof t === 'string') return t.trim();
  if (t && typeof t === 'object' && typeof (t as { url?: unknown }).url === 'string')
    return (t as { url: string }).url.trim();
  return '';
}
