import { readConfigVersion } from '../../store/configVersion.js';
import { compileSnapshot } from './compileSnapshot.js';
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
  private timer: NodeJS.Timeout | null = null;
  private building: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly db: StoreDb,
    private readonly log: SnapshotLog,
    private readonly pollMs = 250,
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
          const next = await compileSnapshot(this.db);
          this.current = next;
          this.log.info({ version: next.version, ms: next.buildMs, channels: next.channels.size, campaigns: next.campaigns.size, skipped: next.skipped }, 'edge snapshot built');
        } while (this.again);
      } catch (error) {
        this.log.error({ err: error }, 'edge snapshot build failed: keeping the previous one');
      } finally {
        this.building = null;
      }
    })();
    return this.building;
  }

  poke(): void {
    void this.poll();
  }

  private async poll(): Promise<void> {
    if (this.building) return;
    try {
      const version = await readConfigVersion(this.db);
      if (!this.current || version !== this.current.version) await this.rebuild();
    } catch (error) {
      this.log.error({ err: error }, 'edge config version poll failed');
    }
  }
}
