import type { Edition } from '@adplane/shared';

export interface EditionServer {
  edition: Edition;
  port: number;
  url: string;
  encrypt: boolean;
  landing: string;
  insightHub: string;
}

const base = Number(process.env.E2E_PORT_BASE ?? 18180);

/**
 * How many spec files run at once (Playwright's workers). Each worker slot has its own three servers
 * on their own fresh stores, so files running side by side never see each other's rows, sessions or
 * counters: a file sees the demo workspace plus what the files before it in its own slot did, as when
 * every file ran one after the other. `E2E_WORKERS=1` runs them one at a time.
 */
export const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS ?? 2) || 1);

function server(
  slot: number,
  edition: Edition,
  offset: number,
  encrypt: boolean,
  landing = '',
  insightHub = '',
): EditionServer {
  const port = base + slot * 10 + offset;
  return { edition, port, url: `http://127.0.0.1:${port}`, encrypt, landing, insightHub };
}

/** The three edition servers of worker slot `slot` (0 .. E2E_WORKERS - 1), ten ports apart per slot. */
export function editionServers(slot: number): Record<Edition, EditionServer> {
  return {
    default: server(slot, 'default', 0, false),
    V2V: server(slot, 'V2V', 1, true, 'https://example.com/', 'https://insights.example.com/'),
    CTVMediaV2V: server(slot, 'CTVMediaV2V', 2, false),
  };
}

/**
 * The servers of the worker this module runs in: Playwright gives every worker process its slot in
 * `TEST_PARALLEL_INDEX` (kept when a worker is replaced after a failure); the runner itself has none.
 */
export const EDITION_SERVERS: Record<Edition, EditionServer> = editionServers(
  Number(process.env.TEST_PARALLEL_INDEX ?? 0),
);

export const DEMO_PASSWORD = 'demo';
