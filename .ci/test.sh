#!/usr/bin/env bash
# `npm test`: lint, type-check, the unit and API tests (vitest), then the end-to-end tests
# (Playwright). The lint's two halves (ESLint; the format, layer and unused-code checks), the
# type-check and the build of the console and the server bundle the end-to-end step serves run side
# by side: ESLint is one core's work for most of this step, and the others share the second core.
# Each one's output is shown when it ends, whole; the first to fail fails the run, after all of them
# ended. The end-to-end step then uses that build instead of building again (E2E_BUILT=1).
set -euo pipefail
cd "$(dirname "$0")/.."

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
start() {
  local name=$1
  shift
  (
    rc=0
    began=$SECONDS
    "$@" >"$logs/$name.log" 2>&1 || rc=$?
    echo "$rc" >"$logs/$name.rc"
    echo $((SECONDS - began)) >"$logs/$name.s"
  ) &
}
start lint:code npm run lint:code
start lint:structure npm run lint:structure
start typecheck npm run typecheck
start build npm run build --silent
wait
failed=0
for name in lint:code lint:structure typecheck build; do
  rc=$(cat "$logs/$name.rc")
  echo "== $name (exit $rc, $(cat "$logs/$name.s") s)"
  cat "$logs/$name.log"
  [ "$rc" = 0 ] || failed=1
done
[ "$failed" = 0 ] || exit 1

began=$SECONDS
npm run test:unit
echo "== unit and API tests: $((SECONDS - began)) s"
began=$SECONDS
E2E_BUILT=1 npm run test:e2e
echo "== end-to-end tests: $((SECONDS - began)) s"
