import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * geoip-lite's bundled data, compacted to what the ad server reads: country and region. geoip-lite
 * keeps its five data files in memory as read (about 150 MB of buffers, city names and coordinates
 * included) and builds a result object of nine fields, strings cut from those buffers, on every
 * lookup. This table reads the same files once, keeps for each address range only a small number
 * naming its (country, region), merges neighbouring ranges of the same place, and drops the files:
 * about 30 MB, a lookup without allocation. Its answers are geoip-lite's (tested address by
 * address against geoip-lite itself): the same ranges, the same private IPv4 ranges answered
 * unknown. One difference: IPv6 addresses are compared on all 128 bits, where geoip-lite compares
 * the first 64 only and so answers any one of the places a /64 is split into.
 */
export interface PlaceParts {
  country: string;
  region: string;
}

const CITY_RECORD = 24; // IPv4 city file: start, end, location id, latitude, longitude, area
const CITY6_RECORD = 48; // IPv6 city file: start (16 bytes), end (16 bytes), location id, latitude, longitude, area
const COUNTRY_RECORD = 10; // IPv4 country file: start, end, country code
const COUNTRY6_RECORD = 34; // IPv6 country file: start, end, country code
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

/** Ranges being collected: neighbours of the same place merged as they come (the files are sorted). */
class RangeBuilder {
  private count = 0;
  constructor(
    private starts: Uint32Array,
    private ends: Uint32Array,
    private places: Uint16Array,
    private readonly words: number,
  ) {}

  add(start: ArrayLike<number>, end: ArrayLike<number>, place: number): void {
    const w = this.words;
    const last = this.count - 1;
    if (last >= 0 && this.places[last] === place && follows(this.ends, last * w, start, w)) {
      for (let i = 0; i < w; i++) this.ends[last * w + i] = end[i]!;
      return;
    }
    for (let i = 0; i < w; i++) {
      this.starts[this.count * w + i] = start[i]!;
      this.ends[this.count * w + i] = end[i]!;
    }
    this.places[this.count++] = place;
  }

  done(): { starts: Uint32Array; ends: Uint32Array; places: Uint16Array; count: number } {
    const w = this.words;
    return { starts: this.starts.slice(0, this.count * w), ends: this.ends.slice(0, this.count * w), places: this.places.slice(0, this.count), count: this.count };
  }
}

/** Whether `start` is the address right after the one at `at` in `ends` (big-endian words). */
function follows(ends: Uint32Array, at: number, start: ArrayLike<number>, words: number): boolean {
  let carry = 1;
  for (let i = words - 1; i >= 0; i--) {
    const next = ends[at + i]! + carry;
    carry = next > 0xffffffff ? 1 : 0;
    if ((next >>> 0) !== start[i]) return false;
  }
  return carry === 0;
}

export class GeoTable<P> {
  private constructor(
    private readonly places: readonly P[],
    private readonly v4: { starts: Uint32Array; ends: Uint32Array; places: Uint16Array; count: number },
    private readonly v6: { starts: Uint32Array; ends: Uint32Array; places: Uint16Array; count: number },
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

    const v4File = readFileSync(join(dir, city ? 'geoip-city.dat' : 'geoip-country.dat'));
    const v4Record = city ? CITY_RECORD : COUNTRY_RECORD;
    const v4Count = v4File.length / v4Record;
    const v4 = new RangeBuilder(new Uint32Array(v4Count), new Uint32Array(v4Count), new Uint16Array(v4Count), 1);
    const start = [0, 0];
    const end = [0, 0];
    for (let line = 0; line < v4Count; line++) {
      const at = line * v4Record;
      start[0] = v4File.readUInt32BE(at);
      end[0] = v4File.readUInt32BE(at + 4);
      v4.add(start, end, city ? locationPlace(v4File.readUInt32BE(at + 8)) : placeOf(cut(v4File, at + 8, at + 10), ''));
    }

    const v6Name = city ? 'geoip-city6.dat' : 'geoip-country6.dat';
    const v6File = existsSync(join(dir, v6Name)) ? readFileSync(join(dir, v6Name)) : Buffer.alloc(0);
    const v6Record = city ? CITY6_RECORD : COUNTRY6_RECORD;
    const v6Count = v6File.length / v6Record;
    const v6 = new RangeBuilder(new Uint32Array(v6Count * 4), new Uint32Array(v6Count * 4), new Uint16Array(v6Count), 4);
    const start6 = [0, 0, 0, 0];
    const end6 = [0, 0, 0, 0];
    for (let line = 0; line < v6Count; line++) {
      const at = line * v6Record;
      for (let w = 0; w < 4; w++) {
        start6[w] = v6File.readUInt32BE(at + w * 4);
        end6[w] = v6File.readUInt32BE(at + 16 + w * 4);
      }
      v6.add(start6, end6, city ? locationPlace(v6File.readUInt32BE(at + 32)) : placeOf(cut(v6File, at + 32, at + 34), ''));
    }
    return new GeoTable(places, v4.done(), v6.done(), places[0]!);
  }

  /** The place of an IPv4 or IPv6 address (text), the unknown place for anything else. */
  lookup(ip: string): P {
    const v4 = parseV4(ip, 0);
    if (v4 >= 0) return this.lookup4(v4);
    const v6 = parseV6(ip);
    if (!v6) return this.unknown;
    // an IPv4 address mapped into IPv6 (::ffff:a.b.c.d) is looked up as IPv4, as geoip-lite does
    if (v6[0] === 0 && v6[1] === 0 && v6[2] === 0xffff) return this.lookup4(v6[3]!);
    return this.lookup6(v6);
  }

  private lookup4(ip: number): P {
    for (const [from, to] of PRIVATE_V4) if (ip >= from && ip <= to) return this.unknown;
    const { starts, ends, places, count } = this.v4;
    // the last range starting at or before ip
    let lo = 0;
    let hi = count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= ip) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && ends[found]! >= ip ? this.places[places[found]!]! : this.unknown;
  }

  private lookup6(ip: Uint32Array): P {
    const { starts, ends, places, count } = this.v6;
    let lo = 0;
    let hi = count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compare6(starts, mid * 4, ip) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && compare6(ends, found * 4, ip) >= 0 ? this.places[places[found]!]! : this.unknown;
  }
}

/** The 128-bit address at `at` in `words` against `ip`: negative, zero or positive. */
function compare6(words: Uint32Array, at: number, ip: Uint32Array): number {
  for (let i = 0; i < 4; i++) {
    const d = words[at + i]! - ip[i]!;
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
