import {
  DemandSellerEntry,
  type FieldError,
  SubSellerEntry,
  subpublisherSellerId,
  tenantSellerId,
} from '@adplane/shared';
import { type User } from '../store/users.js';
import { isTenant } from './sellers.js';

/**
 * Seller ids are unique: a save that gives a seller an id another seller has is refused (a 400 naming
 * the field, like a taken user name). sellers.json lists each seller id once and "every seller_id
 * must map to only a single entity"; the ads.txt line of a channel and the `sid` of adplane's schain
 * node name the same id (shared edge/supplyChain.ts), so a shared id sends buyers to another seller.
 *
 * The ids that count are those of every account that has one, archived ones too (an id is never
 * given to another seller: buyers cache sellers.json for days):
 * - each subpublisher: its Sellers JSON id, else its account id, active entry or not (its ads.txt
 *   line and schain node use the id either way);
 * - each entry of a tenant's profile (Sellers JSON tab);
 * - each tenant: its account id.
 * The scope is the whole platform, not one tenant: the operator's file lists every tenant's sellers
 * (and is the file of every tenant without a domain of its own), so an id must be unique across
 * tenants for that file to hold each id once. An id of another tenant is answered without naming
 * its seller.
 *
 * A new id that would break the ads.txt line (a comma, `#`, `;`, a line break) is refused, and so is
 * a new id of digits alone: accounts without an id of their own (and tenants) are listed
 * under their account ids, digits, so such an id would sooner or later name another account. A
 * subpublisher may still type its own account id (the same as leaving the field empty).
 *
 * Only ids a save brings in are checked: an account keeps the id it has even if an older row shares
 * it (sellers.json then lists the first and the server logs the conflict: see ./sellers.ts), so no
 * save fails over an id it does not change. Within one profile list, a repeated id is always refused.
 */

/** Who holds an id: the key tells two holders apart, the label names them to their own tenant. */
interface Holder {
  key: string;
  tenantId: number | null;
  label: string;
}

const digitsOnly = (id: string): boolean => /^\d+$/.test(id);

/**
 * A seller id is a field of the ads.txt line each publisher adds (`domain, id, DIRECT`): a comma
 * splits the line, `#` starts a comment and `;` its extension data, and a control character (a line
 * break) ends it, so such an id could never be authorised. Refused when a save brings it in.
 */
const breaksAdsTxt = (id: string): boolean => {
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 32 || c === 127 || c === 44 /* , */ || c === 35 /* # */ || c === 59 /* ; */) return true;
  }
  return false;
};
const ADS_TXT_MESSAGE =
  'must not hold a comma, # or ; (or a line break): it is a field of the ads.txt line publishers add, which they would split';

/** Why a new id cannot be a seller id whatever others hold, or null. */
const malformed = (id: string): string | null =>
  digitsOnly(id) ? DIGITS_MESSAGE : breaksAdsTxt(id) ? ADS_TXT_MESSAGE : null;

const DIGITS_MESSAGE =
  'must not be digits alone: adplane lists accounts without a seller id of their own under their account ids (digits), so such an id could name another account';

const archivedNote = (u: User): string => (u.archived ? ' (archived)' : '');

/** Every seller id the accounts hold, with who holds it. */
function holdersOf(accounts: readonly User[]): Map<string, Holder[]> {
  const holders = new Map<string, Holder[]>();
  const add = (id: string, holder: Holder) => holders.set(id, [...(holders.get(id) ?? []), holder]);
  for (const u of accounts) {
    if (u.type === 'sub') {
      const parsed = SubSellerEntry.safeParse(u.sellersJson ?? {});
      add(subpublisherSellerId(u.id, parsed.success ? parsed.data : null), {
        key: `account ${u.id}`,
        tenantId: u.tenantId,
        label: `subpublisher ${u.name}${archivedNote(u)}`,
      });
    } else if (isTenant(u)) {
      add(tenantSellerId(u.id), {
        key: `account ${u.id}`,
        tenantId: u.id,
        label: `the demand account ${u.name} itself${archivedNote(u)}`,
      });
      if (!Array.isArray(u.sellersJson)) continue;
      (u.sellersJson as unknown[]).forEach((raw, i) => {
        const parsed = DemandSellerEntry.safeParse(raw);
        if (parsed.success)
          add(parsed.data.id, {
            key: `profile ${u.id}`,
            tenantId: u.id,
            label: `entry ${i + 1} of the profile's Sellers JSON (${parsed.data.name})`,
          });
      });
    }
  }
  return holders;
}

/** Why `id` cannot be given to `self` (a holder key), or null when no one else holds it. */
function takenBy(holders: Map<string, Holder[]>, id: string, self: string, tenantId: number): string | null {
  const other = (holders.get(id) ?? []).find((h) => h.key !== self);
  if (!other) return null;
  if (other.tenantId === tenantId)
    return `is already the seller id of ${other.label}: sellers.json gives each seller id to one seller; choose another`;
  return 'is already the seller id of a seller of another demand account: sellers.json gives each seller id to one seller; choose another';
}

export interface SubSellerIdChange {
  /** The subpublisher's account id; null for a new one. */
  accountId: number | null;
  tenantId: number;
  /** The entry as stored before the save (null for a new account), and as the save has it. */
  before: unknown;
  after: unknown;
}

/** The Sellers JSON id an entry sets ('' when none: the account id is used). */
export function subEntryIdOf(entry: unknown): string {
  const parsed = SubSellerEntry.safeParse(entry ?? {});
  return parsed.success ? parsed.data.id.trim() : '';
}

/** The errors of a subpublisher's Sellers JSON id (field `sellersJson.id`), given every account with a seller id. */
export function subSellerIdErrors(accounts: readonly User[], change: SubSellerIdChange): FieldError[] {
  const id = subEntryIdOf(change.after);
  if (!id) return [];
  if (change.accountId !== null && subEntryIdOf(change.before) === id) return [];
  if (change.accountId !== null && id === String(change.accountId)) return [];
  const bad = malformed(id);
  if (bad) return [{ field: 'sellersJson.id', message: bad }];
  const taken = takenBy(
    holdersOf(accounts),
    id,
    change.accountId === null ? '' : `account ${change.accountId}`,
    change.tenantId,
  );
  return taken ? [{ field: 'sellersJson.id', message: taken }] : [];
}

/** The errors of a tenant's profile entries (fields `sellersJson.<i>.id`), given every account with a seller id. */
export function profileSellerIdErrors(
  accounts: readonly User[],
  tenant: User,
  entries: readonly DemandSellerEntry[],
): FieldError[] {
  const stored = new Set(
    (Array.isArray(tenant.sellersJson) ? (tenant.sellersJson as unknown[]) : []).flatMap((raw) => {
      const parsed = DemandSellerEntry.safeParse(raw);
      return parsed.success ? [parsed.data.id] : [];
    }),
  );
  const holders = holdersOf(accounts);
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  entries.forEach((entry, i) => {
    const id = entry.id.trim();
    const field = `sellersJson.${i}.id`;
    const earlier = seen.get(id);
    if (earlier !== undefined) {
      errors.push({
        field,
        message: `is already the seller id of entry ${earlier + 1} in this list: sellers.json gives each seller id to one seller`,
      });
      return;
    }
    seen.set(id, i);
    if (stored.has(id)) return;
    const message = malformed(id) ?? takenBy(holders, id, `profile ${tenant.id}`, tenant.id);
    if (message) errors.push({ field, message });
  });
  return errors;
}
