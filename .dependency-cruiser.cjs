/**
 * The import rules of packages/server and packages/web (docs/architecture.md, "The layering rule"),
 * checked by `npm run lint`. The edge is laid out as floors, top to bottom; a file may import its own
 * floor and the floors below, never one above:
 *   composition  edge/*.ts (edgePlugin.ts and its parts), edge/debug/, edge/seeding/
 *   doors        edge/doors/: one file or folder per entry point
 *   decision     edge/decision/, edge/auction/, edge/postbid/
 *   demand       edge/demand/: the demand sources
 *   facts        edge/request/, edge/snapshot/, edge/targeting/, edge/counters/, edge/tracking/:
 *                the request's facts, the inventory snapshot, the counters, the tracking token
 *   protocol     edge/vast/, edge/ortb/: read and write VAST and OpenRTB, know nothing above them
 * Infrastructure beside the floors (delivery/, ivt/, store/, http/, stats/) is imported by them and
 * imports neither the edge nor the API.
 */

const EDGE = '^packages/server/src/edge/';
const COMPOSITION = `${EDGE}([^/]+\\.ts$|debug/|seeding/)`;
const DOORS = `${EDGE}doors/`;
const DECISION = `${EDGE}(decision|auction|postbid)/`;
const DEMAND = `${EDGE}demand/`;
const FACTS = `${EDGE}(request|snapshot|targeting|counters|tracking)/`;
const PROTOCOL = `${EDGE}(vast|ortb)/`;
// A test sits beside the code it tests but on no floor (nothing imports it): it may drive that code
// through the floors above, as the app does.
const TEST = '\\.test\\.tsx?$';
const upward = (name, from, above, comment) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: TEST },
  to: { path: above },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No file reaches itself through its imports, type-only ones included. stats/ is left out: its cycles are listed in docs/architecture.md.',
      severity: 'error',
      from: { path: '^packages/(server|web)/src/', pathNot: '^packages/server/src/stats/' },
      to: { circular: true },
    },
    upward(
      'doors-below-composition',
      DOORS,
      COMPOSITION,
      'A door registers with the Edge type (doors/edge.ts), never with the composition root that builds it.',
    ),
    upward(
      'decision-below-doors',
      DECISION,
      `${DOORS}|${COMPOSITION}`,
      'The decision knows no door: what a door and the decision share lives in the decision or below.',
    ),
    upward(
      'demand-below-decision',
      DEMAND,
      `${DECISION}|${DOORS}|${COMPOSITION}`,
      'A demand source knows no auction: what it asks of delivery control is demandSource.ts DemandPacing.',
    ),
    upward(
      'facts-below-demand',
      FACTS,
      `${DEMAND}|${DECISION}|${DOORS}|${COMPOSITION}`,
      "The request's facts, the snapshot, the counters and the tracking token know no demand source.",
    ),
    {
      name: 'protocol-at-bottom',
      comment: 'vast/ and ortb/ import nothing of the edge above them.',
      severity: 'error',
      from: { path: PROTOCOL },
      to: { path: EDGE, pathNot: PROTOCOL },
    },
    {
      name: 'infrastructure-below-edge-and-api',
      comment: 'delivery/, ivt/, store/, http/ and stats/ serve the edge and the API and import neither.',
      severity: 'error',
      from: { path: '^packages/server/src/(delivery|ivt|store|http|stats)/' },
      to: { path: '^packages/server/src/(edge|api)/' },
    },
  ],
  options: {
    // type-only imports are dependencies too: a cycle through a type is still a cycle
    tsPreCompilationDeps: true,
    // (an absolute path: dependency-cruiser resolves a relative `extends` against the working directory)
    tsConfig: { fileName: `${__dirname}/packages/server/tsconfig.json` },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
    doNotFollow: { path: 'node_modules' },
  },
};
