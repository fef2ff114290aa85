#!/usr/bin/env bash
# The standby's part of replication, before its server starts (run it as the server's OS user):
#   - an empty (or missing) data directory, or one without PG_VERSION (what is left of a lost
#     one), is cloned from the primary with pg_basebackup as the
#     replication account, into a temporary sibling that is renamed into place only when complete;
#     the script waits for the primary (CELLAR_WAIT_SECONDS) and says what to check if it never
#     answers or refuses the account.
#   - a standby's data directory (standby.signal) is kept; its primary_conninfo is rewritten from
#     the environment, so a changed password or primary host takes effect on the next start.
#   - a data directory without standby.signal is a former primary's (the operator failed over to
#     another pod): it is rewound onto the new primary's timeline with pg_rewind, as the superuser
#     POSTGRES_USER over the network, and becomes a standby; when pg_rewind cannot (it needs
#     wal_log_hints, which Cellar sets, and the old WAL), the directory is emptied and cloned
#     afresh. It never starts writable: the server runs only once it is a standby.
# Then start the server on the data directory; it streams from the primary as a hot standby.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=pg-lib.sh
. "$here/pg-lib.sh"

[ "$(cellar_role)" != primary ] || cellar_die "replica-bootstrap.sh runs on standbys; this server's role is primary"
cellar_require_replication_account
cellar_require CELLAR_PRIMARY_HOST
# Every connection of this script goes to the primary: over TLS, verified, when TLS is on.
cellar_pg_export_primary_ssl
data=$(cellar_pg_data_dir)
primary="$CELLAR_PRIMARY_HOST:$(cellar_primary_port)"
wait_seconds=${CELLAR_WAIT_SECONDS:-600}

# Points the standby at the primary: the last primary_conninfo in postgresql.auto.conf wins, but
# keep one line only.
write_conninfo() {
  local auto="$data/postgresql.auto.conf" value
  value=$(cellar_pg_primary_conninfo)
  # A string in a configuration file: backslashes and quotes are escaped again.
  value=${value//\\/\\\\}
  value=${value//\'/\'\'}
  touch "$auto"
  # A switchover's demotion (default_transaction_read_only) ends with the primary role.
  grep -Ev '^(primary_conninfo|default_transaction_read_only) *=' "$auto" >"$auto.cellar" || true
  printf "primary_conninfo = '%s'\n" "$value" >>"$auto.cellar"
  chmod 600 "$auto.cellar"
  mv -f "$auto.cellar" "$auto"
}

# A former primary: pg_rewind against the new primary, reached as the superuser. Succeeds when the
# data directory is now a copy of the primary's that can stream from it.
rewind() {
  cellar_note "$data holds a former primary's data: rewinding it onto $primary"
  cellar_require_commands pg_rewind pg_isready psql
  cellar_wait_until "$wait_seconds" "the primary $primary" \
    "Check that the primary pod runs and is ready, and its Service DNS name resolves." \
    pg_isready -q -h "$CELLAR_PRIMARY_HOST" -p "$(cellar_primary_port)" -t 5
  local conninfo output
  conninfo="host=$(cellar_conninfo_value "$CELLAR_PRIMARY_HOST") port=$(cellar_primary_port) user=$(cellar_conninfo_value "${POSTGRES_USER:-postgres}") dbname=postgres connect_timeout=10"
  rm -f "$data/postmaster.pid" 2>/dev/null || true
  # A primary promoted moments ago names its new timeline in its control file only after a
  # checkpoint, and pg_rewind reads the timeline there (role.sh promote checkpoints too).
  PGPASSWORD=${POSTGRES_PASSWORD:-} psql -X -q --no-password -d "$conninfo" -c CHECKPOINT >/dev/null 2>&1 \
    || cellar_warn "CHECKPOINT on $primary failed; pg_rewind may find the timelines undistinguished"
  if output=$(PGPASSWORD=${POSTGRES_PASSWORD:-} timeout "${CELLAR_REWIND_SECONDS:-600}" \
    pg_rewind --target-pgdata="$data" --source-server="$conninfo" --progress 2>&1); then
    printf '%s\n' "$output" | tail -n 5 >&2
    return 0
  fi
  printf '%s\n' "$output" | tail -n 20 >&2
  return 1
}

if [ -s "$data/PG_VERSION" ]; then
  if [ -f "$data/standby.signal" ]; then
    write_conninfo
    cellar_note "$data holds a standby; it streams from $primary"
    exit 0
  fi
  if rewind; then
    touch "$data/standby.signal"
    write_conninfo
    cellar_note "$data is rewound onto $primary's timeline; it streams from $primary"
    exit 0
  fi
  cellar_warn "cannot rewind $data (see above): emptying it to clone this standby afresh from $primary"
  find "$data" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
fi
if [ -d "$data" ] && [ -n "$(find "$data" -mindepth 1 -maxdepth 1 -printf x -quit)" ]; then
  # No PG_VERSION: not a database (what is left of a lost or half-cloned one). A standby is a copy
  # of the primary, so nothing here can be worth more than a fresh clone.
  cellar_warn "$data is not a PostgreSQL data directory (it holds $(find "$data" -mindepth 1 -maxdepth 1 -printf '%f ' | cut -c1-200)):" \
    "emptying it to clone the standby from $primary"
  find "$data" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
fi

cellar_require_commands pg_basebackup pg_isready
cellar_note "cloning this standby from $primary into $data"
cellar_wait_until "$wait_seconds" "the primary $primary" \
  "Check that the primary pod runs and is ready, and its Service DNS name resolves." \
  pg_isready -q -h "$CELLAR_PRIMARY_HOST" -p "$(cellar_primary_port)" -t 5

clone="$data.cellar-clone"
basebackup() {
  rm -rf "$clone"
  PGPASSWORD=$CELLAR_REPLICATION_PASSWORD PGAPPNAME="${POD_NAME:-cellar-replica-$(cellar_ordinal)}" \
    pg_basebackup --no-password -h "$CELLAR_PRIMARY_HOST" -p "$(cellar_primary_port)" \
    -U "$CELLAR_REPLICATION_USER" -D "$clone" --write-recovery-conf --wal-method=stream \
    --checkpoint=fast
}
started=$SECONDS
cellar_wait_until "$wait_seconds" "a base backup from $primary as '$CELLAR_REPLICATION_USER'" \
  "Check that the primary has the role with the password of the credentials Secret and a pg_hba.conf line for replication (primary-setup.sh adds both)." \
  basebackup
[ -f "$clone/standby.signal" ] || cellar_die "pg_basebackup wrote no standby.signal into $clone"
mkdir -p "$(dirname "$data")"
if [ -d "$data" ]; then rmdir "$data"; fi
mv "$clone" "$data"
chmod 700 "$data"
write_conninfo
cellar_note "cloned $(du -sh "$data" | cut -f1) from $primary in $((SECONDS - started)) s; $data is a standby"
