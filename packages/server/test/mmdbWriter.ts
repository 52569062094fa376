/**
 * A minimal MaxMind DB (.mmdb, format 2.0) writer for tests: IPv4 networks to small records, as a
 * GeoIP2 City database shapes them. It exists so that the edge's MaxMind path is read from a real
 * file by the real reader (npm `maxmind`), without shipping MaxMind's licensed data. Format:
 * https://maxmind.github.io/MaxMind-DB/ (search tree of 24-bit records, data section, metadata).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Value = string | number | Value[] | { [key: string]: Value };

function uintBytes(n: bigint | number): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  while (v > 0n) {
    out.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  return out;
}

function control(type: number, size: number): number[] {
  if (size >= 29) throw new Error('test writer: values up to 28 bytes or entries only');
  return type <= 7 ? [(type << 5) | size] : [size, type - 7];
}

function encode(v: Value, uintType: Record<string, number> = {}, key = ''): number[] {
  if (typeof v === 'string') {
    const bytes = [...Buffer.from(v, 'utf8')];
    return [...control(2, bytes.length), ...bytes];
  }
  if (typeof v === 'number') {
    const type = uintType[key] ?? 6; // uint32 unless the metadata says otherwise
    const bytes = uintBytes(v);
    return [...control(type, bytes.length), ...bytes];
  }
  if (Array.isArray(v)) return [...control(11, v.length), ...v.flatMap((x) => encode(x, uintType))];
  const entries = Object.entries(v);
  return [...control(7, entries.length), ...entries.flatMap(([k, x]) => [...encode(k), ...encode(x, uintType, k)])];
}

/** Networks as `a.b.c.d/len` with the record each maps to. */
function writeMmdb(networks: Record<string, Value>): Buffer {
  const nodes: [number, number][] = [[-1, -1]];
  const data: number[] = [];
  const leaves: { node: number; bit: number; offset: number }[] = [];
  for (const [cidr, record] of Object.entries(networks)) {
    const [ip, lenText] = cidr.split('/') as [string, string];
    const len = Number(lenText);
    const addr = ip.split('.').reduce((a, o) => (a << 8) | Number(o), 0) >>> 0;
    let node = 0;
    for (let depth = 0; depth < len; depth++) {
      const bit = (addr >>> (31 - depth)) & 1;
      if (depth === len - 1) {
        leaves.push({ node, bit, offset: data.length });
        data.push(...encode(record));
      } else {
        let next = nodes[node]![bit]!;
        if (next < 0) {
          next = nodes.length;
          nodes.push([-1, -1]);
          nodes[node]![bit] = next;
        }
        node = next;
      }
    }
  }
  const count = nodes.length;
  for (const l of leaves) nodes[l.node]![l.bit] = count + 16 + l.offset;
  const tree: number[] = [];
  for (const [left, right] of nodes)
    for (const r of [left, right]) {
      const v = r < 0 ? count : r;
      tree.push((v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
    }
  const metadata = encode(
    {
      node_count: count,
      record_size: 24,
      ip_version: 4,
      database_type: 'GeoIP2-City',
      languages: ['en'],
      binary_format_major_version: 2,
      binary_format_minor_version: 0,
      build_epoch: 1_700_000_000,
      description: { en: 'adplane test city database' },
    },
    { record_size: 5, ip_version: 5, binary_format_major_version: 5, binary_format_minor_version: 5, build_epoch: 9 },
  );
  return Buffer.from([
    ...tree,
    ...new Array<number>(16).fill(0),
    ...data,
    ...Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1'),
    ...metadata,
  ]);
}

/**
 * A City database in `dir` placing 81.2.69.0/24 in Sweden (geoip-lite says Great Britain),
 * 24.24.24.0/24 in Ohio (no city), and 71.10.20.0/24 in Mountain View, California (metro 807, postal
 * code 94043).
 */
export function writeTestCityDb(dir: string): string {
  const path = join(dir, 'test-city.mmdb');
  writeFileSync(
    path,
    writeMmdb({
      '81.2.69.0/24': { country: { iso_code: 'SE' }, subdivisions: [{ iso_code: 'AB' }] },
      '24.24.24.0/24': { country: { iso_code: 'US' }, subdivisions: [{ iso_code: 'OH' }] },
      '71.10.20.0/24': {
        country: { iso_code: 'US' },
        subdivisions: [{ iso_code: 'CA' }],
        city: { names: { en: 'Mountain View' } },
        location: { metro_code: 807 },
        postal: { code: '94043' },
      },
    }),
  );
  return path;
}
