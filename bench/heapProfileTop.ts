/**
 * The top of a sampling heap profile (BENCH_HEAP of edgeHotPath.bench.ts, BENCH_HEAP_PROMOTED of
 * edge.bench.ts), by the function that allocated and by its last five callers:
 *
 *   npx tsx bench/heapProfileTop.ts <profile.json> [requests]   (bytes per request when given)
 */
import { readFileSync } from 'node:fs';
import { type HeapNode, say } from './edge/harness.js';

interface Frame extends HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: Frame[];
}

const [file, requests] = process.argv.slice(2);
if (!file) throw new Error('usage: heapProfileTop.ts <profile.json> [requests]');
const per = Number(requests ?? 1);
const byFunction = new Map<string, number>();
const byStack = new Map<string, number>();
let total = 0;
const walk = (node: Frame, stack: string[]) => {
  const f = node.callFrame;
  const here = [...stack, `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber}`];
  if (node.selfSize) {
    total += node.selfSize;
    byFunction.set(here.at(-1)!, (byFunction.get(here.at(-1)!) ?? 0) + node.selfSize);
    const key = here.slice(-5).reverse().join(' < ');
    byStack.set(key, (byStack.get(key) ?? 0) + node.selfSize);
  }
  for (const c of node.children) walk(c, here);
};
walk((JSON.parse(readFileSync(file, 'utf8')) as { head: Frame }).head, []);
const top = (m: Map<string, number>) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .forEach(([k, v]) => say(`${(v / per).toFixed(1).padStart(10)}  ${k}`));
say(`${total} bytes sampled${requests ? `, ${(total / per).toFixed(1)} per request` : ''}\n-- by function`);
top(byFunction);
say('-- by stack (allocating function first)');
top(byStack);
