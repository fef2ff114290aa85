#!/usr/bin/env bash
# healthcheck.sh of Cellar's MariaDB test image: the probe command of the official mariadb image,
# in this project's own implementation. Exit 0 when every named test passes:
#   --connect              a client gets in over TCP on 127.0.0.1 (so not while the server runs
#                          without networking, as it does during initialisation)
#   --innodb_initialized   InnoDB is loaded and usable
# Credentials: DATADIR/.my-healthcheck.cnf written by the entrypoint at initialisation, else root
# with MARIADB_ROOT_PASSWORD.
set -euo pipefail

datadir=${DATADIR:-/var/lib/mysql}
cnf=$datadir/.my-healthcheck.cnf
connection=()
tests=()
for arg in "$@"; do
  case $arg in
    --connect) connection=(--protocol=tcp --host=127.0.0.1) ;;
    --innodb_initialized) tests+=(innodb_initialized) ;;
    --datadir=*) datadir=${arg#--datadir=} cnf=$datadir/.my-healthcheck.cnf ;;
    *) echo "healthcheck.sh: unknown option $arg (known: --connect --innodb_initialized --datadir=DIR)" >&2; exit 2 ;;
  esac
done

query() {
  local root_password=${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}
  if [ -r "$cnf" ]; then
    mariadb --defaults-extra-file="$cnf" "${connection[@]}" --connect-timeout=3 --batch --skip-column-names -e "$1"
  else
    root_password=${root_password//\\/\\\\}
    mariadb --defaults-extra-file=<(printf '[client]\npassword="%s"\n' "${root_password//\"/\\\"}") --user=root \
      "${connection[@]}" --connect-timeout=3 --batch --skip-column-names -e "$1"
  fi
}

query 'SELECT 1' >/dev/null || { echo "healthcheck.sh: cannot connect" >&2; exit 1; }
for t in "${tests[@]}"; do
  case $t in
    innodb_initialized)
      [ "$(query "SELECT 1 FROM information_schema.ENGINES WHERE engine = 'InnoDB' AND support IN ('YES', 'DEFAULT', 'ENABLED')")" = 1 ] \
        || { echo "healthcheck.sh: InnoDB is not initialised" >&2; exit 1; }
      ;;
  esac
done
