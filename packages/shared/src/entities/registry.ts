import type { z } from 'zod';
import type { Mode } from '../constants.js';
import type { UserType } from '../schemas/auth.js';
import { AdvertiserInput, DemandAccountInput, ManagerInput, SubpublisherInput } from '../kinds/accounts.js';
import { adExchangeListExtras, AdExchangeInput } from '../kinds/adexchanges.js';
import { campaignListExtras, CampaignInput } from '../kinds/campaigns.js';
import { channelListExtras, ChannelInput } from '../kinds/channels.js';
import { creativeListExtras, CreativeInput } from '../kinds/creatives.js';
import { dealListExtras, DealInput } from '../kinds/deals.js';
import { ivtListExtras, IvtInput } from '../kinds/ivts.js';
import { appListListExtras, AppListInput, creListListExtras, CreListInput, pubListListExtras, PubListInput } from '../kinds/lists.js';
import { SdkAppInput } from '../kinds/sdkapps.js';
import { supplierListExtras, SupplierInput } from '../kinds/sups.js';
import { tagListExtras, TagInput } from '../kinds/tags.js';
import { TargetingInput, targetingListExtras } from '../kinds/targetings.js';
import { tooltipListExtras, TooltipInput } from '../kinds/tooltips.js';

/**
 * One data contract for every resource (list, get, create, update, duplicate, archive): the server
 * builds its routes and repository from these definitions, the console its list pages and forms.
 */
export type ResourceKind =
  | 'channels'
  | 'subs'
  | 'tags'
  | 'sups'
  | 'campaigns'
  | 'creatives'
  | 'adexchanges'
  | 'deals'
  | 'advs'
  | 'targetings'
  | 'applists'
  | 'publists'
  | 'crelists'
  | 'ivts'
  | 'managers'
  | 'demands'
  | 'tooltips'
  | 'sdkapps';

/** A reference from one row to another, for integrity checks and "used by" answers. */
export interface ResourceRef {
  kind: ResourceKind;
  /** The field as named in errors. */
  field: string;
  ids: (row: Record<string, unknown>) => number[];
}

export interface ResourceDef {
  kind: ResourceKind;
  label: string;
  plural: string;
  /** Console route of the list page. */
  route: string;
  /** API base path; the shared list is `${api}/list`. */
  api: string;
  /** ssp, dsp or both: which console mode shows it. */
  mode: Mode | 'both';
  /** Where rows live: the generic entity tables, or the users table (accounts sign in). */
  storage: 'entity' | 'account';
  accountType?: UserType;
  /** Who may open it: demand users of the tenant (and admins), admins only, or sdk users. */
  audience: 'tenant' | 'admin' | 'sdk';
  /** Public id generated on create (tag URLs, bidder endpoints, app keys). */
  uid: boolean;
  schema: z.ZodType<Record<string, unknown>>;
  refs: ResourceRef[];
  /** A row assigned to a sub or adv user through this field is visible (read-only) to that user. */
  assignedTo?: { sub?: string; adv?: string };
  /** Columns the list page sorts by (besides id, name, status, updatedAt). */
  sortable?: string[];
  /** What the kind's shared list carries besides id, name, uid and status (from its stored document). */
  listExtras?: (data: Record<string, unknown>) => Record<string, unknown>;
}

const one = (field: string) => (row: Record<string, unknown>) => (typeof row[field] === 'number' ? [row[field] as number] : []);
const many = (field: string) => (row: Record<string, unknown>) => (Array.isArray(row[field]) ? (row[field] as number[]) : []);
const targeting: ResourceRef = { kind: 'targetings', field: 'targetingId', ids: one('targetingId') };
const advertiser: ResourceRef = { kind: 'advs', field: 'advertiserId', ids: one('advertiserId') };
const ruleLists = (key: 'appLists' | 'pubLists' | 'creLists') => (row: Record<string, unknown>) => {
  const rules = row.rules as Record<string, { ids?: number[] }> | undefined;
  return rules?.[key]?.ids ?? [];
};

const def = (d: Omit<ResourceDef, 'schema'> & { schema: z.ZodType }): ResourceDef => d as ResourceDef;

export const RESOURCES: Record<ResourceKind, ResourceDef> = {
  channels: def({
    listExtras: channelListExtras, kind: 'channels', label: 'Channel', plural: 'Channels', route: '/channels', api: '/api/demand/channels', mode: 'ssp',
    storage: 'entity', audience: 'tenant', uid: true, schema: ChannelInput,
    refs: [
      { kind: 'subs', field: 'subpublisherId', ids: one('subpublisherId') },
      targeting,
      { kind: 'tags', field: 'demand', ids: (r) => ((r.demand as { tagId: number }[]) ?? []).map((d) => d.tagId) },
      { kind: 'ivts', field: 'ivtIds', ids: many('ivtIds') },
    ],
    assignedTo: { sub: 'subpublisherId' },
    sortable: ['integration', 'environment', 'floorCpm'],
  }),
  subs: def({
    kind: 'subs', label: 'Subpublisher', plural: 'Subpublishers', route: '/subpublishers', api: '/api/demand/subs', mode: 'ssp',
    storage: 'account', accountType: 'sub', audience: 'tenant', uid: false, schema: SubpublisherInput, refs: [],
  }),
  tags: def({
    listExtras: tagListExtras, kind: 'tags', label: 'Tag', plural: 'Tags', route: '/tags', api: '/api/demand/tags', mode: 'ssp',
    storage: 'entity', audience: 'tenant', uid: true, schema: TagInput, refs: [targeting, advertiser],
    assignedTo: { adv: 'advertiserId' }, sortable: ['integration', 'priority'],
  }),
  sups: def({
    listExtras: supplierListExtras, kind: 'sups', label: 'Supplier', plural: 'Suppliers', route: '/suppliers', api: '/api/demand/sups', mode: 'dsp',
    storage: 'entity', audience: 'tenant', uid: true, schema: SupplierInput, refs: [targeting], sortable: ['qpsLimit', 'marginPercent'],
  }),
  campaigns: def({
    listExtras: campaignListExtras, kind: 'campaigns', label: 'Campaign', plural: 'Campaigns', route: '/campaigns', api: '/api/demand/campaigns', mode: 'dsp',
    storage: 'entity', audience: 'tenant', uid: false, schema: CampaignInput,
    refs: [
      advertiser,
      targeting,
      { kind: 'creatives', field: 'creativeIds', ids: many('creativeIds') },
      { kind: 'deals', field: 'dealIds', ids: many('dealIds') },
      { kind: 'sups', field: 'supplierIds', ids: many('supplierIds') },
      { kind: 'adexchanges', field: 'adExchangeIds', ids: many('adExchangeIds') },
    ],
    assignedTo: { adv: 'advertiserId' }, sortable: ['startDate', 'endDate', 'bidCpm', 'totalBudget'],
  }),
  creatives: def({
    listExtras: creativeListExtras, kind: 'creatives', label: 'Creative', plural: 'Creatives', route: '/creatives', api: '/api/demand/creatives', mode: 'dsp',
    storage: 'entity', audience: 'tenant', uid: true, schema: CreativeInput, refs: [advertiser],
    assignedTo: { adv: 'advertiserId' }, sortable: ['format', 'approval'],
  }),
  adexchanges: def({
    listExtras: adExchangeListExtras, kind: 'adexchanges', label: 'Ad Exchange', plural: 'Ad Exchanges', route: '/adexchanges', api: '/api/demand/adexchanges', mode: 'dsp',
    storage: 'entity', audience: 'tenant', uid: false, schema: AdExchangeInput, refs: [targeting], sortable: ['tmaxMs', 'qpsLimit'],
  }),
  deals: def({
    listExtras: dealListExtras, kind: 'deals', label: 'Deal', plural: 'Deals', route: '/deals', api: '/api/demand/deals', mode: 'dsp',
    storage: 'entity', audience: 'tenant', uid: false, schema: DealInput,
    refs: [{ kind: 'sups', field: 'supplierIds', ids: many('supplierIds') }], sortable: ['dealId', 'floorCpm'],
  }),
  advs: def({
    kind: 'advs', label: 'Advertiser', plural: 'Advertisers', route: '/advertisers', api: '/api/demand/advs', mode: 'both',
    storage: 'account', accountType: 'adv', audience: 'tenant', uid: false, schema: AdvertiserInput, refs: [],
  }),
  targetings: def({
    listExtras: targetingListExtras, kind: 'targetings', label: 'Targeting', plural: 'Targetings', route: '/targetings', api: '/api/demand/targetings', mode: 'both',
    storage: 'entity', audience: 'tenant', uid: false, schema: TargetingInput,
    refs: [
      { kind: 'applists', field: 'rules.appLists', ids: ruleLists('appLists') },
      { kind: 'publists', field: 'rules.pubLists', ids: ruleLists('pubLists') },
      { kind: 'crelists', field: 'rules.creLists', ids: ruleLists('creLists') },
    ],
  }),
  applists: def({
    listExtras: appListListExtras, kind: 'applists', label: 'App List', plural: 'App Lists', route: '/applists', api: '/api/demand/applists', mode: 'both',
    storage: 'entity', audience: 'tenant', uid: false, schema: AppListInput, refs: [],
  }),
  publists: def({
    listExtras: pubListListExtras, kind: 'publists', label: 'Publisher List', plural: 'Publisher Lists', route: '/publists', api: '/api/demand/publists', mode: 'both',
    storage: 'entity', audience: 'tenant', uid: false, schema: PubListInput, refs: [],
  }),
  crelists: def({
    listExtras: creListListExtras, kind: 'crelists', label: 'Creative List', plural: 'Creative Lists', route: '/crelists', api: '/api/demand/crelists', mode: 'both',
    storage: 'entity', audience: 'tenant', uid: false, schema: CreListInput, refs: [],
  }),
  ivts: def({
    listExtras: ivtListExtras, kind: 'ivts', label: '3rd Party Pixel', plural: '3rd Party Pixels', route: '/ivts', api: '/api/demand/ivts', mode: 'both',
    storage: 'entity', audience: 'tenant', uid: false, schema: IvtInput, refs: [], sortable: ['vendor', 'stage'],
  }),
  managers: def({
    kind: 'managers', label: 'Manager', plural: 'Managers', route: '/managers', api: '/api/demand/managers', mode: 'both',
    storage: 'account', accountType: 'demand', audience: 'tenant', uid: false, schema: ManagerInput, refs: [],
  }),
  demands: def({
    kind: 'demands', label: 'Demand', plural: 'Demands', route: '/demands', api: '/api/demands', mode: 'both',
    storage: 'account', accountType: 'demand', audience: 'admin', uid: true, schema: DemandAccountInput, refs: [],
  }),
  tooltips: def({
    listExtras: tooltipListExtras, kind: 'tooltips', label: 'Tooltip', plural: 'Tooltips', route: '/tooltips', api: '/api/tooltips', mode: 'both',
    storage: 'entity', audience: 'admin', uid: false, schema: TooltipInput, refs: [],
  }),
  sdkapps: def({
    kind: 'sdkapps', label: 'SDK App', plural: 'SDK Apps', route: '/sdk', api: '/api/sdk/apps', mode: 'both',
    storage: 'entity', audience: 'sdk', uid: true, schema: SdkAppInput, refs: [],
  }),
};

export const RESOURCE_KINDS = Object.keys(RESOURCES) as ResourceKind[];

/** Kinds that reference `kind`, with the field: what blocks a delete. */
export function referrersOf(kind: ResourceKind): { from: ResourceDef; ref: ResourceRef }[] {
  return RESOURCE_KINDS.flatMap((k) => RESOURCES[k].refs.filter((r) => r.kind === kind).map((ref) => ({ from: RESOURCES[k], ref })));
}
