#!/usr/bin/env bash
# A throwaway PostgreSQL primary and two streaming replicas of it, for the test run that reads from
# replicas (DATABASE_READ_URL). Debian's PostgreSQL binaries, clusters in a temp dir run as the
# postgres OS user, trust auth on 127.0.0.1; the system cluster on 5432 is left alone.
#
#   .ci/replica.sh start [primary_port] [replica_port] [replica2_port]
#                                          prints the directory once all three answer
#   .ci/replica.sh stop <dir>              stops them all and removes the directory
#   .ci/replica.sh node <dir> <replica|replica2> stop|start
#                                          stops one replica at once (-m immediate), or starts it
#
# The primary commits with synchronous_commit = remote_apply on both replicas: a commit returns
# once both have applied it, so a test that writes and then reads through either sees its write
# (and commits wait while one is stopped). Lag itself is shown by the replica test, which pauses
# replay.
set -euo pipefail

bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)"
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

stop() {
  local dir="$1"
  for node in replica2 replica primary; do
    if [ -f "$dir/$node/postmaster.pid" ]; then
      as_postgres "$bin/pg_ctl" -D "$dir/$node" -m immediate -w stop >/dev/null 2>&1 || true
    fi
  done
  rm -rf "$dir"
}

if [ "${1:-start}" = stop ]; then
  stop "${2:?usage: replica.sh stop <dir>}"
  exit 0
fi
if [ "${1:-start}" = node ]; then
  dir="${2:?usage: replica.sh node <dir> <replica|replica2> stop|start}"
  node="${3:?}"
  primary_port="$(sed -n 's/^port = //p' "$dir/primary/postgresql.conf" | tail -n1)"
  port="$(sed -n 's/^port = //p' "$dir/$node/postgresql.auto.conf" | tail -n1)"
  sql_at() { "$bin/psql" -X -q -h 127.0.0.1 -U postgres -p "$1" -d postgres -c "$2" >/dev/null; }
  case "$node:${4:-}" in
    replica:stop | replica2:stop)
      # A checkpoint on the primary, then a restartpoint on the replica: restarted after the
      # crash, it replays the WAL since now, not every test database written since it was made.
      sql_at "$primary_port" checkpoint
      sql_at "$port" checkpoint
      as_postgres "$bin/pg_ctl" -D "$dir/$node" -m immediate -w stop >/dev/null ;;
    replica:start | replica2:start)
      as_postgres "$bin/pg_ctl" -D "$dir/$node" -l "$dir/$node.log" -w start >/dev/null ;;
    *) echo "usage: replica.sh node <dir> <replica|replica2> stop|start" >&2; exit 2 ;;
  esac
  exit 0
fi

primary_port="${2:-5434}"
replica_port="${3:-5435}"
replica2_port="${4:-5436}"
for port in "$primary_port" "$replica_port" "$replica2_port"; do
  if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" 2>/dev/null; then
    echo "port $port is taken" >&2
    exit 1
  fi
done

dir="$(mktemp -d /tmp/till-replica.XXXXXX)"
chmod 755 "$dir"
[ "$(id -u)" = 0 ] && chown postgres "$dir"
trap 'status=$?; if [ $status -ne 0 ]; then for f in "$dir"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }; done; stop "$dir"; fi' EXIT

as_postgres "$bin/initdb" -D "$dir/primary" -U postgres --auth=trust --encoding=UTF8 --locale=C \
  --no-sync >"$dir/initdb.log"
# A test cluster: durability is not the point (fsync off), many short-lived test databases are.
cat >>"$dir/primary/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $primary_port
unix_socket_directories = '$dir'
max_connections = 300
wal_level = replica
max_wal_senders = 4
hot_standby = on
hot_standby_feedback = on
synchronous_standby_names = 'ANY 2 (*)'
synchronous_commit = remote_apply
fsync = off
full_page_writes = off
CONF
as_postgres "$bin/pg_ctl" -D "$dir/primary" -l "$dir/primary.log" -w start >/dev/null

# -R writes standby.signal and primary_conninfo; -X stream copies the WAL written meanwhile.
replica() {
  local node="$1" port="$2"
  as_postgres "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$dir/$node" \
    -R -X stream --checkpoint=fast --no-sync
  cat >>"$dir/$node/postgresql.auto.conf" <<CONF
port = $port
cluster_name = 'till_$node'
CONF
  as_postgres "$bin/pg_ctl" -D "$dir/$node" -l "$dir/$node.log" -w start >/dev/null
}
replica replica "$replica_port"
replica replica2 "$replica2_port"

psql_at() { "$bin/psql" -X -q -At -h 127.0.0.1 -U postgres -p "$1" -d postgres -c "$2"; }
for _ in $(seq 1 100); do
  if [ "$(psql_at "$replica_port" 'select pg_is_in_recovery()' 2>/dev/null)" = t ] &&
    [ "$(psql_at "$replica2_port" 'select pg_is_in_recovery()' 2>/dev/null)" = t ] &&
    [ "$(psql_at "$primary_port" "select count(*) from pg_stat_replication where state = 'streaming' and sync_state in ('sync', 'quorum')" 2>/dev/null)" = 2 ]; then
    echo "$dir"
    exit 0
  fi
  sleep 0.2
done
echo "the replicas did not start streaming" >&2
exit 1
