/**
 * Builds the server for production: one ES module, `packages/server/dist/main.mjs` (its source map
 * beside it), from `src/main.ts` and the workspace package it imports (@adplane/shared). The packages
 * of node_modules stay outside the bundle and load from node_modules at run time. `npm run serve`
 * runs the bundle with plain node: no TypeScript loader in the serving process (less memory, nothing
 * transformed at start, no helper calls the loader adds). `npm run dev` and the tests run the sources
 * through tsx, except the tests that start the program in child processes: they run a bundle built
 * once per test run (test/programBundle.ts).
 *
 *   npm run build -w @adplane/server        (tsx src/scripts/buildServer.ts)
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { SERVER_ROOT, serverPath, startedAsCommand } from '../serverRoot.js';

/** Every package the workspace depends on, kept out of the bundle (node_modules has them). */
function externals(): string[] {
  // the repository's root manifest, the server's and the shared package's (packages/shared)
  const repoRoot = join(SERVER_ROOT, '../..');
  const manifests = [
    join(repoRoot, 'package.json'),
    serverPath('package.json'),
    join(repoRoot, 'packages/shared/package.json'),
  ];
  const names = new Set<string>();
  for (const file of manifests) {
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
      for (const name of Object.keys(manifest[field] ?? {}))
        if (!name.startsWith('@adplane/')) names.add(name).add(`${name}/*`);
    }
  }
  return [...names];
}

/**
 * Bundles `entry` (default src/main.ts) into `outfile` (default dist/main.mjs), and the report-file
 * thread (src/stats/reportFileWorker.ts) and the stats thread (src/stats/statsThreadWorker.ts) into
 * reportFileWorker.mjs and statsThreadWorker.mjs beside it, where the bundle starts them from. The
 * bundle must sit inside packages/server: it finds the files it reads from there (serverRoot.ts).
 */
export async function bundleServer(
  entry = serverPath('src/main.ts'),
  outfile = serverPath('dist/main.mjs'),
): Promise<string> {
  await bundle(serverPath('src/stats/reportFileWorker.ts'), join(dirname(outfile), 'reportFileWorker.mjs'));
  await bundle(serverPath('src/stats/statsThreadWorker.ts'), join(dirname(outfile), 'statsThreadWorker.mjs'));
  await bundle(entry, outfile);
  return outfile;
}

async function bundle(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: externals(),
    sourcemap: 'linked',
    logLevel: 'warning',
    legalComments: 'none',
  });
}

if (startedAsCommand(import.meta.url)) {
  const started = performance.now();
  const outfile = await bundleServer();
  process.stdout.write(`server built: ${outfile} (${Math.round(performance.now() - started)} ms)\n`);
}
