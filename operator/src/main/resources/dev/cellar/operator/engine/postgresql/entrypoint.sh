#!/usr/bin/env bash
# Container entrypoint of PostgreSQL pods: bash /etc/cellar/entrypoint.sh [postgres options]
#
# The image's own entrypoint (docker-entrypoint.sh) still initialises an empty PGDATA and runs the
# server. Around it, for replication, by the role the operator gave this pod (lib.sh's cellar_role:
# the pod's label cellar.dev/role; a pod without one waits for it):
#   - the primary: when its replication setup is missing or stale (first start, a changed
#     account), the server runs once on its Unix socket only, primary-setup.sh creates the role
#     and the pg_hba.conf line, and the server stops again. An empty PGDATA is initialised only
#     for a new Database (cellar_bootstrap_allowed); else the pod waits for a failover.
#   - a replica (standby): replica-bootstrap.sh clones an empty PGDATA from the primary with
#     pg_basebackup, checks an existing standby, or rewinds a former primary (pg_rewind).
#   - after a major upgrade (CELLAR_UPGRADE_DUMP set, see major-upgrade.sh), a primary whose new
#     PGDATA is not restored yet: the image's entrypoint initialises it, the server runs on its
#     socket only while major-upgrade.sh restores the old major's dump, and stops again. A
#     half-done restore (a restart in the middle) starts the new PGDATA over.
# Then the server runs for real, in the foreground (exec). A fingerprint of the primary's setup in
# PGDATA (cellar-primary.done) skips the extra start on restarts.
#
# Environment: lib.sh's and pg-lib.sh's, plus
#   CELLAR_IMAGE_ENTRYPOINT the image's entrypoint (default docker-entrypoint.sh, on PATH)
#   CELLAR_SOCKET_DIR       the server's Unix socket directory (default /var/run/postgresql)
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=pg-lib.sh
. "$here/pg-lib.sh"

image_entrypoint=${CELLAR_IMAGE_ENTRYPOINT:-docker-entrypoint.sh}
data=$(cellar_pg_data_dir)
has_data=0
if [ -s "$data/PG_VERSION" ]; then has_data=1; fi
upgrade_pending=0
if [ -n "${CELLAR_UPGRADE_DUMP:-}" ] && [ -s "$CELLAR_UPGRADE_DUMP" ] \
  && [ ! -f "$data/cellar-upgrade.done" ]; then
  upgrade_pending=1
  has_data=1 # in the dump
fi
role=$(cellar_await_role_with_data "$has_data" "$data/cellar-demoted")

# Ready: the image's entrypoint has exec'd postgres (its temporary init server has come and gone)
# and the server accepts connections on the socket.
own_server_ready() {
  [ "$(cat "/proc/$CELLAR_CHILD/comm" 2>/dev/null)" = postgres ] \
    && pg_isready -q -h "$CELLAR_LOCAL_HOST" -p "$(cellar_pg_port)"
}

setup_primary() {
  cellar_note "starting postgres on its socket only for primary-setup.sh"
  cellar_start_child "$image_entrypoint" postgres "$@" -c listen_addresses=
  export CELLAR_LOCAL_HOST=${CELLAR_SOCKET_DIR:-/var/run/postgresql}
  cellar_await_own_server postgres primary-setup.sh "accept connections on $CELLAR_LOCAL_HOST"
  if ! bash "$here/primary-setup.sh"; then
    kill -INT "$CELLAR_CHILD"
    cellar_wait_pid_exit "$CELLAR_CHILD" 300 postgres
    cellar_die "primary-setup.sh failed (see above); the pod restarts and tries again"
  fi
  kill -INT "$CELLAR_CHILD" # fast shutdown
  cellar_wait_pid_exit "$CELLAR_CHILD" 300 postgres
  cellar_clear_traps
  unset CELLAR_LOCAL_HOST
}

restore_upgrade() {
  if [ -s "$data/PG_VERSION" ]; then
    cellar_note "major upgrade: an earlier restore into $data did not finish; starting it over"
    find "$data" -mindepth 1 -delete
  fi
  cellar_note "major upgrade: initialising $data, then restoring $CELLAR_UPGRADE_DUMP"
  cellar_start_child "$image_entrypoint" postgres "$@" -c listen_addresses=
  export CELLAR_LOCAL_HOST=${CELLAR_SOCKET_DIR:-/var/run/postgresql}
  cellar_await_own_server postgres major-upgrade.sh "accept connections on $CELLAR_LOCAL_HOST"
  if ! bash "$here/major-upgrade.sh" restore; then
    kill -INT "$CELLAR_CHILD"
    cellar_wait_pid_exit "$CELLAR_CHILD" 300 postgres
    cellar_die "major-upgrade.sh restore failed (see above); the pod restarts and tries again"
  fi
  kill -INT "$CELLAR_CHILD"
  cellar_wait_pid_exit "$CELLAR_CHILD" 300 postgres
  cellar_clear_traps
  unset CELLAR_LOCAL_HOST
}

if [ "$role" = primary ] && [ "$upgrade_pending" = 1 ]; then
  restore_upgrade "$@"
fi

if [ "$role" = primary ]; then
  # With spec.replication.mode sync (synchronous_standby_names), a commit waits for a standby,
  # and none is connected while this primary is set up: the temporary servers' clients (the
  # image's init, primary-setup.sh) commit locally. PGOPTIONS is libpq's, read by the clients
  # started from here only; the server and the clients of other pods are unaffected.
  export PGOPTIONS="${PGOPTIONS:-} -c synchronous_commit=local"
  if [ -f "$data/standby.signal" ]; then
    # The operator chose this standby as the primary while it was stopped.
    cellar_note "this standby is now the primary: it starts promoted"
    rm -f "$data/standby.signal"
  fi
  if cellar_has_replication_account; then
    fingerprint=$(cellar_fingerprint primary "$CELLAR_REPLICATION_USER" "$CELLAR_REPLICATION_PASSWORD" \
      "${CELLAR_MONITORING_USER:-}" "${CELLAR_MONITORING_PASSWORD:-}")
    if ! cellar_marker_matches "$data/cellar-primary.done" "$fingerprint"; then
      setup_primary "$@"
      printf '%s\n' "$fingerprint" >"$data/cellar-primary.done"
    fi
  else
    bash "$here/primary-setup.sh" # only warns
  fi
else
  bash "$here/replica-bootstrap.sh"
fi

# spec.tls.mode required: pg_hba.conf rejects connections without TLS (and no longer does when
# the mode changes; the pod restarts with the new mode).
cellar_pg_tls_hba "$data/pg_hba.conf" || true

cellar_note "starting postgres as $([ "$role" = primary ] && echo primary || echo standby)"
exec "$image_entrypoint" postgres "$@"
