# shellcheck shell=bash
# Bootstrap from a backup, step 2 for PostgreSQL: run by the image's first initialisation (from
# /docker-entrypoint-initdb.d, with its temporary server on the local socket), it restores
# cellar-dump.gz beside it (pg_dumpall's SQL). The dump's roles come along; the superuser's
# password is set back to this Database's (POSTGRES_PASSWORD), and "already exists" errors (the
# superuser, the database the image made) are expected. Any other error fails the initialisation,
# which the image starts over at the next start.
(
  set -euo pipefail
  here=${CELLAR_RESTORE_DIR:-/docker-entrypoint-initdb.d}
  socket=${CELLAR_SOCKET_DIR:-/var/run/postgresql}
  log=$(mktemp)
  echo "cellar: restoring $(cat "$here/cellar-backup-name" 2>/dev/null) into ${PGDATA:-the data directory}" >&2
  gzip -dc "$here/cellar-dump.gz" | psql -X -q -v ON_ERROR_STOP=0 --no-password \
    -h "$socket" -p "${PGPORT:-5432}" -U "${POSTGRES_USER:-postgres}" -d postgres >/dev/null 2>"$log"
  errors=$(grep -E '(ERROR|FATAL):' "$log" | grep -v 'already exists' || true)
  if [ -n "$errors" ]; then
    echo "cellar: the dump did not restore: $(head -n 1 <<<"$errors")" >&2
    exit 1
  fi
  password=${POSTGRES_PASSWORD:-}
  user=${POSTGRES_USER:-postgres}
  psql -X -q -v ON_ERROR_STOP=1 --no-password -h "$socket" -p "${PGPORT:-5432}" -U "$user" -d postgres \
    -v user="$user" -v password="$password" <<<'ALTER ROLE :"user" PASSWORD :'"'"'password'"'"';'
  rm -f "${CELLAR_RESTORE_PENDING:?}"
  echo "cellar: restore done" >&2
) || exit 1
