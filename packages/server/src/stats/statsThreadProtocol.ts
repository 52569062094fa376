/**
 * The messages between a process's serving thread and its stats thread (statsThread.ts,
 * statsThreadWorker.ts). The thread holds every stats store the process opened (one in a server;
 * tests open many); each call names its store and carries an id its reply answers; calls start in
 * the order sent.
 */

/** What the thread opens: the DuckDB file (openDuckDbStore's arguments), or a ClickHouse database. */
export type ThreadConfig =
  | { engine: 'duckdb'; dataDir: string; file: string; threads: number | undefined }
  | { engine: 'clickhouse'; url: string; database: string };

export type Call =
  /** Opens a store (`store` in the message names it from then on); answered once it is open. */
  | { op: 'open'; config: ThreadConfig }
  | { op: 'select'; sql: string }
  | { op: 'exec'; sql: string }
  | { op: 'migrations' }
  | { op: 'exportRows'; sql: string; path: string }
  | { op: 'writeCsv'; csv: string }
  /**
   * A counters flush: its arrays (moved, not copied, to the thread) and the text its indexes name.
   * The thread keeps one text list (`list`) and the serving thread sends only the entries it has not
   * sent yet (`texts`, from index `textFrom`); a new list starts again from 0.
   */
  | {
      op: 'writeTable';
      rows: number;
      keys: Float64Array;
      sums: Float64Array;
      list: number;
      textFrom: number;
      texts: string[];
    }
  /** Starts a streamed SELECT (`stream` names it in the calls that follow). */
  | { op: 'chunksOpen'; stream: number; sql: string }
  /** The stream's next chunk of rows, or null when it ended. */
  | { op: 'chunksNext'; stream: number }
  | { op: 'chunksEnd'; stream: number }
  | { op: 'close' };

/** A call to store `store` of the thread. */
export type ToThread = { id: number; store: number; call: Call };

export type FromThread = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };
