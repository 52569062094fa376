#!/usr/bin/env bash
# Start Debian's clickhouse-server bound to 127.0.0.1 with its data, logs and config under one folder
# (default /tmp/adplane-clickhouse), in the background; waits until it answers on HTTP. Idempotent:
# a server already answering on the port is left alone. Prints the CLICKHOUSE_URL to use.
set -euo pipefail
DIR=${CLICKHOUSE_DIR:-/tmp/adplane-clickhouse}
HTTP_PORT=${CLICKHOUSE_HTTP_PORT:-8123}
TCP_PORT=${CLICKHOUSE_TCP_PORT:-19000}
URL="http://127.0.0.1:${HTTP_PORT}"

if curl -fsS "${URL}/ping" >/dev/null 2>&1; then echo "$URL"; exit 0; fi
if ! command -v clickhouse-server >/dev/null 2>&1 && [ ! -x /usr/sbin/clickhouse-server ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clickhouse-server >/dev/null
fi
mkdir -p "$DIR/data" "$DIR/tmp" "$DIR/user_files" "$DIR/format_schemas" "$DIR/log"
# The packaged config, with paths moved under $DIR, only 127.0.0.1, and no inter-server port.
sed -e "s#/var/lib/clickhouse/#$DIR/data/#g" \
    -e "s#<tmp_path>.*</tmp_path>#<tmp_path>$DIR/tmp/</tmp_path>#" \
    -e "s#<user_files_path>.*</user_files_path>#<user_files_path>$DIR/user_files/</user_files_path>#" \
    -e "s#<format_schema_path>.*</format_schema_path>#<format_schema_path>$DIR/format_schemas/</format_schema_path>#" \
    -e "s#/var/log/clickhouse-server/#$DIR/log/#g" \
    -e "s#<http_port>.*</http_port>#<http_port>${HTTP_PORT}</http_port>#" \
    -e "s#<tcp_port>.*</tcp_port>#<tcp_port>${TCP_PORT}</tcp_port>#" \
    -e "/<interserver_http_port>/d" \
    -e "/<listen_host>::1<\/listen_host>/d" \
    /etc/clickhouse-server/config.xml > "$DIR/config.xml"
cp /etc/clickhouse-server/users.xml "$DIR/users.xml"
sed -i "s#<users_config>.*</users_config>#<users_config>$DIR/users.xml</users_config>#" "$DIR/config.xml"
SERVER=$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)
nohup "$SERVER" --config-file="$DIR/config.xml" >"$DIR/log/stdout.log" 2>&1 &
echo $! > "$DIR/pid"
for _ in $(seq 1 60); do curl -fsS "${URL}/ping" >/dev/null 2>&1 && break; sleep 1; done
curl -fsS "${URL}/ping" >/dev/null || { echo "clickhouse-server did not start; see $DIR/log" >&2; tail -20 "$DIR/log/"*.log >&2; exit 1; }
echo "$URL"
