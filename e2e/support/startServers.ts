import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { E2E_WORKERS, type EditionServer, editionServers } from './servers.js';

/**
 * Global set-up of the run: one real adplane process per edition (the database setting changes the
 * navigation), each on its own fresh SQLite store with the demo workspace, for each worker slot
 * (servers.ts). The V2V one encrypts its responses, so the console's json-encrypt path is exercised in
 * a real browser too. All of them start at once and the run waits for every /healthz: Playwright's
 * webServer list starts its servers one after another, each waiting for the one before to answer.
 * The returned function stops them at the end of the run.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// all six start at once on a machine of two cores: longer than one alone may take
const START_TIMEOUT_MS = 180_000;

function envOf(s: EditionServer, dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PORT: String(s.port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADPLANE_EDITION: s.edition,
    ADPLANE_DEMO: '1',
    ADPLANE_DEMO_PASSWORD: 'demo',
    // The ads.txt check may read the local test host specs/adsTxt.spec.ts starts.
    ADPLANE_ADSTXT_ALLOW_PRIVATE: '1',
    // the specs' demand servers (a Prebid Server, bidders) listen on 127.0.0.1
    ADPLANE_DEMAND_ALLOW_PRIVATE: '1',
    ADPLANE_ENCRYPT_RESPONSES: s.encrypt ? '1' : '0',
    ADPLANE_LANDING_URL: s.landing,
    ADPLANE_INSIGHT_HUB_URL: s.insightHub,
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    // Each edition's server keeps its stats in its own DuckDB file, also where CI sets CLICKHOUSE_URL.
    CLICKHOUSE_URL: '',
    // and its delivery counters in its own process, also where CI sets REDIS_URL: the servers are
    // separate deployments (each its own fresh store, whose ids start again at every run), and on one
    // Redis they would share every count under the same keys (`adplane:b:sd3:d<day>`: a supply deal's
    // impressions), with each other's and those of every run before on that Redis
    REDIS_URL: '',
  };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

/** Resolves once `url` answers 200; rejects if the process ends first or the time runs out. */
async function healthy(child: ChildProcess, url: string, name: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exited: string | null = null;
  child.once('exit', (code, signal) => (exited = `exited (${signal ?? code}) before answering`));
  // polled as Playwright's webServer polls: soon at first, then once a second
  const delays = [100, 250, 500];
  for (;;) {
    if (exited) throw new Error(`e2e server ${name}: ${exited}`);
    if (await answers(url)) return;
    if (Date.now() > deadline) throw new Error(`e2e server ${name}: no answer at ${url} in ${START_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, delays.shift() ?? 1_000));
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

export default async function startServers(): Promise<() => Promise<void>> {
  const runDir = process.env.ADPLANE_E2E_RUN_DIR;
  if (!runDir) throw new Error('ADPLANE_E2E_RUN_DIR is not set (playwright.config.ts sets it)');
  const servers = Array.from({ length: E2E_WORKERS }, (_, slot) => slot).flatMap((slot) =>
    Object.values(editionServers(slot)).map((s) => ({ slot, ...s })),
  );
  // a server of another run still on a port would answer for ours
  for (const s of servers)
    if (await answers(`${s.url}/healthz`))
      throw new Error(`${s.url} is already used: stop what runs on port ${s.port}`);
  const children: ChildProcess[] = [];
  // a runner that ends without its teardown (an error in set-up, a signal) leaves no server behind
  const killAll = () => children.forEach((c) => c.kill('SIGKILL'));
  process.once('exit', killAll);
  const started = servers.map((s) => {
    const name = `${s.slot}-${s.edition}:${s.port}`;
    const dataDir = join(runDir, `${s.slot}-${s.edition}`);
    mkdirSync(dataDir, { recursive: true });
    // the production bundle, as `npm start` runs it (e2e/run.sh builds it first)
    const child = spawn(process.execPath, ['packages/server/dist/main.mjs'], {
      cwd: ROOT,
      env: envOf(s, dataDir),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    child.stderr!.on('data', (data: Buffer) => {
      for (const line of data.toString().split('\n')) if (line) process.stderr.write(`[server ${name}] ${line}\n`);
    });
    return healthy(child, `${s.url}/healthz`, name);
  });
  try {
    await Promise.all(started);
  } catch (error) {
    await Promise.all(children.map(stop));
    throw error;
  }
  return async () => {
    await Promise.all(children.map(stop));
    process.off('exit', killAll);
  };
}
