import { FloorRules } from '@adplane/shared';
import { type Kysely } from 'kysely';
import { storedMs } from '../../store/json.js';
import { type Database } from '../../store/schema.js';

/** An account row (tenant, subpublisher, advertiser) as the snapshot needs it. */
export interface AccountRow {
  id: number;
  type: string;
  name: string;
  status: number;
  archived: boolean;
  tenantId: number | null;
  managerId: number | null;
  timezone: number;
  /** The tenant's DSP view (campaigns and the rest of DSP mode are its to use). */
  showDsp: boolean;
  /** A tenant's own domain ('' when unset) and a subpublisher's sellers.json entry id ('' when none): the schain node's ids. */
  domain: string;
  sellerEntryId: string;
  /** A tenant's IVT options (profile setCheckIVTAll, blockIVT) and the admin's grant of them (showCheckIVT). */
  showCheckIVT: boolean;
  setCheckIVTAll: boolean;
  blockIVT: boolean;
  /** A tenant's post-bid options (profile postbidPercent, setPostbidAll) and the admin's grant of them (showPostbidPix or showPostbidWh). */
  postbidGranted: boolean;
  postbidPercent: number;
  setPostbidAll: boolean;
  /** A tenant's floor rules (profile floorRules), the default of its channels without their own; null: none. */
  floorRules?: FloorRules | null;
  /** When the account was last changed (epoch ms): for one that stopped serving, when at the latest (departed.ts). */
  updatedAt: number;
}

export type StoreDb = Kysely<Database>;

export async function loadAccounts(db: StoreDb): Promise<AccountRow[]> {
  const rows = await (db as unknown as Kysely<Database & { users: { archived: number } }>)
    .selectFrom('users')
    .select([
      'id',
      'type',
      'name',
      'status',
      'archived',
      'tenant_id',
      'manager_id',
      'timezone',
      'show_dsp',
      'domain',
      'sellers_json',
      'show_check_ivt',
      'show_postbid_pix',
      'show_postbid_wh',
      'profile',
      'updated_at',
    ])
    .where('type', 'in', ['demand', 'sub', 'adv'])
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    type: r.type,
    name: r.name,
    status: Number(r.status),
    archived: Number(r.archived) === 1,
    tenantId: r.tenant_id === null ? null : Number(r.tenant_id),
    managerId: r.manager_id === null ? null : Number(r.manager_id),
    timezone: Number(r.timezone ?? 0),
    showDsp: Number(r.show_dsp) === 1,
    domain: r.domain ?? '',
    sellerEntryId: r.type === 'sub' ? sellerEntryIdOf(r.sellers_json) : '',
    showCheckIVT: Number(r.show_check_ivt) === 1,
    ...ivtOptionsOf(r.type === 'demand' ? r.profile : null),
    postbidGranted: Number(r.show_postbid_pix) === 1 || Number(r.show_postbid_wh) === 1,
    ...postbidOptionsOf(r.type === 'demand' ? r.profile : null),
    floorRules: r.type === 'demand' ? floorRulesOf(r.profile) : null,
    updatedAt: storedMs(r.updated_at),
  }));
}

const NO_IVT_OPTIONS = { setCheckIVTAll: false, blockIVT: false } as const;

/** A demand account's IVT options from its stored profile document (flags of 1 or null, store/users.ts); unreadable: off. */
function ivtOptionsOf(json: string | null): { setCheckIVTAll: boolean; blockIVT: boolean } {
  if (!json) return NO_IVT_OPTIONS;
  try {
    const p: unknown = JSON.parse(json);
    if (!p || typeof p !== 'object' || Array.isArray(p)) return NO_IVT_OPTIONS;
    const { setCheckIVTAll, blockIVT } = p as { setCheckIVTAll?: unknown; blockIVT?: unknown };
    return {
      setCheckIVTAll: setCheckIVTAll === 1 || setCheckIVTAll === true,
      blockIVT: blockIVT === 1 || blockIVT === true,
    };
  } catch {
    return NO_IVT_OPTIONS;
  }
}

const NO_POSTBID_OPTIONS = { postbidPercent: 0, setPostbidAll: false } as const;

/** A demand account's post-bid options from its stored profile document (postbidPercent 0..100, setPostbidAll 1 or null); unreadable: none. */
function postbidOptionsOf(json: string | null): { postbidPercent: number; setPostbidAll: boolean } {
  if (!json) return NO_POSTBID_OPTIONS;
  try {
    const p: unknown = JSON.parse(json);
    if (!p || typeof p !== 'object' || Array.isArray(p)) return NO_POSTBID_OPTIONS;
    const { postbidPercent, setPostbidAll } = p as { postbidPercent?: unknown; setPostbidAll?: unknown };
    const percent =
      typeof postbidPercent === 'number' && Number.isFinite(postbidPercent)
        ? Math.min(100, Math.max(0, postbidPercent))
        : 0;
    return { postbidPercent: percent, setPostbidAll: setPostbidAll === 1 || setPostbidAll === true };
  } catch {
    return NO_POSTBID_OPTIONS;
  }
}

/** A demand account's floor rules from its stored profile document (shared edge/floorRules.ts); absent or unreadable: none. */
function floorRulesOf(json: string | null): FloorRules | null {
  if (!json) return null;
  try {
    const p = JSON.parse(json) as { floorRules?: unknown } | null;
    const parsed = p && typeof p === 'object' && p.floorRules ? FloorRules.safeParse(p.floorRules) : null;
    return parsed?.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The `id` of a subpublisher's stored sellers.json entry (one object), '' when unset or unreadable. */
function sellerEntryIdOf(json: string | null): string {
  if (!json) return '';
  try {
    const entry: unknown = JSON.parse(json);
    const id = entry && typeof entry === 'object' && !Array.isArray(entry) ? (entry as { id?: unknown }).id : undefined;
    return typeof id === 'string' ? id.trim() : '';
  } catch {
    return '';
  }
}
