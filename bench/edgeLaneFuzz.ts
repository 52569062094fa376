/**
 * The edge lane's reading against llhttp's (node:http's parser) on generated and mutated requests,
 * a million by default (packages/server/src/http/edgeLaneFuzz.ts says what is generated and what
 * is held equal):
 *
 *   npx tsx bench/edgeLaneFuzz.ts        (FUZZ_INPUTS, default 1000000; FUZZ_SEED, default 1)
 *
 * Each input is cut in two at every boundary when it is up to 128 bytes, at 32 random boundaries
 * when longer, one byte a read up to 1 KB, and three random cuts into up to seven reads. The result
 * (inputs, reads checked, time, disagreements with their seeds and bytes) goes to
 * bench/results/edgeLaneFuzz.json; the process exits 1 on a disagreement.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { check, type Disagreement, generate, inputSeed, newTally } from '../packages/server/src/http/edgeLaneFuzz.js';

const INPUTS = Number(process.env.FUZZ_INPUTS ?? 1_000_000);
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const POLICY = { every: 128, sample: 32 };
const KEPT = 20;

const tally = newTally();
const disagreements: Disagreement[] = [];
let disagreementCount = 0;
const started = performance.now();
for (let i = 0; i < INPUTS; i++) {
  const found = check(generate(inputSeed(SEED, i)), POLICY, tally);
  if (found) {
    disagreementCount++;
    if (disagreements.length < KEPT) disagreements.push(found);
  }
  if ((i + 1) % 50_000 === 0)
    process.stderr.write(
      `${i + 1} inputs, ${disagreementCount} disagreements, ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );
}
const seconds = (performance.now() - started) / 1000;
const result = {
  at: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  loadavg: loadavg().map((l) => Math.round(l * 100) / 100),
  seed: SEED,
  policy: POLICY,
  seconds: Math.round(seconds),
  ...tally,
  disagreements: disagreementCount,
  firstDisagreements: disagreements,
};
writeFileSync(new URL('./results/edgeLaneFuzz.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(
  `${INPUTS} inputs, ${tally.cuts} cuts read, ${disagreementCount} disagreements, ${seconds.toFixed(0)} s\n`,
);
if (disagreementCount) process.exitCode = 1;
