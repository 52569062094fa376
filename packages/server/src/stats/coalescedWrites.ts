/**
 * Batches written while a write runs wait for it and then go together, in one write (one DuckDB
 * transaction, one ClickHouse insert). The edge's counters hand a flush over in batches of a
 * thousand rows, yielding to requests between them (hourlyCounters.ts); each write costs the engine
 * a fixed amount besides its rows (statements, a transaction, a part), so they are joined here.
 * Each caller's promise settles with the write that carried its batch: a refused write refuses
 * every batch in it, and none of them is partly written.
 */
export function coalescedWrites<T>(write: (parts: T[]) => Promise<void>): (part: T) => Promise<void> {
  let waiting: { part: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let running = false;
  const drain = async (): Promise<void> => {
    running = true;
    while (waiting.length) {
      const taken = waiting;
      waiting = [];
      try {
        await write(taken.map((w) => w.part));
        for (const w of taken) w.resolve();
      } catch (error) {
        for (const w of taken) w.reject(error);
      }
    }
    running = false;
  };
  return (part) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ part, resolve, reject });
      if (!running) void drain();
    });
}
