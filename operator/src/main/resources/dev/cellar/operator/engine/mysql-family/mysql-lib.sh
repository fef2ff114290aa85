# shellcheck shell=bash
# What the MySQL and MariaDB scripts share: connections to this server and to the primary as
# root. Sourced after lib.sh and dialect.sh (which names the programs and the SQL).
#
# Environment, besides lib.sh's:
#   MYSQL_ROOT_PASSWORD / MARIADB_ROOT_PASSWORD  root's password (the same on every server)
#   CELLAR_LOCAL_HOST  this server: a host (TCP, default 127.0.0.1) or a socket path (/...)
#   CELLAR_PORT        this server's TCP port (default 3306)

# An option file with root's password, so it never shows in the process list.
cellar_passfile() {
  local password
  password=$(cellar_root_password)
  password=${password//\\/\\\\}
  password=${password//\"/\\\"}
  printf '[client]\npassword="%s"\n' "$password"
}

cellar_local_connection() {
  local where=${CELLAR_LOCAL_HOST:-127.0.0.1}
  case "$where" in
    /*) printf '%s\n' --protocol=socket "--socket=$where" ;;
    *)
      printf '%s\n' --protocol=tcp "--host=$where" "--port=${CELLAR_PORT:-3306}"
      cellar_tls_local_options
      ;;
  esac
}

# cellar_local_client_cmd PROGRAM ARGS...: PROGRAM as root on this server.
cellar_local_client_cmd() {
  local program=$1 connection
  shift
  mapfile -t connection < <(cellar_local_connection)
  "$program" --defaults-extra-file=<(cellar_passfile) --user=root "${connection[@]}" "$@"
}

# cellar_primary_client_cmd PROGRAM ARGS...: PROGRAM as root on the primary.
cellar_primary_client_cmd() {
  local program=$1 tls
  shift
  mapfile -t tls < <(cellar_tls_primary_options)
  "$program" --defaults-extra-file=<(cellar_passfile) --user=root --protocol=tcp \
    "--host=${CELLAR_PRIMARY_HOST:?CELLAR_PRIMARY_HOST is not set}" "--port=$(cellar_primary_port)" \
    "${CELLAR_REMOTE_OPTIONS[@]}" "${tls[@]}" "$@"
}

# SQL on stdin (or -e) against this server; tab-separated rows without a header.
cellar_local_sql() {
  cellar_local_client_cmd "$CELLAR_CLIENT" --batch --skip-column-names "$@"
}

cellar_primary_sql() {
  cellar_primary_client_cmd "$CELLAR_CLIENT" --batch --skip-column-names "$@"
}

cellar_local_ping() { cellar_local_sql --connect-timeout=5 -e 'SELECT 1' >/dev/null; }

cellar_primary_ping() { cellar_primary_sql --connect-timeout=5 -e 'SELECT 1' >/dev/null; }

# This server's version as a number: 8.4.2 -> 80402, 10.11.9 -> 101109.
cellar_server_version_number() {
  local version major minor patch
  version=$(cellar_local_sql -e 'SELECT @@version')
  IFS=. read -r major minor patch <<<"${version%%-*}"
  printf '%d\n' "$((major * 10000 + minor * 100 + ${patch:-0}))"
}

# The primary this server replicates from, or nothing when replication is not configured.
cellar_configured_source_host() {
  cellar_replica_status_field '(Master|Source)_Host'
}

# cellar_replica_status_field REGEX: a field of SHOW REPLICA/SLAVE STATUS (first channel).
cellar_replica_status_field() {
  cellar_sql_replica_status | cellar_local_client_cmd "$CELLAR_CLIENT" --batch \
    | awk -v field="^ *($1):" '!found && $0 ~ field { found = 1; sub(/^[^:]*: ?/, ""); print }'
}

# The replication account, created unlogged on each server (so it never conflicts when
# replicated) and kept in step with the Secret.
cellar_sql_replication_account() {
  local user password
  user=$(cellar_mysql_quote "$1")
  password=$(cellar_mysql_quote "$2")
  cat <<EOF
SET SESSION sql_log_bin = 0;
CREATE USER IF NOT EXISTS ${user}@'%' IDENTIFIED BY ${password};
ALTER USER ${user}@'%' IDENTIFIED BY ${password};
GRANT REPLICATION SLAVE ON *.* TO ${user}@'%';
EOF
}

# The metrics exporter's account, created unlogged like the replication account (replicas get it
# with the primary's data), with the least the exporter reads: processes, replication status
# (cellar_monitoring_privileges, which differ by engine) and performance_schema.
cellar_sql_monitoring_account() {
  local user password
  user=$(cellar_mysql_quote "$1")
  password=$(cellar_mysql_quote "$2")
  cat <<EOF
SET SESSION sql_log_bin = 0;
CREATE USER IF NOT EXISTS ${user}@'%' IDENTIFIED BY ${password};
ALTER USER ${user}@'%' IDENTIFIED BY ${password};
GRANT $(cellar_monitoring_privileges) ON *.* TO ${user}@'%';
GRANT SELECT ON performance_schema.* TO ${user}@'%';
EOF
}

# cellar_sql_change_source HOST PORT USER PASSWORD: the dialect's statement that replicates from
# the primary, with every value quoted for SQL.
cellar_sql_change_source() {
  local port=$2
  case "$port" in '' | *[!0-9]*) cellar_die "port '$port' is not a number" ;; esac
  cellar_sql_change_source_to "$(cellar_mysql_quote "$1")" "$port" "$(cellar_mysql_quote "$3")" \
    "$(cellar_mysql_quote "$4")"
}
