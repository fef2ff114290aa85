#!/usr/bin/env bash
# Entrypoint of Cellar's PostgreSQL test image (built from Debian's packages by
# e2e/realnode/images.sh). It honours the environment contract of the official postgres image,
# as Cellar's pod templates use it; this is the project's own implementation of that contract:
#   POSTGRES_PASSWORD  required on an empty data directory (unless POSTGRES_HOST_AUTH_METHOD=trust)
#   POSTGRES_USER      the superuser (default postgres)
#   POSTGRES_DB        a database created for it (default: POSTGRES_USER)
#   POSTGRES_INITDB_ARGS, POSTGRES_HOST_AUTH_METHOD (default scram-sha-256)
#   PGDATA             the data directory (default /var/lib/postgresql/data), PGPORT
#   /docker-entrypoint-initdb.d/*.sh|*.sql|*.sql.gz run once, after the first initialisation
# On an empty PGDATA it runs initdb, starts a temporary server on the Unix socket only, creates
# the database, runs the init scripts and stops it. Then it execs the command (default postgres),
# so the server is this process. It runs as whichever uid the pod gives it (999 is postgres).
set -Eeuo pipefail

note() { printf '%s [entrypoint] %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }
die() { note "error: $*"; exit 1; }

if [ $# -eq 0 ] || [ "${1:0:1}" = - ]; then set -- postgres "$@"; fi
if [ "${1:-}" != postgres ]; then exec "$@"; fi

export PGDATA=${PGDATA:-/var/lib/postgresql/data}
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
socket_dir=/var/run/postgresql

psql_local() { psql -X -v ON_ERROR_STOP=1 --no-password --no-psqlrc -h "$socket_dir" -p "${PGPORT:-5432}" -U "$user" "$@"; }

run_init_scripts() {
  local f
  for f in /docker-entrypoint-initdb.d/*; do
    [ -e "$f" ] || continue
    case $f in
      *.sh) note "running $f"; if [ -x "$f" ]; then "$f"; else
        # shellcheck source=/dev/null
        . "$f"
      fi ;;
      *.sql) note "running $f"; psql_local -d "$db" -f "$f" ;;
      *.sql.gz) note "running $f"; gzip -dc "$f" | psql_local -d "$db" ;;
      *) note "ignoring $f" ;;
    esac
  done
}

initialise() {
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
    die "the data directory $PGDATA is empty and POSTGRES_PASSWORD is not set: set it (or POSTGRES_HOST_AUTH_METHOD=trust)"
  fi
  note "initialising $PGDATA for superuser '$user'"
  # initdb wants an empty directory: the marker of an unfinished initialisation lives beside it.
  touch "$incomplete"
  local args=()
  read -r -a args <<<"${POSTGRES_INITDB_ARGS:-}"
  initdb -D "$PGDATA" --username="$user" --pwfile=<(printf '%s\n' "${POSTGRES_PASSWORD:-}") \
    --auth-local=trust --auth-host="$auth" "${args[@]}" >/dev/null
  printf '\n# Added by the entrypoint: every host, with a password.\nhost all all all %s\n' "$auth" >>"$PGDATA/pg_hba.conf"
  # A temporary server that no client outside this container can see.
  pg_ctl -D "$PGDATA" -w -t 300 -o "-c listen_addresses='' -p ${PGPORT:-5432} -c unix_socket_directories=$socket_dir" start >/dev/null
  if [ "$db" != postgres ]; then
    psql_local -d postgres -q --set db="$db" <<<"CREATE DATABASE :\"db\";"
  fi
  run_init_scripts
  pg_ctl -D "$PGDATA" -m fast -w -t 300 stop >/dev/null
  rm -f "$incomplete"
  note "initialisation done"
}

mkdir -p "$PGDATA" "$socket_dir" 2>/dev/null || true
# An initialisation that did not finish (the container was stopped or failed half-way) is
# started over: its marker is the only way a data directory has it.
incomplete=$(dirname "$PGDATA")/.entrypoint-init-incomplete-$(basename "$PGDATA")
if [ -f "$incomplete" ]; then
  note "the last initialisation of $PGDATA did not finish; starting it over"
  find "$PGDATA" -mindepth 1 -delete
  rm -f "$incomplete"
fi
chmod 700 "$PGDATA" 2>/dev/null || true
[ -w "$PGDATA" ] || die "$PGDATA is not writable by uid $(id -u)"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -z "$(ls -A "$PGDATA")" ] || die "$PGDATA holds files but no PG_VERSION; it is not a PostgreSQL data directory"
  initialise
fi
exec "$@"
