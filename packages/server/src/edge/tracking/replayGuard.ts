/**
 * Decision ids whose impression was already counted, kept for the token lifetime in hourly
 * generations (a generation older than the lifetime is dropped whole), so a replayed impression
 * URL counts once without an ever-growing set.
 */
export class ReplayGuard {
  private generations = new Map<number, Set<string>>();

  constructor(private readonly lifetimeHours = 25) {}

  /** True the first time an id is seen (within the lifetime), false on a replay. */
  firstTime(id: string, nowMs: number): boolean {
    for (const seen of this.generations.values()) if (seen.has(id)) return false;
    const hour = Math.floor(nowMs / 3_600_000);
    let current = this.generations.get(hour);
    if (!current) {
      this.generations.set(hour, (current = new Set()));
      for (const h of this.generations.keys()) if (h <= hour - this.lifetimeHours) this.generations.delete(h);
    }
    current.add(id);
    return true;
  }
}
