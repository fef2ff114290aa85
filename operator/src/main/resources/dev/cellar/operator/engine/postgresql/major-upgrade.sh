#!/usr/bin/env bash
# A PostgreSQL major upgrade by dump and restore (the old and the new major's binaries live in
# different images): bash /etc/cellar/major-upgrade.sh dump|restore
#   dump     the init container "major-upgrade", in the OLD image. When the new data directory
#            (PGDATA) is not restored yet (or the old major ran again since, after a rollback) and
#            the old one (CELLAR_UPGRADE_OLD_DATA) holds data,
#            starts the old server on a private socket only, writes pg_dumpall's SQL gzipped to
#            CELLAR_UPGRADE_DUMP (whole or not at all), and stops it. Nothing else in the old data
#            directory changes: setting spec.version back starts the old major on it again.
#   restore  entrypoint.sh, in the NEW image, with the new server just initialised by the image's
#            entrypoint and listening on its socket: restores the dump, sets the superuser's
#            password back to this Database's, and marks PGDATA restored (cellar-upgrade.done).
# Only the primary dumps and restores; replicas clone the new primary (replica-bootstrap.sh).
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=pg-lib.sh
. "$here/pg-lib.sh"

new=$(cellar_pg_data_dir)
old=${CELLAR_UPGRADE_OLD_DATA:?set CELLAR_UPGRADE_OLD_DATA to the old data directory}
dump=${CELLAR_UPGRADE_DUMP:?set CELLAR_UPGRADE_DUMP to the dump file}
port=$(cellar_pg_port)
user=${POSTGRES_USER:-postgres}
export PGPASSWORD=${POSTGRES_PASSWORD:-}

dump() {
  [ "$(cellar_await_role)" = primary ] || exit 0
  if [ ! -s "$old/PG_VERSION" ]; then
    cellar_note "major upgrade: no data in $old to dump"
    exit 0
  fi
  if [ -f "$new/cellar-upgrade.done" ]; then
    # Restored, unless the old major ran again since (a rollback, then this upgrade once more):
    # its control file is then newer than the restore, and the new directory starts over.
    [ "$old/global/pg_control" -nt "$new/cellar-upgrade.done" ] || exit 0
    cellar_note "major upgrade: $old ran again after the last restore; upgrading it again"
    find "$new" -mindepth 1 -delete
  fi
  # The old server is stopped (this pod's database container has not started): every dump is
  # taken now, so an earlier one (a failed attempt, rolled back) is never restored.
  rm -f "$dump"
  local socket log
  socket=$(mktemp -d)
  log=$socket/server.log
  cellar_note "major upgrade: dumping PostgreSQL $(cat "$old/PG_VERSION") from $old into $dump"
  # As the image's entrypoint does before every start (the volume's group may have widened it).
  chmod 0700 "$old"
  if ! pg_ctl -D "$old" -w -t 300 -l "$log" \
    -o "-c listen_addresses= -c unix_socket_directories=$socket -p $port" start >/dev/null; then
    cat "$log" >&2
    cellar_die "major upgrade: the old server did not start on $old"
  fi
  local ok=1
  pg_dumpall -h "$socket" -p "$port" -U "$user" --no-password | gzip >"$dump.tmp" || ok=0
  pg_ctl -D "$old" -w -t 300 -m fast stop >/dev/null || true
  [ "$ok" = 1 ] || { rm -f "$dump.tmp"; cellar_die "major upgrade: pg_dumpall failed (see above)"; }
  mv "$dump.tmp" "$dump"
  cellar_note "major upgrade: dumped $(du -k "$dump" | cut -f1) KiB"
}

restore() {
  local socket=${CELLAR_LOCAL_HOST:-/var/run/postgresql} log errors
  [ -s "$dump" ] || cellar_die "major upgrade: no dump at $dump"
  log=$(mktemp)
  cellar_note "major upgrade: restoring $dump into $new"
  # The superuser and the database the image made already exist: those errors are expected.
  gzip -dc "$dump" | psql -X -q -v ON_ERROR_STOP=0 --no-password \
    -h "$socket" -p "$port" -U "$user" -d postgres >/dev/null 2>"$log"
  errors=$(grep -E '(ERROR|FATAL):' "$log" | grep -v 'already exists' || true)
  if [ -n "$errors" ]; then
    cellar_die "major upgrade: the dump did not restore: $(head -n 1 <<<"$errors")"
  fi
  psql -X -q -v ON_ERROR_STOP=1 --no-password -h "$socket" -p "$port" -U "$user" -d postgres \
    -v user="$user" -v password="$PGPASSWORD" <<<'ALTER ROLE :"user" PASSWORD :'"'"'password'"'"';'
  basename "$dump" >"$new/cellar-upgrade.done"
  cellar_note "major upgrade: restore done"
}

case ${1:-} in
  dump) dump ;;
  restore) restore ;;
  *) cellar_die "usage: major-upgrade.sh dump|restore" ;;
esac
