import { FNV1A_OFFSET, fnv1a } from '@adplane/shared';
import { list as isbotList } from 'isbot';
import { platformOf } from './userAgent.js';

/**
 * What the IVT checks need to know about a user agent, worked out once per distinct string and
 * cached (players and SDKs repeat a handful of user agents all day, so almost every request is a
 * map hit): whether it is a bot, and the device and OS it claims.
 *
 * Bots come from isbot 5 (Unlicense; its list merges crawler-user-agents, user-agents.org and its
 * own) plus the shipped lists/ua-patterns.txt and an operator's ADPLANE_IVT_UA_FILE. isbot's list has
 * two kinds of rule: names (googlebot, headless, python, http...) and shapes (a bare
 * `product/version`, a string with no spaces...). A shape alone is strong evidence in a browser, but
 * apps and TV players make ad requests through their own HTTP stacks with exactly such strings
 * (`AppleTV11,1/11.1`, `Samsung Tizen TV`), so a shape-only match is kept apart (`shapeOnly`) and
 * the check counts it as a bot outside apps only.
 */
type UaBotReason = '' | 'known_crawler' | 'bot_user_agent';

export interface UaProfile {
  /** A named crawler, bot, automation tool or HTTP library: flagged wherever it comes from. */
  bot: UaBotReason;
  /** Matched isbot's shape rules only: a bot in a browser, an app's own HTTP stack in an app. */
  shapeOnly: boolean;
  /** mobile | desktop | smarttv | '' (ivt/userAgent.ts ids) */
  device: string;
  os: string;
  tvFamily: string;
  browser: string;
  /** A 30-bit hash of the string (a small integer, so map keys built from it do not allocate). */
  hash: number;
  /**
   * Chrome's reduced user agent (UA Reduction, Chrome 101+; Edge and Opera append their token): every
   * device of a platform and major version sends the same string (`Linux; Android 10; K` for every
   * Android phone), so with the address it tells viewers apart far less than a full one does.
   */
  reduced: boolean;
}

/** Chrome's reduced user agent: its frozen platform tokens and a `<major>.0.0.0` version. */
const REDUCED_CHROME =
  /^Mozilla\/5\.0 \((?:Windows NT 10\.0; Win64; x64|Macintosh; Intel Mac OS X 10_15_7|X11; Linux x86_64|X11; CrOS (?:x86_64|aarch64|armv7l) 14541\.0\.0|Linux; Android 10; K)\) AppleWebKit\/537\.36 \(KHTML, like Gecko\) Chrome\/\d{2,3}\.0\.0\.0 (?:Mobile )?Safari\/537\.36(?: (?:Edg|EdgA|OPR)\/\d{2,3}\.0\.0\.0)?$/;

export interface UaPatternList {
  bot: string[];
  allow: string[];
  replace: boolean;
  errors: { line: number; text: string }[];
}

export const emptyUaPatternList = (): UaPatternList => ({ bot: [], allow: [], replace: false, errors: [] });

/**
 * Reads pattern text: one regular expression a line (case-insensitive, matched anywhere in the
 * user agent), `#` at the start of a line for a comment, `!pattern` for user agents that are never
 * bots (a partner's server-side ad insertion, say), and a line `@replace` to drop the shipped
 * patterns instead of extending them (isbot itself always applies).
 */
export function readUaPatterns(text: string, into: UaPatternList = emptyUaPatternList()): UaPatternList {
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    let line = lines[n]!.trim();
    if (!line || line.startsWith('#')) continue;
    if (line === '@replace') {
      into.replace = true;
      continue;
    }
    const allow = line.startsWith('!');
    if (allow) line = line.slice(1).trim();
    try {
      new RegExp(line, 'i');
    } catch {
      into.errors.push({ line: n + 1, text: lines[n]!.trim() });
      continue;
    }
    (allow ? into.allow : into.bot).push(line);
  }
  return into;
}

/** isbot rules about a string's shape rather than a name (they begin with a character class or `mozilla/\d`). */
const isShapeRule = (source: string): boolean => /^\^(?:\[|\\d|\\w|mozilla\/\\d)/.test(source);

/** Declared crawlers (they name themselves or link their page) as opposed to automation and HTTP tools. */
const CRAWLER =
  /bot\b|bot[/_ -]|crawl|spider|slurp|archiv|fetcher|scanner|preview|validator|facebookexternalhit|mediapartners|\+?https?:\/\//i;

const union = (sources: readonly string[]): RegExp | null =>
  sources.length ? new RegExp(sources.join('|'), 'i') : null;

const CACHE_LIMIT = 5_000;

export class UaClassifier {
  private readonly named: RegExp;
  private readonly shape: RegExp;
  private readonly extra: RegExp | null;
  private readonly allow: RegExp | null;
  /** Two generations: a full current map becomes the previous one, so memory stays bounded and hot entries survive. */
  private current = new Map<string, UaProfile>();
  private previous = new Map<string, UaProfile>();

  constructor(patterns: UaPatternList) {
    this.named = union(isbotList.filter((p) => !isShapeRule(p)))!;
    this.shape = union(isbotList.filter(isShapeRule))!;
    this.extra = union(patterns.bot);
    this.allow = union(patterns.allow);
  }

  profile(ua: string): UaProfile {
    let hit = this.current.get(ua);
    if (hit) return hit;
    hit = this.previous.get(ua) ?? this.compute(ua);
    if (this.current.size >= CACHE_LIMIT) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(ua, hit);
    return hit;
  }

  private compute(ua: string): UaProfile {
    const p = platformOf(ua);
    let bot: UaBotReason = '';
    let shapeOnly = false;
    if (!this.allow?.test(ua)) {
      if (this.named.test(ua) || this.extra?.test(ua)) bot = CRAWLER.test(ua) ? 'known_crawler' : 'bot_user_agent';
      else shapeOnly = this.shape.test(ua);
    }
    return Object.freeze({
      bot,
      shapeOnly,
      device: p.device,
      os: p.os,
      tvFamily: p.tvFamily,
      browser: p.browser,
      hash: hash30(ua),
      reduced: REDUCED_CHROME.test(ua),
    });
  }
}

/** FNV-1a over UTF-16 code units, folded to 30 bits (a V8 small integer). */
export function hash30(s: string, seed = FNV1A_OFFSET): number {
  const h = fnv1a(s, seed);
  return (h ^ (h >>> 30)) & 0x3fffffff;
}
