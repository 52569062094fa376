#!/usr/bin/env bash
# better-sqlite3's install script takes its prebuilt binary from GitHub (prebuild-install), or, when
# GitHub is out of reach, compiles SQLite itself: a minute and more of one core in every npm ci.
# After npm ci this keeps the binary it installed where prebuild-install looks for a download it
# made before (npm's cache, `_prebuilds/<digest>-<file>`, the name prebuild-install gives it), so the
# next npm ci on this machine unpacks it instead of compiling again. The file names the package's
# version, Node's ABI, the platform and the architecture: another of any of them is another file.
set -euo pipefail
cd "$(dirname "$0")/.."
pkg=node_modules/better-sqlite3
[ -f "$pkg/build/Release/better_sqlite3.node" ] || exit 0
cached=$(node -e '
const { createHash } = require("node:crypto");
const { join } = require("node:path");
const { homedir } = require("node:os");
const { version } = require(process.argv[1]);
const file = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
const url = `https://github.com/WiseLibs/better-sqlite3/releases/download/v${version}/${file}`;
const cache = process.env.npm_config_cache || join(homedir(), ".npm");
console.log(join(cache, "_prebuilds", `${createHash("sha512").update(url).digest("hex").slice(0, 6)}-${file}`));
' "$PWD/$pkg/package.json")
[ -f "$cached" ] && exit 0
mkdir -p "$(dirname "$cached")"
tar -czf "$cached.tmp" -C "$pkg" build/Release/better_sqlite3.node
mv "$cached.tmp" "$cached"
echo "kept better-sqlite3's binary for the next npm ci: $cached"
