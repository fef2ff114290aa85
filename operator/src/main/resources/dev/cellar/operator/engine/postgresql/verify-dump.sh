# shellcheck shell=bash
# Verifies a PostgreSQL dump (pg_dumpall's SQL on stdin): restores it into a throwaway server of
# this image's version, in a temporary directory under $CELLAR_SCRATCH (default $TMPDIR or /tmp),
# listening on a Unix socket only, then asks it a query. Prints one line saying what answered;
# exits non-zero if the restore or the query fails (ON_ERROR_STOP: any SQL error counts).
# Runs as any non-root user (uid 999 in the backup Job); run after lib.sh.
#   PG_BIN  where initdb, pg_ctl and psql are (default: PATH, else the newest
#           /usr/lib/postgresql/*/bin)
set -euo pipefail

pg_bin=${PG_BIN:-}
if [ -z "$pg_bin" ]; then
  if command -v initdb >/dev/null 2>&1; then
    pg_bin=$(dirname "$(command -v initdb)")
  else
    pg_bin=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1)
  fi
fi
[ -x "$pg_bin/initdb" ] || cellar_die "initdb not found (PATH or /usr/lib/postgresql/*/bin): the image's server programs are needed to verify a dump"

work=$(mktemp -d "${CELLAR_SCRATCH:-${TMPDIR:-/tmp}}/cellar-verify-XXXXXX")
data=$work/data
cleanup() {
  "$pg_bin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# A superuser no dump has, so that the dump's own roles (postgres among them) restore as they are.
user=cellar_verify
"$pg_bin/initdb" -D "$data" -U "$user" --auth=trust -E UTF8 --no-sync >"$work/initdb.log" 2>&1 \
  || cellar_die "initdb of the throwaway server failed: $(tail -n 1 "$work/initdb.log")"
"$pg_bin/pg_ctl" -D "$data" -l "$work/server.log" -w -t 120 \
  -o "-c listen_addresses='' -c unix_socket_directories='$work' -c fsync=off -p 5432" start >/dev/null \
  || cellar_die "the throwaway server did not start: $(tail -n 1 "$work/server.log")"

"$pg_bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$work" -p 5432 -U "$user" -d postgres -f - \
  >"$work/restore.log" 2>&1 || {
  grep -m 1 -E 'ERROR|FATAL' "$work/restore.log" >&2 || tail -n 3 "$work/restore.log" >&2
  cellar_die "the dump did not restore"
}
query() { "$pg_bin/psql" -X -A -t -h "$work" -p 5432 -U "$user" "$@"; }
databases=0 tables=0
while IFS= read -r db; do
  [ -n "$db" ] || continue
  n=$(query -d "$db" -c "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")
  databases=$((databases + 1)) tables=$((tables + n))
done < <(query -d postgres -c 'SELECT datname FROM pg_database WHERE NOT datistemplate')
echo "restored into PostgreSQL $(query -d postgres -c 'SHOW server_version'): $databases databases, $tables tables"
