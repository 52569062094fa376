import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * geoip-lite's bundled data, compacted to what the ad server reads: country and region. geoip-lite
 * keeps its five data files in memory as read (about 150 MB of buffers, city names and coordinates
 * included) and builds a result object of nine fields, strings cut from those buffers, on every
 * lookup. This table reads the same files once, keeps for each address range only a small number
 * naming its (country, region), merges neighbouring ranges of the same place, and drops the files:
 * about 30 MB; an IPv4 lookup allocates nothing. Its answers are geoip-lite's (tested address by
 * address against geoip-lite itself): the same ranges, the same private IPv4 ranges answered
 * unknown. One difference: IPv6 addresses are compared on all 128 bits, where geoip-lite compares
 * the first 64 only and so answers any one of the places a /64 is split into.
 */
export interface PlaceParts {
  country: string;
  region: string;
}

// Every data file's record starts with the range's first and last address (4 bytes each for IPv4,
// 16 for IPv6), then a location id (city files: latitude, longitude and area follow) or a country code.
const CITY_RECORD = 24;
const CITY6_RECORD = 48;
const COUNTRY_RECORD = 10;
const COUNTRY6_RECORD = 34;
const LOCATION_RECORD = 88; // city names file: country (2), region (3), metro, eu, time zone, city
const NO_LOCATION = 0xffffffff;

/** geoip-lite's private IPv4 ranges, answered as unknown whatever the data says. */
const PRIVATE_V4: readonly [number, number][] = [
  [0x0a000000, 0x0affffff],
  [0xac100000, 0xac1fffff],
  [0xc0a80000, 0xc0a8ffff],
];

/** The folder of geoip-lite's data files: where geoip-lite itself reads them (GEODATADIR, else its own data/). */
export function geoipLiteDataDir(): string {
  if (process.env.GEODATADIR) return process.env.GEODATADIR;
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('geoip-lite/package.json')), 'data');
}

const cut = (buffer: Buffer, from: number, to: number) => {
  const text = buffer.toString('utf8', from, to);
  const nul = text.indexOf('\u0000');
  return nul < 0 ? text : text.slice(0, nul);
};

/** Address ranges sorted by their first address, `words` 32-bit words an address (1 for IPv4, 4 for IPv6). */
interface Ranges {
  starts: Uint32Array;
  ends: Uint32Array;
  places: Uint16Array;
  count: number;
  words: number;
}

/**
 * Reads a data file's ranges (sorted, as geoip-lite writes them), merging neighbours of the same
 * place as they come; `placeAt` reads the place of the record whose place field is at `at`.
 */
function readRanges(
  file: Buffer,
  record: number,
  words: number,
  placeAt: (file: Buffer, at: number) => number,
): Ranges {
  const lines = file.length / record;
  const starts = new Uint32Array(lines * words);
  const ends = new Uint32Array(lines * words);
  const places = new Uint16Array(lines);
  const bytes = words * 4;
  const start = new Array<number>(words).fill(0);
  const end = new Array<number>(words).fill(0);
  let count = 0;
  for (let line = 0; line < lines; line++) {
    const at = line * record;
    for (let i = 0; i < words; i++) {
      start[i] = file.readUInt32BE(at + i * 4);
      end[i] = file.readUInt32BE(at + bytes + i * 4);
    }
    const place = placeAt(file, at + 2 * bytes);
    const last = count - 1;
    if (last >= 0 && places[last] === place && follows(ends, last * words, start, words)) {
      for (let i = 0; i < words; i++) ends[last * words + i] = end[i]!;
      continue;
    }
    for (let i = 0; i < words; i++) {
      starts[count * words + i] = start[i]!;
      ends[count * words + i] = end[i]!;
    }
    places[count++] = place;
  }
  return {
    starts: starts.slice(0, count * words),
    ends: ends.slice(0, count * words),
    places: places.slice(0, count),
    count,
    words,
  };
}

/** Whether `start` is the address right after the one at `at` in `ends` (big-endian words). */
function follows(ends: Uint32Array, at: number, start: ArrayLike<number>, words: number): boolean {
  let carry = 1;
  for (let i = words - 1; i >= 0; i--) {
    const next = ends[at + i]! + carry;
    carry = next > 0xffffffff ? 1 : 0;
    if (next >>> 0 !== start[i]) return false;
  }
  return carry === 0;
}

export class GeoTable<P> {
  private constructor(
    private readonly places: readonly P[],
    private readonly v4: Ranges,
    private readonly v6: Ranges,
    private readonly unknown: P,
  ) {}

  /** Ranges in the table (IPv4, IPv6), after merging. */
  get size(): { v4: number; v6: number } {
    return { v4: this.v4.count, v6: this.v6.count };
  }

  /**
   * Reads geoip-lite's data files from `dir` (the city files, else the country files) and makes
   * each distinct place into `P` once with `place` (`null` for an address without a location).
   */
  static load<P>(place: (parts: PlaceParts | null) => P, dir = geoipLiteDataDir()): GeoTable<P> {
    const places: P[] = [place(null)];
    const placeIds = new Map<string, number>();
    const placeOf = (country: string, region: string): number => {
      if (!country && !region) return 0;
      const key = `${country}|${region}`;
      let id = placeIds.get(key);
      if (id === undefined) {
        id = places.length;
        if (id > 0xffff) throw new Error('geo table: more than 65,535 places');
        places.push(place({ country, region }));
        placeIds.set(key, id);
      }
      return id;
    };
    const city = existsSync(join(dir, 'geoip-city.dat')) && existsSync(join(dir, 'geoip-city-names.dat'));
    const names = city ? readFileSync(join(dir, 'geoip-city-names.dat')) : null;
    const byLocation = new Int32Array(names ? names.length / LOCATION_RECORD : 0).fill(-1);
    const locationPlace = (locId: number): number => {
      if (locId === NO_LOCATION || !names) return 0;
      let id = byLocation[locId]!;
      if (id < 0) {
        const at = locId * LOCATION_RECORD;
        id = byLocation[locId] = placeOf(cut(names, at, at + 2), cut(names, at + 2, at + 5));
      }
      return id;
    };

    const placeAt = city
      ? (file: Buffer, at: number) => locationPlace(file.readUInt32BE(at))
      : (file: Buffer, at: number) => placeOf(cut(file, at, at + 2), '');
    const v4 = readRanges(
      readFileSync(join(dir, city ? 'geoip-city.dat' : 'geoip-country.dat')),
      city ? CITY_RECORD : COUNTRY_RECORD,
      1,
      placeAt,
    );
    const v6Name = city ? 'geoip-city6.dat' : 'geoip-country6.dat';
    const v6File = existsSync(join(dir, v6Name)) ? readFileSync(join(dir, v6Name)) : Buffer.alloc(0);
    const v6 = readRanges(v6File, city ? CITY6_RECORD : COUNTRY6_RECORD, 4, placeAt);
    return new GeoTable(places, v4, v6, places[0]!);
  }

  /** The place of an IPv4 or IPv6 address (text), the unknown place for anything else. */
  lookup(ip: string): P {
    const v4 = parseV4(ip, 0);
    if (v4 >= 0) return this.lookup4(v4);
    const v6 = parseV6(ip);
    if (!v6) return this.unknown;
    // an IPv4 address mapped into IPv6 (::ffff:a.b.c.d) is looked up as IPv4, as geoip-lite does
    if (v6[0] === 0 && v6[1] === 0 && v6[2] === 0xffff) return this.lookup4(v6[3]!);
    return this.find(this.v6, v6);
  }

  private lookup4(ip: number): P {
    for (const [from, to] of PRIVATE_V4) if (ip >= from && ip <= to) return this.unknown;
    address4[0] = ip;
    return this.find(this.v4, address4);
  }

  /** The place of the range holding `ip` (in `ranges`' words): the last one starting at or before it, if it reaches it. */
  private find(ranges: Ranges, ip: Uint32Array): P {
    const { starts, ends, places, count, words } = ranges;
    let lo = 0;
    let hi = count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compareAt(starts, mid * words, ip, words) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && compareAt(ends, found * words, ip, words) >= 0 ? this.places[places[found]!]! : this.unknown;
  }
}

/** An IPv4 address as the one word `find` compares (shared: read at once). */
const address4 = new Uint32Array(1);

/** The address of `words` words at `at` in `list` against `ip`: negative, zero or positive. */
function compareAt(list: Uint32Array, at: number, ip: Uint32Array, words: number): number {
  for (let i = 0; i < words; i++) {
    const d = list[at + i]! - ip[i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** A dotted-quad IPv4 address from `from` to the end of `text` as a number, or -1. */
function parseV4(text: string, from: number): number {
  let value = 0;
  let part = -1;
  let dots = 0;
  let digits = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (part < 0 || dots === 3) return -1;
      value = value * 256 + part;
      part = -1;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      if (digits === 3 || (digits > 0 && part === 0)) return -1;
      part = (part < 0 ? 0 : part * 10) + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else return -1;
  }
  if (dots !== 3 || part < 0) return -1;
  return value * 256 + part;
}

const words = new Uint32Array(4);

/** An IPv6 address (text, `::` and a trailing dotted IPv4 allowed) as four 32-bit words (shared: read at once), or null. */
function parseV6(text: string): Uint32Array | null {
  if (text.length < 2 || text.length > 45 || text.indexOf(':') < 0) return null;
  const gap = text.indexOf('::');
  if (gap >= 0 && text.indexOf('::', gap + 1) >= 0) return null;
  const head = gap >= 0 ? text.slice(0, gap) : text;
  const tail = gap >= 0 ? text.slice(gap + 2) : '';
  const groups: number[] = [];
  const read = (part: string, out: number[], last: boolean): boolean => {
    if (!part) return true;
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (last && i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseV4(piece, 0);
        if (v4 < 0) return false;
        out.push(Math.floor(v4 / 65536), v4 % 65536);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return false;
        out.push(parseInt(piece, 16));
      }
    }
    return true;
  };
  const back: number[] = [];
  if (!read(head, groups, gap < 0) || !read(tail, back, true)) return null;
  if (gap < 0 ? groups.length !== 8 : groups.length + back.length > 7) return null;
  while (groups.length + back.length < 8) groups.push(0);
  groups.push(...back);
  for (let i = 0; i < 4; i++) words[i] = groups[i * 2]! * 65536 + groups[i * 2 + 1]!;
  return words;
}
