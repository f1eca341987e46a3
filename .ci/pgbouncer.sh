#!/usr/bin/env bash
# Starts Debian's PgBouncer in transaction mode on 127.0.0.1:6432 in front of the PostgreSQL server
# at 127.0.0.1:5432 (trust auth, any database), for the test run that goes through a pooler.
# Prints its directory on success; stop it with: kill "$(cat "$dir/pgbouncer.pid")".
set -euo pipefail
port="${1:-6432}"
if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq pgbouncer >/dev/null
fi
dir="$(mktemp -d /tmp/till-pgbouncer.XXXXXX)"
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=5432

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/users.txt
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 40
server_reset_query =
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
INI
echo '"postgres" ""' >"$dir/users.txt"
# PgBouncer will not run as root: it switches to the postgres user, which must read its files.
chown -R postgres "$dir" 2>/dev/null || true
if [ "$(id -u)" = 0 ]; then
  /usr/sbin/pgbouncer -d -u postgres "$dir/pgbouncer.ini"
else
  /usr/sbin/pgbouncer -d "$dir/pgbouncer.ini"
fi
for _ in $(seq 1 30); do
  if pg_isready -q -h 127.0.0.1 -p "$port"; then
    echo "$dir"
    exit 0
  fi
  sleep 0.2
done
echo "PgBouncer did not start; its log:" >&2
cat "$dir/pgbouncer.log" >&2
exit 1
