# shellcheck shell=bash
# Verifies a MySQL or MariaDB dump (the --all-databases SQL on stdin): restores it into a
# throwaway server of this image's version, in a temporary directory under $CELLAR_SCRATCH
# (default $TMPDIR or /tmp), on a Unix socket only, then asks it a query in the same session (the
# dump replaces the mysql schema's accounts, so a new connection could not log in). Prints one
# line saying what answered; exits non-zero if the restore or the query fails.
# Runs as any non-root user (uid 999 in the backup Job); run after lib.sh and dialect.sh.
set -euo pipefail

cellar_require_commands "$CELLAR_SERVER" "$CELLAR_CLIENT" "$CELLAR_ADMIN"
work=$(mktemp -d "${CELLAR_SCRATCH:-${TMPDIR:-/tmp}}/cellar-verify-XXXXXX")
data=$work/data
socket=$work/server.sock
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    cellar_wait_pid_exit "$server_pid" 30 "the throwaway server"
  fi
  rm -rf "$work"
}
trap cleanup EXIT
# The backup Job's MYSQL_PWD is the Database's root password (for the dump); the throwaway server's
# root has none, and the clients would send it ("Access denied ... using password: YES").
unset MYSQL_PWD

cellar_initialize_scratch_datadir "$data" >"$work/init.log" 2>&1 \
  || cellar_die "initializing the throwaway server's data directory failed: $(tail -n 1 "$work/init.log")"
"$CELLAR_SERVER" --no-defaults --datadir="$data" --socket="$socket" --skip-networking \
  --pid-file="$work/server.pid" --log-error="$work/server.log" --innodb-buffer-pool-size=64M \
  "${CELLAR_SCRATCH_SERVER_OPTIONS[@]}" >/dev/null 2>&1 &
server_pid=$!
ready() { "$CELLAR_ADMIN" --no-defaults --socket="$socket" --user=root ping >/dev/null 2>&1; }
for _ in $(seq 1 120); do
  ready && break
  kill -0 "$server_pid" 2>/dev/null || cellar_die "the throwaway server exited: $(tail -n 1 "$work/server.log" 2>/dev/null)"
  sleep 1
done
ready || cellar_die "the throwaway server did not answer within 120 s: $(tail -n 1 "$work/server.log" 2>/dev/null)"

query="SELECT CONCAT(COUNT(DISTINCT table_schema), ' databases, ', COUNT(*), ' tables') FROM information_schema.tables WHERE table_schema NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys');"
if ! { cat; printf '\n%s\n' "$query"; } | "$CELLAR_CLIENT" --no-defaults --socket="$socket" --user=root \
  --batch --skip-column-names >"$work/restore.out" 2>&1; then
  grep -m 1 -E 'ERROR' "$work/restore.out" >&2 || tail -n 3 "$work/restore.out" >&2
  cellar_die "the dump did not restore"
fi
echo "restored into $CELLAR_ENGINE $("$CELLAR_SERVER" --version | sed -n 's/.*Ver \([^ ]*\).*/\1/p'): $(tail -n 1 "$work/restore.out")"
