import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { type CityResponse } from 'maxmind';

/**
 * Country, region and US state of a viewer's address. geoip-lite's bundled data (loaded once, in
 * memory) answers by default; a MaxMind GeoIP2/GeoLite2 City database answers instead when the
 * operator sets its path (ADPLANE_MAXMIND_DB), as it is more precise and updated weekly.
 */
export interface Geo {
  /** ISO 3166-1 alpha-2, '' when unknown. */
  country: string;
  /** First-level subdivision code (ISO 3166-2 suffix), '' when unknown. */
  region: string;
  /** Two-letter state code for US addresses, '' otherwise. */
  usState: string;
}

export const UNKNOWN_GEO: Geo = Object.freeze({ country: '', region: '', usState: '' });

export type GeoLookup = (ip: string) => Geo;

interface GeoipLite {
  lookup(ip: string): { country: string; region: string } | null;
}

const require = createRequire(import.meta.url);
let geoipLite: GeoipLite | null = null;

function fromParts(country: string, region: string): Geo {
  const c = /^[A-Z]{2}$/.test(country) ? country : '';
  const r = /^[A-Z0-9]{1,3}$/.test(region) ? region : '';
  return { country: c, region: r, usState: c === 'US' ? r : '' };
}

/** Private, loopback and malformed addresses have no geo (and must not throw). */
export function publicAddress(ip: string): string {
  const v = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return isIP(v) ? v : '';
}

export const geoipLiteLookup: GeoLookup = (ip) => {
  const address = publicAddress(ip);
  if (!address) return UNKNOWN_GEO;
  geoipLite ??= require('geoip-lite') as GeoipLite;
  const hit = geoipLite.lookup(address);
  return hit ? fromParts(hit.country, hit.region) : UNKNOWN_GEO;
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
    return fromParts(hit.country.iso_code, hit.subdivisions?.[0]?.iso_code ?? '');
  };
}
