import {
  AD_FORMATS,
  AUCTION_PRICES,
  ChannelInput,
  type ChannelRow,
  DEMAND_MODES,
  type DemandTagRow,
  ENVIRONMENTS,
  INTEGRATIONS,
  type Limit,
  parseChannelRow,
  parseDemandTagRow,
  type Price,
  type SkipSink,
  type StoredRow,
  TagInput,
  UNLIMITED,
  VAST_VERSIONS,
} from '@adplane/shared';
import {
  bySchema,
  documentOf,
  idList,
  isId,
  isMicros,
  isWhole,
  optionalId,
  otherFields,
  PLAIN_NO,
  plainName,
  plainText,
} from './plainFields.js';
import { channelFacts, NO_PARAMS, sharedPrice, tagFacts } from './sharedValues.js';

/**
 * Demand tags and channels as the snapshot keeps them (sharedValues.ts tagFacts, channelFacts), read
 * without the schema when the document is of the plain shape the API writes, else through it, as
 * campaignRead.ts reads campaigns. The schemas (shared kinds/tags.ts TagInput, kinds/channels.ts
 * ChannelInput) stay the rule: `plainTag` and `plainChannel` answer only for a document they can
 * tell the schema takes, with the values it would give, and leave every other one (a value of
 * another type or past a bound, a list with repeats, a Prebid tag, whose parameters the partner
 * catalogue checks) to the schema, which skips and reports a refused row. A field of the schema
 * these readers do not know is read by its own schema (plainFields.ts otherFields), so a field added
 * to the contract is read right before they learn it. supplyRead.test.ts holds them to the schemas
 * on generated, mutated and stored rows. A cold build of a million campaigns' store reads its
 * 300,000 tags and channels so, instead of a schema run and two copies per row.
 */
export function readTag(row: StoredRow, sink?: SkipSink): DemandTagRow | null {
  const plain = plainTag(row);
  if (plain) return plain;
  const t = parseDemandTagRow(row, sink);
  return t && tagFacts(t);
}

export function readChannel(row: StoredRow, sink?: SkipSink): ChannelRow | null {
  const plain = plainChannel(row);
  if (plain) return plain;
  const c = parseChannelRow(row, sink);
  return c && channelFacts(c);
}

/** A choice among `values` (absent: `otherwise`), PLAIN_NO for any other value. */
function choice<T extends string>(values: readonly T[], otherwise: T): (v: unknown) => T | typeof PLAIN_NO {
  return (v) => (v === undefined ? otherwise : values.includes(v as T) ? (v as T) : PLAIN_NO);
}

/** A price as a new object of its two fields (absent: `otherwise`), PLAIN_NO when the schema must read it. */
function price(v: unknown, otherwise: Price): Price | typeof PLAIN_NO {
  if (v === undefined) return otherwise;
  const p = documentOf(v);
  if (!p) return PLAIN_NO;
  if (p.type === 'cpm') return isMicros(p.cpm) ? { type: 'cpm', cpm: p.cpm } : PLAIN_NO;
  if (p.type === 'revshare') {
    const { percent } = p;
    return typeof percent === 'number' && percent >= 0 && percent <= 100 ? { type: 'revshare', percent } : PLAIN_NO;
  }
  return PLAIN_NO;
}

/** A count cap (absent: unlimited), PLAIN_NO when the schema must read it. */
const countLimit = (v: unknown): Limit | typeof PLAIN_NO =>
  v === undefined || v === UNLIMITED ? UNLIMITED : isWhole(v, 0, Number.MAX_SAFE_INTEGER) ? v : PLAIN_NO;

const micros = (v: unknown): number | typeof PLAIN_NO => (v === undefined ? 0 : isMicros(v) ? v : PLAIN_NO);
const whole = (v: unknown, min: number, max: number, otherwise: number): number | typeof PLAIN_NO =>
  v === undefined ? otherwise : isWhole(v, min, max) ? v : PLAIN_NO;
/** A user-sync URL: absent or empty is '', any other is the schema's to read. */
const syncUrl = (v: unknown): string | typeof PLAIN_NO =>
  v === undefined || v === '' ? '' : bySchema(TagInput.in.shape.userSyncUrl, v);
/** A record of partner parameters: absent or empty is none, any other is the schema's to read. */
const partnerParams = (v: unknown): Readonly<Record<string, unknown>> | typeof PLAIN_NO => {
  if (v === undefined) return NO_PARAMS;
  const p = documentOf(v);
  if (p && Object.keys(p).length === 0) return NO_PARAMS;
  const read = bySchema(TagInput.in.shape.partnerParams, v);
  return read === PLAIN_NO || Object.keys(read).length ? read : NO_PARAMS;
};

/** The schema's own check of a tag's integration and its address (TagInput's refinement). */
const httpLike = (v: string) => /^https?:\/\/\S+$/i.test(v);

const TAG_FIELDS = [
  'name',
  'status',
  'integration',
  'vastUrl',
  'endpoint',
  'partner',
  'partnerParams',
  'price',
  'floorCpm',
  'timeoutMs',
  'qpsLimit',
  'dailyRequestCap',
  'dailyImpCap',
  'priority',
  'targetingId',
  'advertiserId',
  'userSyncUrl',
] as const;
const tagOthers = otherFields(TagInput.in.shape, TAG_FIELDS);
const tagIntegration = choice(INTEGRATIONS, 'VAST');
const DEFAULT_TAG_PRICE = sharedPrice({ type: 'cpm', cpm: 0 });

/** The tag the schema would give the row (as tagFacts keeps it), or undefined when the schema must read it. */
export function plainTag(row: StoredRow): DemandTagRow | undefined {
  const d = documentOf(row.data);
  if (!d) return undefined;
  const name = plainName(row, d);
  const integration = tagIntegration(d.integration);
  // a Prebid tag's parameters are checked against its partner's schema in the catalogue
  if (name === undefined || integration === PLAIN_NO || integration === 'PreBid') return undefined;
  const vastUrl = plainText(d.vastUrl, 4096);
  const endpoint = plainText(d.endpoint, 2048);
  const partner = plainText(d.partner, 64);
  const params = partnerParams(d.partnerParams);
  const tagPrice = price(d.price, DEFAULT_TAG_PRICE);
  const floorCpm = micros(d.floorCpm);
  const timeoutMs = whole(d.timeoutMs, 50, 10_000, 1000);
  const qpsLimit = countLimit(d.qpsLimit);
  const dailyRequestCap = countLimit(d.dailyRequestCap);
  const dailyImpCap = countLimit(d.dailyImpCap);
  const priority = whole(d.priority, 1, 100, 5);
  const targetingId = optionalId(d.targetingId);
  const advertiserId = optionalId(d.advertiserId);
  const userSyncUrl = syncUrl(d.userSyncUrl);
  if (
    vastUrl === PLAIN_NO ||
    endpoint === PLAIN_NO ||
    partner === PLAIN_NO ||
    params === PLAIN_NO ||
    tagPrice === PLAIN_NO ||
    floorCpm === PLAIN_NO ||
    timeoutMs === PLAIN_NO ||
    qpsLimit === PLAIN_NO ||
    dailyRequestCap === PLAIN_NO ||
    dailyImpCap === PLAIN_NO ||
    priority === PLAIN_NO ||
    targetingId === undefined ||
    advertiserId === undefined ||
    userSyncUrl === PLAIN_NO
  )
    return undefined;
  if (integration === 'VAST' ? !httpLike(vastUrl) : !httpLike(endpoint)) return undefined;
  const tag = {
    integration,
    vastUrl,
    endpoint,
    partner,
    partnerParams: params,
    price: sharedPrice(tagPrice),
    floorCpm,
    timeoutMs,
    qpsLimit,
    dailyRequestCap,
    dailyImpCap,
    priority,
    targetingId,
    advertiserId,
    // the schema keeps a user-sync URL on an RTB tag only
    userSyncUrl: integration === 'RTB' ? userSyncUrl : '',
    id: row.id,
    tenantId: row.tenantId,
    uid: row.uid,
    name,
    status: row.status === 0 ? (0 as const) : (1 as const),
    archived: row.archived,
  } satisfies Partial<DemandTagRow>;
  if (tagOthers && !tagOthers(d, tag)) return undefined;
  // (with the fields it does not know read into it by their schemas)
  return tag as DemandTagRow;
}

const CHANNEL_FIELDS = [
  'name',
  'status',
  'subpublisherId',
  'integration',
  'environment',
  'format',
  'domain',
  'floorCpm',
  'floorRules',
  'payout',
  'targetingId',
  'demandMode',
  'vastVersion',
  'auctionPrice',
  'timeoutMs',
  'demand',
  'ivtIds',
  'blockIVT',
] as const;
const channelOthers = otherFields(ChannelInput.shape, CHANNEL_FIELDS);
const channelIntegration = choice(INTEGRATIONS, 'VAST');
const environment = choice(ENVIRONMENTS, 'web');
const format = choice(AD_FORMATS, 'video');
const demandMode = choice(DEMAND_MODES, 'auction');
const vastVersion = choice(VAST_VERSIONS, '4.2');
const auctionPrice = choice(AUCTION_PRICES, 'first');
const DEFAULT_PAYOUT = sharedPrice({ type: 'revshare', percent: 70 });
/** What a demand entry holds: a schema whose entries hold more is read by the schema. */
const DEMAND_ENTRY = ['tagId', 'priority'];
const demandEntryKnown = sameKeys(ChannelInput.shape.demand.unwrap().element.shape, DEMAND_ENTRY);

function sameKeys(shape: object, keys: readonly string[]): boolean {
  const own = Object.keys(shape);
  return own.length === keys.length && own.every((key) => keys.includes(key));
}

/** A domain: absent or empty is '', any other is the schema's to read. */
const domain = (v: unknown): string | typeof PLAIN_NO =>
  v === undefined || v === '' ? '' : bySchema(ChannelInput.shape.domain, v);

/** Floor rules: absent or null are none, any other is the schema's to read. */
const floorRules = (v: unknown): ChannelRow['floorRules'] | typeof PLAIN_NO =>
  v === undefined || v === null ? null : bySchema(ChannelInput.shape.floorRules, v);

/** The demand tags a channel calls, as new entries of their two fields, PLAIN_NO when the schema must read them. */
function demand(v: unknown): ChannelRow['demand'] | typeof PLAIN_NO {
  if (v === undefined) return [];
  if (!demandEntryKnown) return bySchema(ChannelInput.shape.demand, v);
  if (!Array.isArray(v) || v.length > 200) return PLAIN_NO;
  for (let i = 0; i < v.length; i++) {
    const entry = documentOf(v[i]);
    if (!entry || !isId(entry.tagId) || whole(entry.priority, 1, 100, 1) === PLAIN_NO) return PLAIN_NO;
    // a tag listed twice is refused by the schema
    for (let j = 0; j < i; j++) if ((v[j] as { tagId: unknown }).tagId === entry.tagId) return PLAIN_NO;
  }
  // made by map, at its length: a list pushed to from empty keeps room for 17 entries
  return (v as Record<string, unknown>[]).map((entry) => ({
    tagId: entry.tagId as number,
    priority: whole(entry.priority, 1, 100, 1) as number,
  }));
}

/** The channel the schema would give the row (as channelFacts keeps it), or undefined when the schema must read it. */
export function plainChannel(row: StoredRow): ChannelRow | undefined {
  const d = documentOf(row.data);
  if (!d) return undefined;
  const name = plainName(row, d);
  const subpublisherId = optionalId(d.subpublisherId);
  const integration = channelIntegration(d.integration);
  const env = environment(d.environment);
  const fmt = format(d.format);
  const channelDomain = domain(d.domain);
  const floorCpm = micros(d.floorCpm);
  const rules = floorRules(d.floorRules);
  const payout = price(d.payout, DEFAULT_PAYOUT);
  const targetingId = optionalId(d.targetingId);
  const mode = demandMode(d.demandMode);
  const version = vastVersion(d.vastVersion);
  const auction = auctionPrice(d.auctionPrice);
  const timeoutMs = whole(d.timeoutMs, 50, 10_000, 1500);
  const tags = demand(d.demand);
  const ivtIds = idList(d.ivtIds);
  const blockIVT = d.blockIVT === undefined ? false : d.blockIVT;
  if (
    name === undefined ||
    subpublisherId === undefined ||
    integration === PLAIN_NO ||
    env === PLAIN_NO ||
    fmt === PLAIN_NO ||
    channelDomain === PLAIN_NO ||
    floorCpm === PLAIN_NO ||
    rules === PLAIN_NO ||
    payout === PLAIN_NO ||
    targetingId === undefined ||
    mode === PLAIN_NO ||
    version === PLAIN_NO ||
    auction === PLAIN_NO ||
    timeoutMs === PLAIN_NO ||
    tags === PLAIN_NO ||
    ivtIds === undefined ||
    typeof blockIVT !== 'boolean'
  )
    return undefined;
  const channel = {
    subpublisherId,
    integration,
    environment: env,
    format: fmt,
    domain: channelDomain,
    floorCpm,
    floorRules: rules,
    payout: sharedPrice(payout),
    targetingId,
    demandMode: mode,
    vastVersion: version,
    auctionPrice: auction,
    timeoutMs,
    demand: tags,
    ivtIds,
    blockIVT,
    id: row.id,
    tenantId: row.tenantId,
    uid: row.uid,
    name,
    status: row.status === 0 ? (0 as const) : (1 as const),
    archived: row.archived,
  } satisfies Partial<ChannelRow>;
  if (channelOthers && !channelOthers(d, channel)) return undefined;
  // (with the fields it does not know read into it by their schemas)
  return channel as ChannelRow;
}
