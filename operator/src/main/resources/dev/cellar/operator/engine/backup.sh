#!/usr/bin/env bash
# A scheduled backup, the same for every engine: the engine's dump of the primary ($DUMP_COMMAND,
# from the engine profile, connecting to $DB_HOST), gzipped to
# $BACKUP_DIR/$BACKUP_NAME-<UTC timestamp>.sql.gz; then only the newest $RETENTION dumps are kept.
# Timestamps sort as text, so the newest dump is the last name.
set -euo pipefail
: "${DUMP_COMMAND:?}" "${BACKUP_DIR:?}" "${BACKUP_NAME:?}" "${RETENTION:?}"
prefix="$BACKUP_DIR/$BACKUP_NAME-"
out="$prefix$(date -u +%Y%m%dT%H%M%SZ).sql.gz"
# The dump goes to a temporary file renamed only on success, so a failed run never counts as a
# backup nor pushes a good one out of the retention window.
bash -c "$DUMP_COMMAND" | gzip >"$out.partial"
mv "$out.partial" "$out"
shopt -s nullglob
dumps=("$prefix"*.sql.gz)
old=$((${#dumps[@]} - RETENTION))
if [ "$old" -gt 0 ]; then
  rm -f -- "${dumps[@]:0:old}"
fi
echo "backup written: $out"
