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
 * A seller_id is listed once per file ("every seller_id must map to only a single entity"): the first
 * wins, in the order above.
 */

export const SELLERS_JSON_VERSION = '1.0';

export type SellerType = 'PUBLISHER' | 'INTERMEDIARY' | 'BOTH';

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

/**
 * A domain as sellers.json and ads.txt want it: lower case, no scheme, port, path or trailing dot, and
 * no leading `www.` (the spec asks for the root domain; without the public suffix list, `www.` is the
 * one label known never to be part of it). Empty when nothing usable is left.
 */
export function rootDomainOf(value: string | null | undefined): string {
  let host = (value ?? '').trim().toLowerCase();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/[/?#].*$/, '').replace(/:\d+$/, '').replace(/\.$/, '');
  host = host.replace(/^www\./, '');
  return /^[a-z0-9.-]+$/.test(host) && host.includes('.') ? host : '';
}

/** A host from the Host header or a setting: lower case, no port or trailing dot. */
export function hostOf(value: string | null | undefined): string {
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
  const seller: Seller = { seller_id: id, seller_type: entry.type, is_confidential: 0, name: entry.name || companyName(sub) };
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
    const seller: Seller = { seller_id: parsed.data.id, seller_type: 'PUBLISHER', is_confidential: 0, name: parsed.data.name };
    const domain = rootDomainOf(parsed.data.domain);
    if (domain) seller.domain = domain;
    sellers.push(seller);
  }
  return sellers;
}

/** The tenant itself: the account selling its channels that have no subpublisher. */
export function tenantSeller(tenant: User): Seller | null {
  const id = tenantSellerId(tenant.id);
  const seller: Seller = { seller_id: id, seller_type: 'INTERMEDIARY', is_confidential: 0, name: companyName(tenant) || id };
  const domain = rootDomainOf(tenant.domain);
  if (domain) seller.domain = domain;
  return seller;
}

/** Every seller of a tenant, each seller_id once (see the top of the file for the order). */
export function tenantSellers(tenant: User, subs: readonly User[]): Seller[] {
  const all = [...subs.map(subSeller), ...profileSellers(tenant), tenantSeller(tenant)];
  return uniqueSellers(all.filter((s): s is Seller => s !== null));
}

function uniqueSellers(sellers: readonly Seller[]): Seller[] {
  const seen = new Set<string>();
  return sellers.filter((s) => !seen.has(s.seller_id) && seen.add(s.seller_id));
}

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
  /** Tenants' domains (root domains), longest first, for matching a Host header. */
  readonly domains: readonly (readonly [domain: string, tenantId: number])[];
  /** The operator's file: every tenant's sellers. */
  readonly operator: SellersFile;
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
  const everyone: Seller[] = [];
  for (const tenant of tenants) {
    const sellers = tenantSellers(tenant, (subsOf.get(tenant.id) ?? []).sort((a, b) => a.id - b.id));
    byTenant.set(tenant.id, { ...contactOf(tenant), version: SELLERS_JSON_VERSION, sellers });
    everyone.push(...sellers);
    const domain = rootDomainOf(tenant.domain);
    if (domain && !domains.some(([d]) => d === domain)) domains.push([domain, tenant.id]);
  }
  domains.sort((a, b) => b[0].length - a[0].length);
  return { byTenant, domains, operator: { version: SELLERS_JSON_VERSION, sellers: uniqueSellers(everyone) } };
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
  for (const [domain, tenantId] of directory.domains) if (bare === domain || bare.endsWith(`.${domain}`)) return tenantId;
  return null;
}

/** The sellers.json a host answers. */
export function sellersFileFor(directory: SellersDirectory, host: string, operatorHost: string): SellersFile {
  const tenantId = tenantForHost(directory, host, operatorHost);
  return (tenantId !== null && directory.byTenant.get(tenantId)) || directory.operator;
}
