import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `name` (a file of this folder): from the production bundle the bundle of
 * it beside the server's (src/scripts/buildServer.ts writes them: `<name>.mjs`); from the sources
 * (tests, `npm run dev`, the benches) the TypeScript file, imported through tsx's API (a loader given
 * in a worker's execArgv is not used for the worker's own entry on Node 20).
 */
export function startWorkerThread(name: 'reportFileWorker' | 'statsThreadWorker'): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(`./${name}.mjs`, import.meta.url));
  const entry = new URL(`./${name}.ts`, import.meta.url).href;
  const tsxApi = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  return new Worker(
    `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}));`,
    { eval: true },
  );
}
