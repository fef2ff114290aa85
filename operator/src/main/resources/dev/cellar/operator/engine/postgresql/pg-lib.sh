# shellcheck shell=bash
# What the PostgreSQL scripts share. Sourced after lib.sh.
#
# Environment, besides lib.sh's:
#   PGDATA / CELLAR_DATA_DIR  the data directory (CELLAR_DATA_DIR wins)
#   POSTGRES_USER             the superuser the scripts connect as (default postgres)
#   POSTGRES_PASSWORD         its password, when this server asks for one
#   CELLAR_LOCAL_HOST         this server: a host, or a socket directory (default 127.0.0.1)
#   CELLAR_PORT / PGPORT      this server's port (default 5432)

cellar_pg_data_dir() {
  local dir=${CELLAR_DATA_DIR:-${PGDATA:-}}
  [ -n "$dir" ] || cellar_die "set PGDATA or CELLAR_DATA_DIR to the data directory"
  printf '%s\n' "$dir"
}

cellar_pg_port() { printf '%s\n' "${CELLAR_PORT:-${PGPORT:-5432}}"; }

# psql as the superuser on this server; SQL on stdin or with -c.
cellar_pg_local_sql() {
  PGPASSWORD=${POSTGRES_PASSWORD:-${PGPASSWORD:-}} psql -X -q -v ON_ERROR_STOP=1 --no-password \
    -h "${CELLAR_LOCAL_HOST:-127.0.0.1}" -p "$(cellar_pg_port)" \
    -U "${POSTGRES_USER:-postgres}" -d postgres "$@"
}

# A libpq connection string value, quoted: 'it''s' -> 'it\'s'.
cellar_conninfo_value() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\'/\\\'}
  printf "'%s'" "$s"
}

# The connection string a standby uses to stream from the primary.
cellar_pg_primary_conninfo() {
  printf 'host=%s port=%s user=%s password=%s application_name=%s sslmode=prefer' \
    "$(cellar_conninfo_value "$CELLAR_PRIMARY_HOST")" "$(cellar_primary_port)" \
    "$(cellar_conninfo_value "$CELLAR_REPLICATION_USER")" \
    "$(cellar_conninfo_value "$CELLAR_REPLICATION_PASSWORD")" \
    "$(cellar_conninfo_value "${POD_NAME:-cellar-replica-$(cellar_ordinal)}")"
}
