import { type Clock, systemClock } from '../../clock.js';
import { readConfigVersion } from '../../store/configVersion.js';
import { SnapshotCompiler } from './compileSnapshot.js';
import { DepartedEntities } from './departed.js';
import { type StoreDb } from './loadRows.js';
import { type Snapshot } from './types.js';

export interface SnapshotLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Holds the current snapshot and replaces it whole. It polls the config version (one indexed
 * one-row read) every `pollMs`, and rebuilds when it moved; `poke()` lets an in-process writer skip
 * the wait. Requests read `current` (a plain field): the swap is one assignment, so a request sees
 * either the old snapshot or the new one, never a mix, and serving never pauses for a rebuild.
 */
export class SnapshotHolder {
  current: Snapshot | null = null;
  /** What left the snapshot between builds, given to each new one (departed.ts). */
  private readonly departed = new DepartedEntities();
  private timer: NodeJS.Timeout | null = null;
  private building: Promise<void> | null = null;
  private again = false;
  /** A check asked for while a build ran: made when it ends (the change may have come after the build read its rows). */
  private checkAfter = false;
  constructor(
    private readonly db: StoreDb,
    private readonly log: SnapshotLog,
    private readonly pollMs = 250,
    private readonly clock: Clock = systemClock,
    /** One build (a test times a write against it); the compiler keeps parsed rows between builds. */
    private readonly compile: (db: StoreDb) => Promise<Snapshot> = defaultCompile(clock),
  ) {}

  async start(): Promise<void> {
    await this.rebuild();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Rebuild now (coalesced: at most one build runs, and one more is queued behind it). */
  rebuild(): Promise<void> {
    if (this.building) {
      this.again = true;
      return this.building;
    }
    this.building = (async () => {
      try {
        do {
          this.again = false;
          const next = await this.compile(this.db);
          this.departed.swap(this.current, next, this.clock.now());
          this.current = next;
          this.log.info(
            {
              version: next.version,
              ms: next.buildMs,
              channels: next.channels.size,
              campaigns: next.campaigns.size,
              skipped: next.skipped,
            },
            'edge snapshot built',
          );
        } while (this.again);
      } catch (error) {
        this.log.error({ err: error }, 'edge snapshot build failed: keeping the previous one');
      } finally {
        this.building = null;
        if (this.checkAfter) {
          this.checkAfter = false;
          void this.poll();
        }
      }
    })();
    return this.building;
  }

  /** Check the version now (a change feed's notice): while a build runs, as soon as it ends. */
  poke(): void {
    void this.poll();
  }

  private async poll(): Promise<void> {
    if (this.building) {
      this.checkAfter = true;
      return;
    }
    try {
      const version = await readConfigVersion(this.db);
      if (!this.current || version !== this.current.version) await this.rebuild();
    } catch (error) {
      this.log.error({ err: error }, 'edge config version poll failed');
    }
  }
}

function defaultCompile(clock: Clock): (db: StoreDb) => Promise<Snapshot> {
  const compiler = new SnapshotCompiler(clock);
  return (db) => compiler.compile(db);
}
