import { getDomain } from 'tldts';
import { DemandSellerEntry, SubSellerEntry, subpublisherSellerId, tenantSellerId } from '@adplane/shared';
import { type User } from '../store/users.js';

/**
 * Who sells through adplane, as sellers.json (IAB Tech Lab, version 1.0) and ads.txt name them. Pure:
 * the accounts in, the files out; ./sellersJson.ts serves them and ./adsTxtLine.ts builds a channel's
 * ads.txt line from the same seller ids, so the two can never disagree.
 *
 * The sellers of a tenant (a demand account: the business running its SSP on adplane):
 * - each of its subpublishers whose own sellers.json entry (Sellers JSON tab) is active: seller_id =
 *   the entry's id, else the subpublisher's account id, seller_type as the entry says, name and
 *   domain unless confidential;
 * - the entries of the tenant's profile (id, domain, name): its own properties, PUBLISHER (the
 *   profile gives no type; an entry names a domain and the company paid for it, which is what a
 *   publisher account is);
 * - the tenant itself, seller_id = its account id, INTERMEDIARY: the account that sells the channels
 *   that have no subpublisher, whose sites the tenant does not own.
 * The ids follow the one rule of shared edge/supplyChain.ts, which the schain nodes of outbound bid
 * requests follow too.
 * A seller_id is listed once per file ("every seller_id must map to only a single entity"). Saves
 * refuse an id another seller has (./sellerIds.ts), so two sellers share one only in rows saved
 * before that rule (or by two saves racing): the first in the order above keeps the id, the others
 * are left out, and the directory reports each such conflict (the cache logs it, and the channel's
 * ads.txt line warns). Two rows that name the same company, domain and type are one seller to
 * buyers, listed once without a conflict.
 */

const SELLERS_JSON_VERSION = '1.0';

type SellerType = 'PUBLISHER' | 'INTERMEDIARY' | 'BOTH';

/** A Seller object of sellers.json. */
export interface Seller {
  seller_id: string;
  seller_type: SellerType;
  is_confidential?: 0 | 1;
  name?: string;
  domain?: string;
  comment?: string;
}

/** The parent object of sellers.json. */
export interface SellersFile {
  contact_email?: string;
  contact_address?: string;
  version: typeof SELLERS_JSON_VERSION;
  sellers: Seller[];
}

/** A host as a setting or a form gives it: lower case, no scheme, port, path or trailing dot; '' when it is no host name. */
function bareHostOf(value: string | null | undefined): string {
  const host = (value ?? '')
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/:\d+$/, '')
    .replace(/\.$/, '');
  return /^[a-z0-9.-]+$/.test(host) && host.includes('.') ? host : '';
}

/**
 * The root domain sellers.json asks for: "the public suffix plus one string in the name", from the
 * Public Suffix List (tldts; its private section too, so a seller at `pub.github.io` is not
 * `github.io`). `https://WWW.News.Pub.co.uk:443/x` -> `pub.co.uk`; a name under no known suffix
 * keeps its last two labels (`ads.northwind.test` -> `northwind.test`). Empty for an IP address,
 * a single label or a public suffix alone.
 */
export function rootDomainOf(value: string | null | undefined): string {
  const host = bareHostOf(value);
  return (host && getDomain(host, { allowPrivateDomains: true })) || '';
}

/** A host from the Host header or a setting: lower case, no port or trailing dot. */
function hostOf(value: string | null | undefined): string {
  const v = (value ?? '').trim().toLowerCase();
  const host = v.startsWith('[') ? v.slice(0, v.indexOf(']') + 1) : v.replace(/:\d+$/, '');
  return host.replace(/\.$/, '');
}

/** A tenant: a demand account that is no team member (managers are demand users with a manager). */
export const isTenant = (u: User): boolean => u.type === 'demand' && u.managerId === null && u.tenantId === u.id;

const companyName = (u: User): string => (u.profile.companyName || u.name || '').trim();

/** A subpublisher's own entry, when it is valid (of an account not archived); null otherwise. */
export function subSellerEntry(sub: User): SubSellerEntry | null {
  if (sub.type !== 'sub' || sub.archived) return null;
  const parsed = SubSellerEntry.safeParse(sub.sellersJson ?? {});
  return parsed.success ? parsed.data : null;
}

/** The seller id of a subpublisher: its entry's id, else its account id (shared edge/supplyChain.ts). */
export const subSellerId = (sub: User, entry: SubSellerEntry | null): string => subpublisherSellerId(sub.id, entry);

/** The Seller object of a subpublisher, or null when it is not listed (inactive, a bad row). */
export function subSeller(sub: User): Seller | null {
  const entry = subSellerEntry(sub);
  if (!entry || entry.status !== 1) return null;
  const id = subSellerId(sub, entry);
  if (entry.confidential === 1) return { seller_id: id, seller_type: entry.type, is_confidential: 1 };
  const seller: Seller = {
    seller_id: id,
    seller_type: entry.type,
    is_confidential: 0,
    name: entry.name || companyName(sub),
  };
  const domain = rootDomainOf(sub.domain);
  if (domain) seller.domain = domain;
  return seller;
}

/** The tenant's profile entries (id, domain, name) as PUBLISHER sellers; a malformed entry is skipped. */
export function profileSellers(tenant: User): Seller[] {
  if (!Array.isArray(tenant.sellersJson)) return [];
  const sellers: Seller[] = [];
  for (const raw of tenant.sellersJson as unknown[]) {
    const parsed = DemandSellerEntry.safeParse(raw);
    if (!parsed.success) continue;
    const seller: Seller = {
      seller_id: parsed.data.id,
      seller_type: 'PUBLISHER',
      is_confidential: 0,
      name: parsed.data.name,
    };
    const domain = rootDomainOf(parsed.data.domain);
    if (domain) seller.domain = domain;
    sellers.push(seller);
  }
  return sellers;
}

/** The tenant itself: the account selling its channels that have no subpublisher. */
export function tenantSeller(tenant: User): Seller | null {
  const id = tenantSellerId(tenant.id);
  const seller: Seller = {
    seller_id: id,
    seller_type: 'INTERMEDIARY',
    is_confidential: 0,
    name: companyName(tenant) || id,
  };
  const domain = rootDomainOf(tenant.domain);
  if (domain) seller.domain = domain;
  return seller;
}

/** A seller with the row it comes from, to say which rows conflict. */
interface Listed {
  seller: Seller;
  /** `subpublisher 12`, `profile entry 2 of tenant 3`, `tenant 3`. */
  source: string;
}

/** Two seller rows buyers cannot tell apart: the same type, company and domain (a confidential one names nobody). */
export const sameSeller = (a: Seller, b: Seller): boolean =>
  a.is_confidential !== 1 &&
  b.is_confidential !== 1 &&
  a.seller_type === b.seller_type &&
  a.name === b.name &&
  a.domain === b.domain;

/** A seller id that two different sellers have: the file lists the first, `kept`, and leaves out `dropped`. */
interface SellerIdConflict {
  /** The tenant whose file it is; null for the operator's file. */
  file: number | null;
  sellerId: string;
  kept: string;
  dropped: string;
}

/** The row a seller comes from, as conflicts and the directory's `sources` name it. */
export const sellerSource = {
  subpublisher: (sub: User): string => `subpublisher ${sub.id}`,
  /** `index`: of the entry among the valid ones (profileSellers). */
  profile: (tenant: User, index: number): string => `profile entry ${index + 1} of tenant ${tenant.id}`,
  tenant: (tenant: User): string => `tenant ${tenant.id}`,
};

function listedOf(tenant: User, subs: readonly User[]): Listed[] {
  const listed: Listed[] = [];
  for (const sub of subs) {
    const seller = subSeller(sub);
    if (seller) listed.push({ seller, source: sellerSource.subpublisher(sub) });
  }
  profileSellers(tenant).forEach((seller, i) => listed.push({ seller, source: sellerSource.profile(tenant, i) }));
  const own = tenantSeller(tenant);
  if (own) listed.push({ seller: own, source: sellerSource.tenant(tenant) });
  return listed;
}

/** Each seller id once, the first kept (in `first`); a later different seller with the id is a conflict. */
function uniqueSellers(
  listed: readonly Listed[],
  file: number | null,
  conflicts: SellerIdConflict[],
  first = new Map<string, Listed>(),
): Seller[] {
  const sellers: Seller[] = [];
  for (const entry of listed) {
    const kept = first.get(entry.seller.seller_id);
    if (!kept) {
      first.set(entry.seller.seller_id, entry);
      sellers.push(entry.seller);
    } else if (!sameSeller(kept.seller, entry.seller)) {
      conflicts.push({ file, sellerId: entry.seller.seller_id, kept: kept.source, dropped: entry.source });
    }
  }
  return sellers;
}

const sourcesOf = (first: ReadonlyMap<string, Listed>): Map<string, string> =>
  new Map([...first].map(([id, l]) => [id, l.source]));

/** The contact of a tenant's file: its general contact's e-mail (else technical, else billing) and company address. */
function contactOf(tenant: User): Pick<SellersFile, 'contact_email' | 'contact_address'> {
  const byType = (type: string) => tenant.contacts.find((c) => c?.type === type)?.contactEmail?.trim();
  const email = byType('general') || byType('technical') || byType('billing');
  const address = tenant.profile.companyAddress?.trim();
  return { ...(email ? { contact_email: email } : {}), ...(address ? { contact_address: address } : {}) };
}

/** The sellers.json of every tenant and of the operator, and which host serves which. */
export interface SellersDirectory {
  /** The file of each tenant, by tenant id. */
  readonly byTenant: ReadonlyMap<number, SellersFile>;
  /** Tenants' hosts (their domain settings, without `www.`), longest first, for matching a Host header. */
  readonly domains: readonly (readonly [domain: string, tenantId: number])[];
  /** The operator's file: every tenant's sellers. */
  readonly operator: SellersFile;
  /** Seller ids two different sellers have, in a tenant's file or the operator's: each file lists the first. */
  readonly conflicts: readonly SellerIdConflict[];
  /** Of each file (by tenant id, null: the operator's), the row each seller id stands for (sellerSource). */
  readonly sources: ReadonlyMap<number | null, ReadonlyMap<string, string>>;
}

/** Builds the directory from the accounts (tenants and subpublishers; other users are ignored). */
export function buildSellersDirectory(users: readonly User[]): SellersDirectory {
  const tenants = users.filter((u) => isTenant(u) && !u.archived).sort((a, b) => a.id - b.id);
  const subsOf = new Map<number, User[]>();
  for (const u of users) {
    if (u.type !== 'sub' || u.tenantId === null) continue;
    subsOf.set(u.tenantId, [...(subsOf.get(u.tenantId) ?? []), u]);
  }
  const byTenant = new Map<number, SellersFile>();
  const domains: [string, number][] = [];
  const everyone: Listed[] = [];
  const conflicts: SellerIdConflict[] = [];
  const sources = new Map<number | null, Map<string, string>>();
  for (const tenant of tenants) {
    const listed = listedOf(
      tenant,
      (subsOf.get(tenant.id) ?? []).sort((a, b) => a.id - b.id),
    );
    const first = new Map<string, Listed>();
    const sellers = uniqueSellers(listed, tenant.id, conflicts, first);
    byTenant.set(tenant.id, { ...contactOf(tenant), version: SELLERS_JSON_VERSION, sellers });
    sources.set(tenant.id, sourcesOf(first));
    // The operator's file repeats the tenant's conflicts; each is reported once, for the tenant's file.
    everyone.push(...listed.filter((l) => sellers.includes(l.seller)));
    const domain = tenantHostOf(tenant.domain);
    if (domain && !domains.some(([d]) => d === domain)) domains.push([domain, tenant.id]);
  }
  domains.sort((a, b) => b[0].length - a[0].length);
  const first = new Map<string, Listed>();
  const operator: SellersFile = {
    version: SELLERS_JSON_VERSION,
    sellers: uniqueSellers(everyone, null, conflicts, first),
  };
  sources.set(null, sourcesOf(first));
  return { byTenant, domains, operator, conflicts, sources };
}

/**
 * The host a tenant's domain setting names, without a leading `www.`: the tenant's file answers on
 * it and its subdomains. Not reduced to the root domain: two tenants may have hosts under one root
 * domain (`ads.a.com`, `video.a.com`), and the root domain may be a site the tenant does not run.
 */
function tenantHostOf(value: string | null | undefined): string {
  return bareHostOf(value).replace(/^www\./, '');
}

/**
 * The tenant whose domain serves a host: the host is the tenant's domain or one of its subdomains
 * (sellers.json lives on the root domain "and any subdomains as needed"); the longest domain wins.
 * Null for the operator's own host and for a host no tenant claims: those get the operator's file.
 */
export function tenantForHost(directory: SellersDirectory, host: string, operatorHost: string): number | null {
  const h = hostOf(host);
  if (!h || h === hostOf(operatorHost)) return null;
  const bare = h.replace(/^www\./, '');
  for (const [domain, tenantId] of directory.domains)
    if (bare === domain || bare.endsWith(`.${domain}`)) return tenantId;
  return null;
}

/** The sellers.json a host answers. */
export function sellersFileFor(directory: SellersDirectory, host: string, operatorHost: string): SellersFile {
  return sellersServed(directory, host, operatorHost).file;
}

/** The sellers.json a host answers, and the row each of its seller ids stands for (see sellerSource). */
export function sellersServed(
  directory: SellersDirectory,
  host: string,
  operatorHost: string,
): { file: SellersFile; sources: ReadonlyMap<string, string> } {
  const tenantId = tenantForHost(directory, host, operatorHost);
  const file = tenantId !== null ? directory.byTenant.get(tenantId) : undefined;
  const key = file ? tenantId : null;
  return { file: file ?? directory.operator, sources: directory.sources.get(key) ?? new Map() };
}
