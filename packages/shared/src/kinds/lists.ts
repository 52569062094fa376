import { z } from 'zod';
import { csvText, csvTextValue } from '../csv.js';
import { name, Status } from '../entities/common.js';
import { storedRowParser } from './storedRow.js';
import { defineKind } from './kindDef.js';

/**
 * Allow/block lists used by targetings: app lists (bundles or store ids), publisher lists (V2V:
 * domains or publisher ids), creative lists (V2V: creative ids or advertiser domains) and IP lists
 * (addresses and CIDR ranges, IPv4 and IPv6).
 */
export const LIST_KINDS = ['applists', 'publists', 'crelists', 'iplists'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

/** Reverse-DNS bundle (Android, tvOS), App Store id (123456789 or id123456789), Roku channel id, Amazon ASIN. */
const BUNDLE = /^([A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)+|(id)?\d{3,12}|B0[A-Z0-9]{8})$/;
const DOMAIN = /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;
const TOKEN = /^[A-Za-z0-9._:-]{1,128}$/;
const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
/** A dotted quad without leading zeros (which some parsers read as octal). */
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/** IPv6 text: eight groups, or fewer around one `::`, the last two optionally a dotted quad. */
function isIpv6(text: string): boolean {
  let s = text;
  const lastColon = s.lastIndexOf(':');
  if (lastColon < 0) return false;
  if (s.includes('.')) {
    if (!IPV4.test(s.slice(lastColon + 1))) return false;
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')));
  if (!groups.every((g) => HEX_GROUP.test(g))) return false;
  return halves.length === 2 ? groups.length <= 7 : groups.length === 8;
}

/** An IP address or CIDR range: `203.0.113.7`, `198.51.100.0/24`, `2001:db8::1`, `2001:db8::/32`. */
export function isIpEntry(v: string): boolean {
  const slash = v.indexOf('/');
  const address = slash >= 0 ? v.slice(0, slash) : v;
  const prefix = slash >= 0 ? v.slice(slash + 1) : null;
  if (prefix !== null && !/^(0|[1-9]\d{0,2})$/.test(prefix)) return false;
  if (IPV4.test(address)) return prefix === null || Number(prefix) <= 32;
  return isIpv6(address) && (prefix === null || Number(prefix) <= 128);
}

export const LIST_ITEM_RULES: Record<ListKind, { label: string; check: (v: string) => string | null }> = {
  applists: {
    label: 'app bundle or store id',
    check: (v) => (BUNDLE.test(v) ? null : 'is not an app bundle (com.example.app) or store id'),
  },
  publists: {
    label: 'publisher domain or id',
    check: (v) => (DOMAIN.test(v.toLowerCase()) || TOKEN.test(v) ? null : 'is not a domain or publisher id'),
  },
  crelists: {
    label: 'creative id or advertiser domain',
    check: (v) => (TOKEN.test(v) || DOMAIN.test(v.toLowerCase()) ? null : 'is not a creative id or domain'),
  },
  iplists: {
    label: 'IP address or CIDR range',
    check: (v) =>
      isIpEntry(v) ? null : 'is not an IP address or CIDR range (203.0.113.7, 198.51.100.0/24, 2001:db8::/32)',
  },
};

export interface ParsedList {
  items: string[];
  invalid: { line: number; value: string; reason: string }[];
  duplicates: number;
}

/**
 * Parse pasted text or a CSV file: one item per line (first column of a CSV; a header line that is
 * not an item is reported like any other invalid line), trimmed, quotes removed (and the `'` that
 * neutralises a formula-like cell), deduplicated.
 */
export function parseListText(kind: ListKind, text: string): ParsedList {
  const seen = new Set<string>();
  const out: ParsedList = { items: [], invalid: [], duplicates: 0 };
  text.split(/\r\n|\n|\r/).forEach((raw, index) => {
    const first = raw.split(/[,;\t]/)[0] ?? '';
    // (a cell `listCsv` neutralised reads back as the entry it wrote)
    const value = csvTextValue(
      first
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .trim(),
    );
    if (!value) return;
    const normalised = kind === 'applists' ? value : value.toLowerCase();
    const reason = LIST_ITEM_RULES[kind].check(value);
    if (reason) {
      out.invalid.push({ line: index + 1, value, reason });
      return;
    }
    if (seen.has(normalised)) {
      out.duplicates++;
      return;
    }
    seen.add(normalised);
    out.items.push(normalised);
  });
  return out;
}

/** A list's entries as the CSV file the console downloads: one a line, each a text cell (`csvText`), read back by `parseListText`. */
export const listCsv = (items: readonly string[]): string => items.map((item) => `${csvText(item)}\n`).join('');

export const MAX_LIST_ITEMS = 100_000;

const ListInput = (kind: ListKind) =>
  z.object({
    name,
    status: Status.default(1),
    items: z
      .array(z.string().trim().min(1).max(255))
      .max(MAX_LIST_ITEMS, `must hold at most ${MAX_LIST_ITEMS} entries`)
      .default([])
      .superRefine((items, ctx) => {
        items.forEach((v, i) => {
          const reason = LIST_ITEM_RULES[kind].check(v);
          if (reason) ctx.addIssue({ code: 'custom', path: [i], message: `${v} ${reason}` });
        });
      })
      .transform((items) => [...new Set(items.map((v) => (kind === 'applists' ? v : v.toLowerCase())))]),
  });
export const AppListInput = ListInput('applists');
const PubListInput = ListInput('publists');
const CreListInput = ListInput('crelists');
const IpListInput = ListInput('iplists');

export const parseAppListRow = storedRowParser('applists', AppListInput);
export const parsePubListRow = storedRowParser('publists', PubListInput);
export const parseCreListRow = storedRowParser('crelists', CreListInput);
export type AppListRow = NonNullable<ReturnType<typeof parseAppListRow>>;
export type PubListRow = NonNullable<ReturnType<typeof parsePubListRow>>;
export type CreListRow = NonNullable<ReturnType<typeof parseCreListRow>>;
export const parseIpListRow = storedRowParser('iplists', IpListInput);
export type IpListRow = NonNullable<ReturnType<typeof parseIpListRow>>;

/** The shared list of an allow/block list says how many items it holds (appCount, pubCount, creCount, ipCount). */
const count = (d: Record<string, unknown>) => (Array.isArray(d.items) ? d.items.length : 0);
const appListListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({ appCount: count(d) });
const pubListListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({ pubCount: count(d) });
const creListListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({ creCount: count(d) });
const ipListListExtras = (d: Record<string, unknown>): Record<string, unknown> => ({ ipCount: count(d) });

export const applistsKind = defineKind({
  kind: 'applists',
  label: 'App List',
  plural: 'App Lists',
  route: '/applists',
  api: '/api/demand/applists',
  mode: 'both',
  storage: 'entity',
  audience: 'tenant',
  uid: false,
  schema: AppListInput,
  refs: [],
  listExtras: appListListExtras,
  parseRow: parseAppListRow,
});
export const publistsKind = defineKind({
  kind: 'publists',
  label: 'Publisher List',
  plural: 'Publisher Lists',
  route: '/publists',
  api: '/api/demand/publists',
  mode: 'both',
  storage: 'entity',
  audience: 'tenant',
  uid: false,
  schema: PubListInput,
  refs: [],
  listExtras: pubListListExtras,
  parseRow: parsePubListRow,
});
export const crelistsKind = defineKind({
  kind: 'crelists',
  label: 'Creative List',
  plural: 'Creative Lists',
  route: '/crelists',
  api: '/api/demand/crelists',
  mode: 'both',
  storage: 'entity',
  audience: 'tenant',
  uid: false,
  schema: CreListInput,
  refs: [],
  listExtras: creListListExtras,
  parseRow: parseCreListRow,
});
export const iplistsKind = defineKind({
  kind: 'iplists',
  label: 'IP List',
  plural: 'IP Lists',
  route: '/iplists',
  api: '/api/demand/iplists',
  mode: 'both',
  storage: 'entity',
  audience: 'tenant',
  uid: false,
  schema: IpListInput,
  refs: [],
  listExtras: ipListListExtras,
  parseRow: parseIpListRow,
});
