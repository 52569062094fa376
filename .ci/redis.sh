#!/usr/bin/env bash
# Start Debian's redis-server bound to 127.0.0.1, daemonized, without persistence (no RDB, no AOF),
# with its pid file, log and working folder under one folder (default /tmp/adplane-redis); waits
# until it answers PING. Idempotent: a server already answering on the port is left alone. Prints
# the REDIS_URL to use.
set -euo pipefail
DIR=${REDIS_DIR:-/tmp/adplane-redis}
PORT=${REDIS_PORT:-16379}
URL="redis://127.0.0.1:${PORT}"

ping() { redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null | grep -q PONG; }

if ! command -v redis-server >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
if ping; then echo "$URL"; exit 0; fi
mkdir -p "$DIR"
redis-server --port "$PORT" --bind 127.0.0.1 --protected-mode yes --save '' --appendonly no \
  --daemonize yes --dir "$DIR" --pidfile "$DIR/redis.pid" --logfile "$DIR/redis.log" >/dev/null
for _ in $(seq 1 50); do ping && break; sleep 0.1; done
ping || { echo "redis-server did not start; see $DIR/redis.log" >&2; tail -20 "$DIR/redis.log" >&2; exit 1; }
echo "$URL"
