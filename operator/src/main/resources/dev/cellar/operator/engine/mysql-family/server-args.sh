#!/usr/bin/env bash
# Prints the server options that depend on this server's role, one per line: a server_id from the
# ordinal (ordinal + 1; 0 is not allowed with binary logging), and unless the role is primary
# (lib.sh's cellar_role) the read-only switches (unless CELLAR_WRITABLE=1, used while a new
# replica is seeded without networking).
# Usage: bash server-args.sh    (environment as in lib.sh)
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=../lib.sh
. "$here/lib.sh"
# shellcheck source=../mysql/dialect.sh
. "$here/dialect.sh"

ordinal=$(cellar_ordinal)
printf '%s\n' "--server-id=$((ordinal + 1))"
if ! cellar_is_primary && [ "${CELLAR_WRITABLE:-0}" != 1 ]; then
  cellar_read_only_options
fi
