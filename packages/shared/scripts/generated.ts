/**
 * Helpers of the reference-data generators. The generators read the standards vendored under
 * packages/shared/vendor/ (or an npm devDependency's data) once, on a developer's machine, and
 * write TypeScript modules that are committed: the package never reads those files at run time.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const REFERENCE_DIR = join(here, '..', 'src', 'reference');

/** The vendored sources: `--vendor <dir>` (to try a newer copy before replacing ours), else packages/shared/vendor. */
export function vendorDir(argv: readonly string[] = process.argv.slice(2)): string {
  const i = argv.indexOf('--vendor');
  if (i >= 0 && argv[i + 1]) return argv[i + 1];
  return join(here, '..', 'vendor');
}

/**
 * Writes a generated module under src/reference with a header naming its source and generator.
 * With `--check` it writes nothing and fails when the committed module differs from what it would write.
 */
export function writeGenerated(file: string, header: readonly string[], body: string): void {
  const path = join(REFERENCE_DIR, file);
  const lines = [
    ...header.map((l) => `// ${l}`.trimEnd()),
    '// Do not edit by hand: change the generator and run it again.',
    '',
    body.trimEnd(),
    '',
  ];
  const text = lines.join('\n');
  const shown = relative(process.cwd(), path);
  if (process.argv.includes('--check')) {
    const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (current !== text) {
      process.stderr.write(`${shown} is out of date: run the generator without --check\n`);
      process.exitCode = 1;
    } else process.stdout.write(`${shown} is up to date\n`);
    return;
  }
  writeFileSync(path, text);
  process.stdout.write(`wrote ${shown}\n`);
}

const LINE = 180;
const fitsOnLine = (value: unknown): boolean =>
  value === null || typeof value !== 'object' || JSON.stringify(value).length <= LINE;

/** JSON text as a TypeScript literal: short objects and lists on one line, so the data reads as a table. */
export function literal(value: unknown, indent = ''): string {
  if (fitsOnLine(value)) return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + literal(v, inner)).join(',\n')},\n${indent}]`;
  const entries = Object.entries(value as Record<string, unknown>).map(
    ([k, v]) => `${inner}${JSON.stringify(k)}: ${literal(v, inner)}`,
  );
  return `{\n${entries.join(',\n')},\n${indent}}`;
}
