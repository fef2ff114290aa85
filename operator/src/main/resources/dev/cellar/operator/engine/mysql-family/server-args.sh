#!/usr/bin/env bash
# Prints the server options that depend on this server's role, one per line: a server_id from the
# ordinal (ordinal + 1; 0 is not allowed with binary logging); unless the role is primary (lib.sh's
# cellar_role) the read-only switches; on the primary with CELLAR_REPLICATION_MODE=sync, semi-sync
# waits for a replica's acknowledgement. CELLAR_WRITABLE=1 (step 1 of the entrypoint, the server
# without networking) gives neither: no replica could acknowledge there.
# Semi-sync waits on the primary only: a replica's applier would wait for acknowledgements from
# replicas of its own, which it has none of, and stop applying.
# Usage: bash server-args.sh    (environment as in lib.sh)
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=../mysql/dialect.sh
. "$here/dialect.sh"

ordinal=$(cellar_ordinal)
printf '%s\n' "--server-id=$((ordinal + 1))"
if [ "${CELLAR_WRITABLE:-0}" = 1 ]; then
  exit 0
fi
if ! cellar_is_primary; then
  cellar_read_only_options
elif [ "${CELLAR_REPLICATION_MODE:-async}" = sync ]; then
  cellar_semi_sync_primary_options
fi
