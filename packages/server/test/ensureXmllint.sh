#!/usr/bin/env bash
# The VAST tests validate every document with xmllint (libxml2-utils). Installed here as e2e/run.sh
# installs Chromium: with apt when root, otherwise a message saying how.
set -euo pipefail
command -v xmllint >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-utils >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-utils >/dev/null; }
  exit 0
fi
echo "xmllint is missing: install libxml2-utils (sudo apt-get install libxml2-utils) to run the VAST tests" >&2
exit 1
