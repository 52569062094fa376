import { readFileSync } from 'node:fs';
import { emptyRangeList, type IpRangeSet, type RangeList, rangeSetOf, readRangeList } from './ipRanges.js';
import { emptyUaPatternList, readUaPatterns, UaClassifier, type UaPatternList } from './userAgentProfile.js';
import { serverPath } from '../serverRoot.js';

/**
 * The data the pre-bid checks match against, loaded once at start: the shipped datacenter ranges
 * (lists/datacenter-ranges.txt) and user-agent patterns (lists/ua-patterns.txt), each extended, or
 * replaced, by an operator's file (ADPLANE_IVT_RANGES_FILE, ADPLANE_IVT_UA_FILE). A bad line stops
 * the start with its file and line number, as a bad setting does.
 */
export interface TrafficLists {
  datacenter: IpRangeSet;
  /** Ranges an operator exempted (`!CIDR`): never datacenter traffic, whatever else says so. */
  exempt: IpRangeSet;
  ua: UaClassifier;
  summary: TrafficListSummary;
}

interface TrafficListSummary {
  datacenterV4Ranges: number;
  datacenterV6Ranges: number;
  exemptRanges: number;
  uaPatterns: number;
  uaAllowPatterns: number;
  rangesFile: string | null;
  uaFile: string | null;
}

export interface TrafficListFiles {
  rangesFile?: string | null;
  uaFile?: string | null;
}

export class TrafficListError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid IVT lists:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'TrafficListError';
  }
}

const LISTS = (name: string) => serverPath('src/ivt/lists', name);
export const SHIPPED_RANGES_FILE = LISTS('datacenter-ranges.txt');
const SHIPPED_UA_FILE = LISTS('ua-patterns.txt');

function read(file: string, variable: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new TrafficListError([
      `${variable}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? String(e)})`,
    ]);
  }
}

const lineErrors = (file: string, errors: { line: number; text: string }[], what: string) =>
  errors.slice(0, 20).map((e) => `${file}:${e.line}: not ${what}: ${JSON.stringify(e.text.slice(0, 80))}`);

export function loadTrafficLists(files: TrafficListFiles = {}): TrafficLists {
  const problems: string[] = [];
  const ranges: RangeList = emptyRangeList();
  if (files.rangesFile) {
    readRangeList(read(files.rangesFile, 'ADPLANE_IVT_RANGES_FILE'), ranges);
    problems.push(...lineErrors(files.rangesFile, ranges.errors, 'a CIDR range'));
  }
  if (!ranges.replace) {
    // the shipped files are tested: an error in them is a bug, reported the same way
    const shippedRanges = readRangeList(read(SHIPPED_RANGES_FILE, 'shipped ranges'));
    problems.push(...lineErrors(SHIPPED_RANGES_FILE, shippedRanges.errors, 'a CIDR range'));
    for (const r of shippedRanges.v4) ranges.v4.push(r);
    for (const r of shippedRanges.v6) ranges.v6.push(r);
  }

  const patterns: UaPatternList = emptyUaPatternList();
  if (files.uaFile) {
    readUaPatterns(read(files.uaFile, 'ADPLANE_IVT_UA_FILE'), patterns);
    problems.push(...lineErrors(files.uaFile, patterns.errors, 'a regular expression'));
  }
  if (!patterns.replace) {
    const shippedPatterns = readUaPatterns(read(SHIPPED_UA_FILE, 'shipped UA patterns'));
    problems.push(...lineErrors(SHIPPED_UA_FILE, shippedPatterns.errors, 'a regular expression'));
    patterns.bot.push(...shippedPatterns.bot);
    patterns.allow.push(...shippedPatterns.allow);
  }
  if (problems.length) throw new TrafficListError(problems);

  const { ranges: datacenter, exempt } = rangeSetOf(ranges);
  return {
    datacenter,
    exempt,
    ua: new UaClassifier(patterns),
    summary: {
      datacenterV4Ranges: datacenter.size.v4,
      datacenterV6Ranges: datacenter.size.v6,
      exemptRanges: exempt.size.v4 + exempt.size.v6,
      uaPatterns: patterns.bot.length,
      uaAllowPatterns: patterns.allow.length,
      rangesFile: files.rangesFile ?? null,
      uaFile: files.uaFile ?? null,
    },
  };
}

/** The refresh files an operator names in the environment ('' or unset: none). */
export function trafficListFilesFromEnv(env: NodeJS.ProcessEnv = process.env): TrafficListFiles {
  const file = (v: string | undefined) => (v && v.trim() ? v.trim() : null);
  return { rangesFile: file(env.ADPLANE_IVT_RANGES_FILE), uaFile: file(env.ADPLANE_IVT_UA_FILE) };
}

let shipped: TrafficLists | null = null;

/** The shipped lists alone, loaded on first use and kept. */
export function shippedTrafficLists(): TrafficLists {
  shipped ??= loadTrafficLists();
  return shipped;
}
