#!/usr/bin/env bash
# The standby's part of replication, before its server starts (run it as the server's OS user):
#   - an empty (or missing) data directory is cloned from the primary with pg_basebackup as the
#     replication account, into a temporary sibling that is renamed into place only when complete;
#     the script waits for the primary (CELLAR_WAIT_SECONDS) and says what to check if it never
#     answers or refuses the account.
#   - a standby's data directory (standby.signal) is kept; its primary_conninfo is rewritten from
#     the environment, so a changed password or primary host takes effect on the next start.
#   - a data directory without standby.signal is a primary's: the script refuses to start it as a
#     second primary.
# Then start the server on the data directory; it streams from the primary as a hot standby.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=pg-lib.sh
. "$here/pg-lib.sh"

ordinal=$(cellar_ordinal)
[ "$ordinal" -gt 0 ] || cellar_die "replica-bootstrap.sh runs on standbys (ordinal > 0); this is ordinal 0, the primary"
cellar_require_replication_account
cellar_require CELLAR_PRIMARY_HOST
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
  grep -v '^primary_conninfo *=' "$auto" >"$auto.cellar" || true
  printf "primary_conninfo = '%s'\n" "$value" >>"$auto.cellar"
  chmod 600 "$auto.cellar"
  mv -f "$auto.cellar" "$auto"
}

if [ -s "$data/PG_VERSION" ]; then
  if [ -f "$data/standby.signal" ]; then
    write_conninfo
    cellar_note "$data holds a standby; it streams from $primary"
    exit 0
  fi
  cellar_die "$data holds a primary's data (no standby.signal), but this is ordinal $ordinal, a" \
    "standby: starting it would make a second primary. Move or delete that data (the PVC of this" \
    "pod) to clone the standby afresh from $primary."
fi
if [ -d "$data" ] && [ -n "$(find "$data" -mindepth 1 -maxdepth 1 -printf x -quit)" ]; then
  cellar_die "$data is neither empty nor a PostgreSQL data directory (it holds $(find "$data" -mindepth 1 -maxdepth 1 -printf '%f ' | cut -c1-200));" \
    "move its files away to clone the standby from $primary"
fi

cellar_require_commands pg_basebackup pg_isready
cellar_note "cloning this standby from $primary into $data"
cellar_wait_until "$wait_seconds" "the primary $primary" \
  "Check that pod 0 runs and is ready, and its Service DNS name resolves." \
  pg_isready -q -h "$CELLAR_PRIMARY_HOST" -p "$(cellar_primary_port)" -t 5

clone="$data.cellar-clone"
basebackup() {
  rm -rf "$clone"
  PGPASSWORD=$CELLAR_REPLICATION_PASSWORD PGAPPNAME="${POD_NAME:-cellar-replica-$ordinal}" \
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
