import { COUNTRIES, type CountryCode } from './countries.js';
import { type ReferenceTree } from './types.js';

/**
 * The sales regions of the console, as trees of countries. Memberships are built from the UN M49
 * geographic sub-regions below (the standard the big ad servers' geo lists follow), so that
 * APAC, LATAM, EMEA and NAM split the world without overlap (Antarctica aside), and the two narrower
 * regions sit inside them: every SEA country is also APAC, every MENA country also EMEA.
 *
 * Two ad-ops choices on top of M49: NAM is M49 "Northern America" (Mexico sells with LATAM), and
 * Iran (M49 Southern Asia) counts as the Middle East, so it is EMEA and MENA rather than APAC.
 */
type Codes = readonly CountryCode[];

// UN M49 sub-regions (ISO 3166-1 alpha-2; Taiwan sits with Eastern Asia).
const NORTHERN_AFRICA: Codes = ['DZ', 'EG', 'LY', 'MA', 'SD', 'TN', 'EH'];
const EASTERN_AFRICA: Codes = [
  'IO',
  'BI',
  'KM',
  'DJ',
  'ER',
  'ET',
  'TF',
  'KE',
  'MG',
  'MW',
  'MU',
  'YT',
  'MZ',
  'RE',
  'RW',
  'SC',
  'SO',
  'SS',
  'UG',
  'TZ',
  'ZM',
  'ZW',
];
const MIDDLE_AFRICA: Codes = ['AO', 'CM', 'CF', 'TD', 'CG', 'CD', 'GQ', 'GA', 'ST'];
const SOUTHERN_AFRICA: Codes = ['BW', 'SZ', 'LS', 'NA', 'ZA'];
const WESTERN_AFRICA: Codes = [
  'BJ',
  'BF',
  'CV',
  'CI',
  'GM',
  'GH',
  'GN',
  'GW',
  'LR',
  'ML',
  'MR',
  'NE',
  'NG',
  'SH',
  'SN',
  'SL',
  'TG',
];
const CARIBBEAN: Codes = [
  'AI',
  'AG',
  'AW',
  'BS',
  'BB',
  'BQ',
  'VG',
  'KY',
  'CU',
  'CW',
  'DM',
  'DO',
  'GD',
  'GP',
  'HT',
  'JM',
  'MQ',
  'MS',
  'PR',
  'BL',
  'KN',
  'LC',
  'MF',
  'VC',
  'SX',
  'TT',
  'TC',
  'VI',
];
const CENTRAL_AMERICA: Codes = ['BZ', 'CR', 'SV', 'GT', 'HN', 'MX', 'NI', 'PA'];
const SOUTH_AMERICA: Codes = [
  'AR',
  'BO',
  'BV',
  'BR',
  'CL',
  'CO',
  'EC',
  'FK',
  'GF',
  'GY',
  'PY',
  'PE',
  'GS',
  'SR',
  'UY',
  'VE',
];
const NORTHERN_AMERICA: Codes = ['BM', 'CA', 'GL', 'PM', 'US'];
const CENTRAL_ASIA: Codes = ['KZ', 'KG', 'TJ', 'TM', 'UZ'];
const EASTERN_ASIA: Codes = ['CN', 'HK', 'MO', 'KP', 'JP', 'MN', 'KR', 'TW'];
const SOUTH_EASTERN_ASIA: Codes = ['BN', 'KH', 'ID', 'LA', 'MY', 'MM', 'PH', 'SG', 'TH', 'TL', 'VN'];
const SOUTHERN_ASIA_WITHOUT_IRAN: Codes = ['AF', 'BD', 'BT', 'IN', 'MV', 'NP', 'PK', 'LK'];
const WESTERN_ASIA: Codes = [
  'AM',
  'AZ',
  'BH',
  'CY',
  'GE',
  'IQ',
  'IL',
  'JO',
  'KW',
  'LB',
  'OM',
  'QA',
  'SA',
  'PS',
  'SY',
  'TR',
  'AE',
  'YE',
];
const EASTERN_EUROPE: Codes = ['BY', 'BG', 'CZ', 'HU', 'PL', 'MD', 'RO', 'RU', 'SK', 'UA'];
const NORTHERN_EUROPE: Codes = [
  'AX',
  'DK',
  'EE',
  'FO',
  'FI',
  'GG',
  'IS',
  'IE',
  'IM',
  'JE',
  'LV',
  'LT',
  'NO',
  'SJ',
  'SE',
  'GB',
];
const SOUTHERN_EUROPE: Codes = [
  'AL',
  'AD',
  'BA',
  'HR',
  'GI',
  'GR',
  'VA',
  'IT',
  'MT',
  'ME',
  'MK',
  'PT',
  'SM',
  'RS',
  'SI',
  'ES',
];
const WESTERN_EUROPE: Codes = ['AT', 'BE', 'FR', 'DE', 'LI', 'LU', 'MC', 'NL', 'CH'];
const AUSTRALIA_NEW_ZEALAND: Codes = ['AU', 'CX', 'CC', 'HM', 'NZ', 'NF'];
const MELANESIA: Codes = ['FJ', 'NC', 'PG', 'SB', 'VU'];
const MICRONESIA: Codes = ['GU', 'KI', 'MH', 'FM', 'NR', 'MP', 'PW', 'UM'];
const POLYNESIA: Codes = ['AS', 'CK', 'PF', 'NU', 'PN', 'WS', 'TK', 'TO', 'TV', 'WF'];

const EUROPE = [...EASTERN_EUROPE, ...NORTHERN_EUROPE, ...SOUTHERN_EUROPE, ...WESTERN_EUROPE];
const AFRICA = [...NORTHERN_AFRICA, ...EASTERN_AFRICA, ...MIDDLE_AFRICA, ...SOUTHERN_AFRICA, ...WESTERN_AFRICA];
const OCEANIA = [...AUSTRALIA_NEW_ZEALAND, ...MELANESIA, ...MICRONESIA, ...POLYNESIA];

/** The Middle East of MENA: Western Asia without the South Caucasus, Cyprus and Türkiye, plus Iran. */
const MIDDLE_EAST: Codes = [...WESTERN_ASIA.filter((c) => !['AM', 'AZ', 'GE', 'CY', 'TR'].includes(c)), 'IR'];

const MEMBERS = {
  APAC: [...CENTRAL_ASIA, ...EASTERN_ASIA, ...SOUTH_EASTERN_ASIA, ...SOUTHERN_ASIA_WITHOUT_IRAN, ...OCEANIA],
  LATAM: [...CARIBBEAN, ...CENTRAL_AMERICA, ...SOUTH_AMERICA],
  EMEA: [...EUROPE, ...AFRICA, ...WESTERN_ASIA, 'IR'],
  NAM: NORTHERN_AMERICA,
  SEA: SOUTH_EASTERN_ASIA,
  MINA: [...MIDDLE_EAST, ...NORTHERN_AFRICA],
} satisfies Record<string, Codes>;

/** Ids as stored and sent; names as the console shows them (NAM is 'North Americas', MINA is 'MENA'). */
const REGION_IDS = ['APAC', 'LATAM', 'EMEA', 'NAM', 'SEA', 'MINA'] as const;
export type RegionId = (typeof REGION_IDS)[number];
const REGION_NAMES: Record<RegionId, string> = {
  APAC: 'APAC',
  LATAM: 'LATAM',
  EMEA: 'EMEA',
  NAM: 'North Americas',
  SEA: 'SEA',
  MINA: 'MENA',
};

export type Region = ReferenceTree<RegionId, CountryCode>;

/** Each region with its countries in the order of COUNTRIES (by name, fixed in the data, not by the browser's collation). */
export const REGIONS: readonly Region[] = REGION_IDS.map((id) => {
  const members = new Set<string>(MEMBERS[id]);
  return { id, name: REGION_NAMES[id], children: COUNTRIES.filter((c) => members.has(c.id)) };
});

export const REGION_BY_ID: ReadonlyMap<string, Region> = new Map(REGIONS.map((r) => [r.id, r]));

export function isRegion(id: unknown): id is RegionId {
  return typeof id === 'string' && REGION_BY_ID.has(id);
}

/** Country codes of a region (what a region selection in targeting expands to); empty for an unknown id. */
export function countriesOfRegion(id: string): readonly CountryCode[] {
  return REGION_BY_ID.get(id)?.children.map((c) => c.id) ?? [];
}

/** Regions a country belongs to, in the order of REGIONS: `regionsOfCountry('SG')` is `['APAC', 'SEA']`. */
export function regionsOfCountry(code: string): readonly RegionId[] {
  return REGIONS.filter((r) => r.children.some((c) => c.id === code)).map((r) => r.id);
}
