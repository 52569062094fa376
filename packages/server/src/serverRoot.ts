import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The server package's folder (packages/server), found from this module upwards, so that files the
 * server reads (the IVT lists, the demo video, the console's build, the route docs) are found the
 * same way from the sources (src/, through tsx) and from the production bundle (dist/main.mjs).
 */
function findServerRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@adplane/server'
    )
      return dir;
    if (dirname(dir) === dir) throw new Error(`adplane: no @adplane/server package.json above ${from}`);
  }
}

export const SERVER_ROOT = findServerRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the server package (`serverPath('assets', 'demo-ad.mp4')`). */
export const serverPath = (...parts: string[]): string => join(SERVER_ROOT, ...parts);

/**
 * Whether the module at `moduleUrl` (its `import.meta.url`) is the one node was started with (the
 * sources through tsx, the bundle, or a bin link to either), not one a test or another module imported.
 */
export function startedAsCommand(moduleUrl: string): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === fileURLToPath(moduleUrl);
  } catch {
    return false;
  }
}
