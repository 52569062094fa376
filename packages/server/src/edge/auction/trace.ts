/**
 * The decision trace: every demand source the request considered and its fate, with timings. The
 * types live in packages/shared (edge/decisionTrace.ts) because the console's "Test this tag" reads
 * the same shape the edge writes.
 */
export type { DecisionTrace, Fate, SourceFate } from '@adplane/shared';
