#!/usr/bin/env bash
# End-to-end step of `npm test`: makes sure Debian's Chromium is there, builds the
# console, runs Playwright.
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "e2e: installing Debian's chromium (once)..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq chromium >/dev/null 2>&1 \
      || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
  else
    echo "e2e: Chromium is missing at $CHROMIUM." >&2
    echo "e2e: install it with 'sudo apt-get install chromium' (Debian/Ubuntu) or set CHROMIUM_PATH, then run npm test again." >&2
    exit 1
  fi
fi

# the console and the server bundle the specs serve (`npm test` builds them beside lint and sets E2E_BUILT=1)
[ "${E2E_BUILT:-}" = 1 ] || npm run build --silent
exec npx playwright test -c e2e/playwright.config.ts "$@"
