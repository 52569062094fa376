import { isIP } from 'node:net';
import { type CityResponse } from 'maxmind';
import { GeoTable } from './geoTable.js';
import { addressText } from '../../ivt/ipAddress.js';

/**
 * Country, region and US state of a viewer's address. geoip-lite's bundled data (read once into a
 * compact table of country and region ranges: geoTable.ts) answers by default; a MaxMind
 * GeoIP2/GeoLite2 City database answers instead when the operator sets its path
 * (ADPLANE_MAXMIND_DB), as it is more precise and updated weekly.
 */
export interface Geo {
  /** ISO 3166-1 alpha-2, '' when unknown. */
  country: string;
  /** First-level subdivision code (ISO 3166-2 suffix), '' when unknown. */
  region: string;
  /** Two-letter state code for US addresses, '' otherwise. */
  usState: string;
  /** City, metro and postal code: a MaxMind City database's answer alone has them (absent otherwise). */
  place?: Place;
}

/** Where in a country a viewer is, as a MaxMind City database says. */
interface Place {
  /** The city's English name ('' when unknown). */
  city: string;
  /** The city as city rules match it, in lower case: `cc:city` and, when the region is known, `cc-rr:city`. */
  cityKeys: readonly string[];
  /** The Nielsen DMA code (US), '' when none. */
  metro: string;
  /** The postal code as postal code rules match it, `cc:code` in lower case ('' when unknown). */
  postalKey: string;
}

export const UNKNOWN_GEO: Geo = Object.freeze({ country: '', region: '', usState: '' });

export type GeoLookup = (ip: string) => Geo;

/** geoip-lite's data compacted to country and region (geoTable.ts): built on first use, kept. */
let geoipLiteTable: GeoTable<Geo> | null = null;

function fromParts(country: string, region: string): Geo {
  const c = /^[A-Z]{2}$/.test(country) ? country : '';
  const r = /^[A-Z0-9]{1,3}$/.test(region) ? region : '';
  return { country: c, region: r, usState: c === 'US' ? r : '' };
}

/**
 * The address a request states, as geo and the viewer's keys read it ('' when it is none; private,
 * loopback and malformed addresses have no geo, and must not throw): the spellings the IVT check
 * reads too (ivt/ipAddress.ts `addressText`: a port, brackets, the first of a list), an IPv4-mapped
 * IPv6 address as its IPv4 one.
 */
export function publicAddress(stated: string): string {
  const text = addressText(stated);
  const address = text.startsWith('::ffff:') ? text.slice(7) : text;
  return isIP(address) ? address : '';
}

/** geoip-lite's answer for an address (private, loopback and malformed ones unknown), one frozen object per place. */
export const geoipLiteLookup: GeoLookup = (ip) => {
  geoipLiteTable ??= GeoTable.load((parts) =>
    parts ? Object.freeze(fromParts(parts.country, parts.region)) : UNKNOWN_GEO,
  );
  return geoipLiteTable.lookup(ip);
};

/** A lookup on a MaxMind .mmdb file; geoip-lite answers for addresses the file does not know. */
export async function maxmindLookup(path: string): Promise<GeoLookup> {
  const maxmind = await import('maxmind');
  const reader = await maxmind.open<CityResponse>(path);
  return (ip) => {
    const address = publicAddress(ip);
    if (!address) return UNKNOWN_GEO;
    const hit = reader.get(address);
    if (!hit?.country?.iso_code) return geoipLiteLookup(address);
    const geo: Geo = fromParts(hit.country.iso_code, hit.subdivisions?.[0]?.iso_code ?? '');
    const place = placeOf(geo, hit);
    if (place) geo.place = place;
    return geo;
  };
}

/** The city, metro and postal code of a City database's answer, null when it names none of them. */
function placeOf(geo: Geo, hit: CityResponse): Place | null {
  const city = hit.city?.names?.en ?? '';
  const metro = hit.location?.metro_code;
  const postal = hit.postal?.code ?? '';
  if (!geo.country || (!city && !metro && !postal)) return null;
  const c = geo.country.toLowerCase();
  const name = city.toLowerCase();
  return {
    city,
    cityKeys: !name ? [] : geo.region ? [`${c}:${name}`, `${c}-${geo.region.toLowerCase()}:${name}`] : [`${c}:${name}`],
    metro: metro ? String(metro) : '',
    postalKey: postal ? `${c}:${postal.toLowerCase()}` : '',
  };
}
