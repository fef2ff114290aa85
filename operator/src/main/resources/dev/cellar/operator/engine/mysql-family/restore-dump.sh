# shellcheck shell=bash
# Bootstrap from a backup, step 2 for MySQL and MariaDB: run by the image's first initialisation
# (from /docker-entrypoint-initdb.d, with its temporary server on the local socket and this
# Database's accounts already made), it restores cellar-dump.gz beside it: every database of the
# dump except the mysql schema, so the accounts (root, the user, the image's healthcheck) stay
# this Database's. Any error fails the initialisation, which the image starts over at the next
# start.
(
  set -euo pipefail
  here=${CELLAR_RESTORE_DIR:-/docker-entrypoint-initdb.d}
  client=mariadb
  command -v "$client" >/dev/null 2>&1 || client=mysql
  password=${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}
  echo "cellar: restoring $(cat "$here/cellar-backup-name" 2>/dev/null) without its mysql schema" >&2
  # The dump's sections start with "-- Current Database: `name`"; the mysql one is left out.
  gzip -dc "$here/cellar-dump.gz" \
    | awk '/^-- Current Database: `/ { skip = ($0 ~ /^-- Current Database: `mysql`/) } !skip' \
    | MYSQL_PWD=$password "$client" --protocol=socket -uroot \
    || { echo "cellar: the dump did not restore" >&2; exit 1; }
  rm -f "${CELLAR_RESTORE_PENDING:?}"
  echo "cellar: restore done" >&2
) || exit 1
