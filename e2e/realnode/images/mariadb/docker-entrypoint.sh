#!/usr/bin/env bash
# Entrypoint of Cellar's MariaDB test image (built from Debian's packages by
# e2e/realnode/images.sh). It honours the environment contract of the official mariadb image, as
# Cellar's pod templates use it; this is the project's own implementation of that contract:
#   MARIADB_ROOT_PASSWORD  required on an empty data directory (or MARIADB_ALLOW_EMPTY_ROOT_PASSWORD)
#   MARIADB_ROOT_HOST      where root may connect from besides localhost (default %)
#   MARIADB_DATABASE, MARIADB_USER, MARIADB_PASSWORD: a database and an account with all of it
#   MARIADB_AUTO_UPGRADE   run mariadb-upgrade when the data directory is from another version
#   (MYSQL_* spellings of the same variables work too)
#   /docker-entrypoint-initdb.d/*.sh|*.sql|*.sql.gz run once, after the first initialisation
# On an empty data directory it runs mariadb-install-db, starts a temporary server without
# networking, sets the accounts up (and a 'healthcheck' account for healthcheck.sh, whose
# credentials it writes to DATADIR/.my-healthcheck.cnf) and stops it. Then it execs the command
# (default mariadbd), so the server is this process.
set -Eeuo pipefail

note() { printf '%s [entrypoint] %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }
die() { note "error: $*"; exit 1; }

if [ $# -eq 0 ] || [ "${1:0:1}" = - ]; then set -- mariadbd "$@"; fi
case ${1:-} in mariadbd | mysqld) ;; *) exec "$@" ;; esac

env_of() { local m=MARIADB_$1 y=MYSQL_$1; printf '%s' "${!m:-${!y:-}}"; }
root_password=$(env_of ROOT_PASSWORD)
root_host=$(env_of ROOT_HOST)
root_host=${root_host:-%}

# A value of the server's effective configuration (config files plus these options), from the
# table at the end of --help, whose lines start with the name (help text lines are indented).
# awk reads to the end: an early exit would fail the pipeline (SIGPIPE) under pipefail.
server_option() {
  "$@" --verbose --help 2>/dev/null | awk -v k="$OPTION" '!found && index($0, k " ") == 1 { found = 1; print $2 }'
}
datadir=$(OPTION=datadir server_option "$@")
socket=$(OPTION=socket server_option "$@")
port=$(OPTION=port server_option "$@")
{ [ -n "$datadir" ] && [ -n "$socket" ]; } || die "cannot read datadir and socket from '$* --verbose --help'"
datadir=${datadir%/}

sql_string() { local s=${1//\\/\\\\}; printf "'%s'" "${s//\'/\\\'}"; }
# shellcheck disable=SC2016 # backticks quote SQL identifiers
sql_ident() { printf '`%s`' "${1//\`/\`\`}"; }

temp_pid=
# shellcheck disable=SC2120 # called through start_temp_server and stop_temp_server too
client() { mariadb --protocol=socket --socket="$socket" --user=root "$@"; }
# --defaults-extra-file must come first.
root_client() {
  mariadb --defaults-extra-file=<(printf '[client]\npassword=%s\n' "$(sql_string "$root_password")") \
    --protocol=socket --socket="$socket" --user=root "$@"
}

start_temp_server() { # start_temp_server CLIENT: a server no other client can see, until CLIENT gets in
  local deadline=$((SECONDS + 300))
  "${server[@]}" --skip-networking --skip-log-bin --default-time-zone=SYSTEM --wsrep-on=OFF \
    --expire-logs-days=0 --loose-innodb-buffer-pool-load-at-startup=0 --socket="$socket" &
  temp_pid=$!
  until "$1" --connect-timeout=2 -e 'SELECT 1' >/dev/null 2>&1; do
    kill -0 "$temp_pid" 2>/dev/null || die "the temporary server exited; see its messages above"
    [ $SECONDS -lt $deadline ] || die "the temporary server did not accept connections within 300 s"
    sleep 0.5
  done
}
stop_temp_server() { # stop_temp_server CLIENT
  "$1" -e 'SHUTDOWN' >/dev/null || kill -TERM "$temp_pid"
  wait "$temp_pid" || die "the temporary server did not stop cleanly"
}

run_init_scripts() {
  local f
  for f in /docker-entrypoint-initdb.d/*; do
    [ -e "$f" ] || continue
    case $f in
      *.sh) note "running $f"; if [ -x "$f" ]; then "$f"; else
        # shellcheck source=/dev/null
        . "$f"
      fi ;;
      *.sql) note "running $f"; root_client "$(env_of DATABASE)" <"$f" ;;
      *.sql.gz) note "running $f"; gzip -dc "$f" | root_client "$(env_of DATABASE)" ;;
      *) note "ignoring $f" ;;
    esac
  done
}

initialise() {
  local database user password healthcheck_password sql h
  database=$(env_of DATABASE) user=$(env_of USER) password=$(env_of PASSWORD)
  if [ -z "$root_password" ] && [ -z "$(env_of ALLOW_EMPTY_ROOT_PASSWORD)" ]; then
    die "the data directory $datadir is empty and MARIADB_ROOT_PASSWORD is not set"
  fi
  [ "$user" != root ] || die "MARIADB_USER=root: root is set up by MARIADB_ROOT_PASSWORD"
  note "initialising $datadir"
  touch "$datadir/$INCOMPLETE"
  mariadb-install-db --datadir="$datadir" --auth-root-authentication-method=normal --skip-test-db \
    --default-time-zone=SYSTEM --skip-log-bin --expire-logs-days=0 --skip-name-resolve >/dev/null
  start_temp_server client
  healthcheck_password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  sql="SET @@SESSION.SQL_LOG_BIN=0;
DELETE FROM mysql.global_priv WHERE User = '';
FLUSH PRIVILEGES;
DROP USER IF EXISTS root@'127.0.0.1', root@'::1';
EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS root@''', @@hostname, '''');
ALTER USER root@localhost IDENTIFIED BY $(sql_string "$root_password");"
  if [ "$root_host" != localhost ]; then
    sql+="
CREATE USER root@$(sql_string "$root_host") IDENTIFIED BY $(sql_string "$root_password");
GRANT ALL ON *.* TO root@$(sql_string "$root_host") WITH GRANT OPTION;
GRANT PROXY ON ''@'%' TO root@$(sql_string "$root_host") WITH GRANT OPTION;"
  fi
  for h in 127.0.0.1 ::1 localhost; do
    sql+="
CREATE USER healthcheck@'$h' IDENTIFIED BY $(sql_string "$healthcheck_password");
GRANT USAGE ON *.* TO healthcheck@'$h';"
  done
  [ -z "$database" ] || sql+="
CREATE DATABASE IF NOT EXISTS $(sql_ident "$database");"
  if [ -n "$user" ]; then
    [ -n "$password" ] || die "MARIADB_USER is set but MARIADB_PASSWORD is not"
    sql+="
CREATE USER $(sql_string "$user")@'%' IDENTIFIED BY $(sql_string "$password");"
    [ -z "$database" ] || sql+="
GRANT ALL ON $(sql_ident "$database").* TO $(sql_string "$user")@'%';"
  fi
  client --batch <<<"$sql" || die "setting up the accounts failed"
  (umask 077 && printf '[mariadb-client]\nport=%s\nsocket=%s\nuser=healthcheck\npassword=%s\n' \
    "${port:-3306}" "$socket" "$(sql_string "$healthcheck_password")" >"$datadir/.my-healthcheck.cnf")
  run_init_scripts
  root_client --skip-column-names -e 'SELECT VERSION()' >"$datadir/mysql_upgrade_info"
  stop_temp_server root_client
  rm -f "$datadir/$INCOMPLETE"
  note "initialisation done"
}

upgrade_if_needed() {
  local installed running
  installed=$(cat "$datadir/mysql_upgrade_info" 2>/dev/null || true)
  running=$("${server[@]}" --version | grep -o '[0-9][0-9.]*-MariaDB' | head -1 || true)
  [ -n "$running" ] && [ "${installed%%-*}" != "${running%%-*}" ] || return 0
  note "the data directory is from MariaDB ${installed:-unknown}; this server is $running: running mariadb-upgrade"
  start_temp_server root_client
  mariadb-upgrade --protocol=socket --socket="$socket" --user=root \
    --defaults-extra-file=<(printf '[client]\npassword=%s\n' "$(sql_string "$root_password")") --upgrade-system-tables
  stop_temp_server root_client
}

server=("$@")
[ -w "$datadir" ] || die "$datadir is not writable by uid $(id -u)"
mkdir -p "$(dirname "$socket")" 2>/dev/null || true
# An initialisation that did not finish (the container was stopped or failed half-way) is
# started over: its marker is the only way a data directory has it.
INCOMPLETE=.entrypoint-init-incomplete
if [ -f "$datadir/$INCOMPLETE" ]; then
  note "the last initialisation of $datadir did not finish; starting it over"
  find "$datadir" -mindepth 1 -delete
fi
if [ ! -d "$datadir/mysql" ]; then
  initialise
elif [ -n "$(env_of AUTO_UPGRADE)" ]; then
  upgrade_if_needed
fi
exec "$@"
