import { ID_PREFIX_LENGTH } from './trackingToken.js';

/**
 * Impression and video events count once per decision (trackingEvents.ts). The guard remembers the
 * decision ids already counted for the token lifetime. With several processes (the workers of
 * `--workers N`, or edge nodes sharing Redis) a beacon replayed to another process must not count
 * again: `SharedReplayGuard` asks the memory they share (the cluster primary, or Redis SET NX).
 */
export interface ImpressionReplayGuard {
  /** True the first time an id is seen (within the lifetime), false on a replay; a promise when other processes are asked. */
  firstTime(id: string, nowMs: number): boolean | Promise<boolean>;
  /** Resolves once every check asked so far has its answer (and its event was counted): before the final flush. */
  drain?(): Promise<void>;
  /**
   * Resolves once every event this guard answered as new so far is remembered durably (a crash
   * after it cannot make them new again); the counters call it before every write of counts, so no
   * count reaches the stats store before the guard could refuse its replay. Absent: nothing to do
   * (the memory is already outside this process, as Redis is).
   */
  persist?(): Promise<void>;
  close?(): Promise<void>;
}

/** How long a tracking token is honoured, and so how long a counted id is remembered. */
export const TRACKING_LIFETIME_HOURS = 25;

/** The tracking events a decision counts once (trackingEvents.ts): every one of them, clicks and errors too. */
export const COUNTED_ONCE = [
  'impression',
  'start',
  'firstQuartile',
  'midpoint',
  'thirdQuartile',
  'complete',
  'click',
  'error',
] as const;
/** A post-bid pixel's verdict on an impression, also counted once (doors/postback.ts). */
export const POSTBID_VERDICT = 'postbid_ivt';
/**
 * A decision's events, each a bit of one byte of a page, in families of up to eight: the page of a
 * family is kept under its own prefix (the decision id's prefix, and a mark that base64url never
 * holds), so a decision's byte per family costs nothing until one of its events is heard. Filled
 * decisions have their delivery events in one family and clicks and errors in another (clicks are
 * rarer: their pages stay few); an unfilled decision (`unfilledDecisionId`: the prefix, '_', a
 * counter) reports only errors, in pages of its own counters.
 */
const FILLED_FAMILIES: readonly { mark: string; events: readonly string[] }[] = [
  {
    mark: '',
    events: ['impression', 'start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete', POSTBID_VERDICT],
  },
  { mark: '+', events: ['click', 'error'] },
];
const UNFILLED_MARK = '_';
const UNFILLED_EVENTS: ReadonlyMap<string, number> = new Map([['error', 1]]);
/** A filled decision's event: its family's mark and its bit in the decision's byte. */
const EVENT_BITS: ReadonlyMap<string, { mark: string; bit: number }> = new Map(
  FILLED_FAMILIES.flatMap(({ mark, events }) => events.map((event, i) => [event, { mark, bit: 1 << i }] as const)),
);
/** Decisions a page covers: one byte each (4 KB a page). */
export const PAGE_DECISIONS = 4096;
/** Longest base36 counter read as a number (36^10 < 2^53: exact). */
const MAX_COUNTER_DIGITS = 10;

/** Where a counted event lives in the pages: its page family's prefix, the page, the decision's byte in it and the event's bit. */
export interface ReplaySlot {
  /** The decision id's prefix, then its family's mark ('' for a filled decision's delivery events). */
  prefix: string;
  page: number;
  /** The decision's byte in the page. */
  at: number;
  /** The event's bit in that byte (1, 2, 4, ... 64). */
  bit: number;
}

/**
 * The slot of an event key `<decision id>:<event>`, or null when the id is not a decision's of our
 * form (trackingToken.ts `newDecisionId`, `unfilledDecisionId`: the prefix and a base36 counter in
 * its own spelling, so two different ids never share a slot) or the event is not one that counts once.
 */
export function replaySlot(key: string): ReplaySlot | null {
  const colon = key.lastIndexOf(':');
  if (colon <= ID_PREFIX_LENGTH) return null;
  const event = key.slice(colon + 1);
  const unfilled = key[ID_PREFIX_LENGTH] === UNFILLED_MARK;
  const found = unfilled ? UNFILLED_EVENTS.get(event) : EVENT_BITS.get(event);
  if (found === undefined) return null;
  const mark = unfilled ? UNFILLED_MARK : (found as { mark: string }).mark;
  const bit = unfilled ? (found as number) : (found as { bit: number }).bit;
  const digits = key.slice(ID_PREFIX_LENGTH + (unfilled ? 1 : 0), colon);
  const counter = digits.length <= MAX_COUNTER_DIGITS ? parseInt(digits, 36) : NaN;
  if (!(counter >= 0) || counter.toString(36) !== digits) return null;
  const page = Math.floor(counter / PAGE_DECISIONS);
  return { prefix: key.slice(0, ID_PREFIX_LENGTH) + mark, page, at: counter - page * PAGE_DECISIONS, bit };
}

/** Pages per part of `ReplayGuard.savedParts`: a megabyte. */
const PAGES_PER_PART = 256;

/** The first bytes of a saved guard (`ReplayGuard.saved`); another version's file is not read. */
const SAVED_MAGIC = Buffer.from('adplane replay guard 1\n', 'utf8');

interface Page {
  bytes: Uint8Array;
  /** The hour (since the epoch) an event last touched the page. */
  hour: number;
}

/**
 * One process's memory of counted events, for the token lifetime, without a string per event.
 *
 * A decision id is its process's prefix and a counter (trackingToken.ts `newDecisionId`, filled
 * decisions only), so the events of one process's decisions land in pages of consecutive
 * counters: one byte per decision, a bit per event, against some 80 bytes per remembered event
 * in a set of strings (which, at a thousand impressions a second with their quartiles, held
 * gigabytes by the end of the token's day).
 *
 * A page untouched for the lifetime is dropped whole. That forgets nothing that could still
 * count: every event it remembers was heard over `lifetimeHours` ago, so its token was issued
 * earlier still and `/ev` refuses it as expired. An id of another form (a decision that did not
 * fill, an id minted elsewhere) is kept in hourly sets of strings, dropped the same way.
 */
export class ReplayGuard implements ImpressionReplayGuard {
  private readonly pages = new Map<string, Map<number, Page>>();
  private generations = new Map<number, Set<string>>();
  private hour = -1;

  constructor(private readonly lifetimeHours = TRACKING_LIFETIME_HOURS) {}

  firstTime(key: string, nowMs: number): boolean {
    const hour = Math.floor(nowMs / 3_600_000);
    if (hour > this.hour) this.forgetBefore(hour);
    const slot = replaySlot(key);
    if (!slot) return this.firstTimeOther(key, hour);
    let byPage = this.pages.get(slot.prefix);
    if (!byPage) this.pages.set(slot.prefix, (byPage = new Map()));
    let page = byPage.get(slot.page);
    if (!page) byPage.set(slot.page, (page = { bytes: new Uint8Array(PAGE_DECISIONS), hour }));
    page.hour = hour;
    if (page.bytes[slot.at]! & slot.bit) return false;
    page.bytes[slot.at]! |= slot.bit;
    return true;
  }

  /** Pages and generations last touched `lifetimeHours` or more before `hour` are dropped. */
  private forgetBefore(hour: number): void {
    this.hour = hour;
    const oldest = hour - this.lifetimeHours;
    for (const [prefix, byPage] of this.pages) {
      for (const [pageNo, page] of byPage) if (page.hour <= oldest) byPage.delete(pageNo);
      if (!byPage.size) this.pages.delete(prefix);
    }
    for (const h of this.generations.keys()) if (h <= oldest) this.generations.delete(h);
  }

  private firstTimeOther(key: string, hour: number): boolean {
    for (const seen of this.generations.values()) if (seen.has(key)) return false;
    let current = this.generations.get(hour);
    if (!current) this.generations.set(hour, (current = new Set()));
    current.add(key);
    return true;
  }

  /**
   * The memory as bytes, to be read back by `restore` after a restart (savedReplay.ts): a magic
   * line, the length of a JSON header (each page's prefix, number and last hour; the other keys by
   * hour), the header, then the pages' bytes in the header's order (4 KB a page).
   */
  saved(nowMs: number): Buffer {
    return Buffer.concat([...this.savedParts(nowMs)]);
  }

  /**
   * `saved`'s bytes in parts (ops/savedFile.ts StateParts): the magic line, the header's length and
   * the header, then the pages a megabyte at a time, each made when the last is written.
   */
  *savedParts(nowMs: number): Generator<Uint8Array, void, undefined> {
    const oldest = Math.floor(nowMs / 3_600_000) - this.lifetimeHours;
    const pages: [prefix: string, page: number, hour: number][] = [];
    const bytes: Uint8Array[] = [];
    for (const [prefix, byPage] of this.pages) {
      for (const [pageNo, page] of byPage) {
        if (page.hour <= oldest) continue;
        pages.push([prefix, pageNo, page.hour]);
        bytes.push(page.bytes);
      }
    }
    const others = [...this.generations]
      .filter(([hour]) => hour > oldest)
      .map(([hour, keys]) => [hour, [...keys]] as const);
    const header = Buffer.from(JSON.stringify({ lifetimeHours: this.lifetimeHours, pages, others }), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(header.length);
    yield Buffer.concat([SAVED_MAGIC, length, header]);
    // (the pages as they are when written: a bit set meanwhile is an event counted, kept either way)
    for (let i = 0; i < bytes.length; i += PAGES_PER_PART) yield Buffer.concat(bytes.slice(i, i + PAGES_PER_PART));
  }

  /** Takes back what `saved` wrote (pages and keys still within the lifetime), into a guard that has seen nothing yet; throws on a damaged buffer. */
  restore(data: Buffer, nowMs: number): { pages: number; otherKeys: number } {
    if (data.length < SAVED_MAGIC.length + 4 || !data.subarray(0, SAVED_MAGIC.length).equals(SAVED_MAGIC))
      throw new Error('not a saved replay guard of this version');
    const headerLength = data.readUInt32BE(SAVED_MAGIC.length);
    const start = SAVED_MAGIC.length + 4;
    const header = JSON.parse(data.subarray(start, start + headerLength).toString('utf8')) as {
      pages: [string, number, number][];
      others: [number, string[]][];
    };
    if (
      !Array.isArray(header.pages) ||
      !Array.isArray(header.others) ||
      data.length !== start + headerLength + header.pages.length * PAGE_DECISIONS
    ) {
      throw new Error('the saved replay guard is damaged');
    }
    const oldest = Math.floor(nowMs / 3_600_000) - this.lifetimeHours;
    let offset = start + headerLength;
    let pages = 0;
    for (const [prefix, pageNo, hour] of header.pages) {
      const bytes = data.subarray(offset, offset + PAGE_DECISIONS);
      offset += PAGE_DECISIONS;
      if (hour <= oldest) continue;
      let byPage = this.pages.get(prefix);
      if (!byPage) this.pages.set(prefix, (byPage = new Map()));
      byPage.set(pageNo, { bytes: new Uint8Array(bytes), hour });
      pages++;
    }
    let otherKeys = 0;
    for (const [hour, keys] of header.others) {
      if (hour <= oldest) continue;
      this.generations.set(hour, new Set(keys));
      otherKeys += keys.length;
    }
    return { pages, otherKeys };
  }

  /** What the memory holds (tests). */
  size(): { pages: number; otherKeys: number } {
    let pages = 0;
    for (const byPage of this.pages.values()) pages += byPage.size;
    let otherKeys = 0;
    for (const seen of this.generations.values()) otherKeys += seen.size;
    return { pages, otherKeys };
  }
}

/** Asks the shared memory which ids are new (and marks them seen): one answer per id. */
export type FirstTimesCheck = (ids: string[], nowMs: number) => Promise<boolean[]>;

interface GuardLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * This process's guard first (a replay to the same process costs nothing), then the shared check,
 * one call for all the ids of a turn of the event loop. When the shared memory does not answer the
 * event is counted (this process's guard still holds): a beacon is never lost for a Redis outage,
 * and only a replay to another process during it could count twice. Logged once per outage.
 */
export class SharedReplayGuard implements ImpressionReplayGuard {
  private readonly local = new ReplayGuard();
  private pending: { id: string; resolve(first: boolean): void }[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private down = false;
  /** The time of the last event asked about: what a drain asks the events still waiting at. */
  private lastMs = 0;

  constructor(
    private readonly check: FirstTimesCheck,
    private readonly log: GuardLog,
    private readonly closeShared: () => Promise<void> = () => Promise.resolve(),
    /** Makes the shared memory's answers so far durable (the workers' primary journals them); absent: they are as soon as answered (Redis). */
    private readonly persistShared?: () => Promise<void>,
  ) {}

  firstTime(id: string, nowMs: number): boolean | Promise<boolean> {
    if (!this.local.firstTime(id, nowMs)) return false;
    this.lastMs = nowMs;
    return new Promise((resolve) => {
      this.pending.push({ id, resolve });
      if (this.pending.length === 1) setImmediate(() => this.ask(nowMs));
    });
  }

  private ask(nowMs: number): void {
    const batch = this.pending;
    if (!batch.length) return; // drained already
    this.pending = [];
    const answered = this.check(
      batch.map((p) => p.id),
      nowMs,
    ).then(
      (answers) => {
        if (this.down) this.log.info({}, 'impression replay guard: the shared memory answers again');
        this.down = false;
        batch.forEach((p, i) => p.resolve(answers[i] !== false));
      },
      (error: unknown) => {
        if (!this.down)
          this.log.warn(
            { err: error instanceof Error ? error.message : String(error) },
            'impression replay guard: shared memory unreachable, events are deduplicated per process until it is back',
          );
        this.down = true;
        for (const p of batch) p.resolve(true);
      },
    );
    this.inFlight.add(answered);
    void answered.finally(() => this.inFlight.delete(answered));
  }

  /**
   * Every event asked about so far answered and counted: SIGTERM's final flush runs after this, or
   * the events whose shared check was still on its way would be lost (their count follows the answer).
   */
  async drain(): Promise<void> {
    while (this.pending.length || this.inFlight.size) {
      if (this.pending.length) this.ask(this.lastMs);
      await Promise.all([...this.inFlight]);
    }
    // the counts follow the answers in the microtasks queued with them
    await new Promise((resolve) => setImmediate(resolve));
  }

  persist(): Promise<void> {
    return this.persistShared?.() ?? Promise.resolve();
  }

  close(): Promise<void> {
    return this.closeShared();
  }
}
