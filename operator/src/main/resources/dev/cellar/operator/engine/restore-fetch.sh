#!/usr/bin/env bash
# Bootstrap from a backup, step 1 (the init container "restore" of every database pod; run after
# s3.sh's functions): on pod 0 of a Database whose data directory is not initialised yet, fetch the
# dump ($RESTORE_BACKUP: latest or a dump's name, of Database $BACKUP_NAME) from the bucket
# ($S3_BUCKET, keys under $S3_PREFIX) or from the source's backups volume ($SOURCE_DIR), and put it
# with the engine's restore script (the file $RESTORE_SCRIPT) into $RESTORE_DIR, which the database
# container sees as /docker-entrypoint-initdb.d: the image's first initialisation runs it, and the
# server accepts clients (and the pod becomes ready) only after it.
# $DATA_DIR/.cellar-restore-pending marks a restore that has not finished: the next pod fetches
# again, even if the image initialised the data directory meanwhile.
# On failure the reason is one line in $RESULT_FILE (the termination message) and the exit is 1:
# the kubelet retries, so a dump uploaded or a Secret fixed later is picked up.
set -euo pipefail
s3_error=''
: "${BACKUP_NAME:?}" "${DATA_DIR:?}" "${INITIALISED_PATH:?}" "${RESTORE_SCRIPT:?}"
result_file=${RESULT_FILE:-/dev/termination-log}
restore_dir=${RESTORE_DIR:-/cellar-restore}
backup=${RESTORE_BACKUP:-latest}
pending=$DATA_DIR/.cellar-restore-pending

fail() {
  echo "restore: $*" >&2
  printf '%s\n' "$*" >"$result_file" 2>/dev/null || true
  exit 1
}

ordinal=${POD_NAME:-x-0}
ordinal=${ordinal##*-}
if [ "$ordinal" != 0 ]; then
  echo "restore: $POD_NAME is a replica: it clones the primary, nothing to restore"
  exit 0
fi
if [ -e "$INITIALISED_PATH" ] && [ ! -e "$pending" ]; then
  echo "restore: $INITIALISED_PATH exists: the data is there, nothing to restore"
  exit 0
fi
touch "$pending" || fail "cannot write $pending: is the data volume writable by uid $(id -u)?"

pattern="^${BACKUP_NAME//./\\.}-[0-9]{8}T[0-9]{6}Z\\.sql\\.gz\$"
dump=$restore_dir/cellar-dump.gz
if [ -n "${S3_BUCKET:-}" ]; then
  s3_check || fail "$s3_error"
  prefix=${S3_PREFIX:-}
  prefix=${prefix#/}
  [ -z "$prefix" ] || prefix=${prefix%/}/
  where="s3://$S3_BUCKET/$prefix"
  if [ "$backup" = latest ]; then
    s3_list "$prefix$BACKUP_NAME-" >"$restore_dir/list" || fail "listing $where: $s3_error"
    backup=$(awk -v p="$prefix" '{ k = $1; if (index(k, p) == 1) k = substr(k, length(p) + 1); print k }' "$restore_dir/list" \
      | grep -E "$pattern" | sort | tail -n 1 || true)
    [ -n "$backup" ] || fail "no backup of $BACKUP_NAME in $where (dumps are named $BACKUP_NAME-<UTC timestamp>.sql.gz)"
  fi
  s3_get "$prefix$backup" "$dump" || fail "fetching $backup from $where: $s3_error"
else
  : "${SOURCE_DIR:?SOURCE_DIR or S3_BUCKET must be set}"
  where="volume ${SOURCE_CLAIM:-$SOURCE_DIR}"
  if [ "$backup" = latest ]; then
    backup=$(find "$SOURCE_DIR" -maxdepth 1 -type f -name "$BACKUP_NAME-*.sql.gz" -printf '%f\n' 2>/dev/null \
      | grep -E "$pattern" | sort | tail -n 1 || true)
    [ -n "$backup" ] || fail "no backup of $BACKUP_NAME on $where (dumps are named $BACKUP_NAME-<UTC timestamp>.sql.gz)"
  fi
  [ -f "$SOURCE_DIR/$backup" ] || fail "no backup $backup on $where"
  cp "$SOURCE_DIR/$backup" "$dump"
fi
gzip -t "$dump" 2>/dev/null || fail "$backup from $where is not a valid gzip file (corrupt or truncated)"
cp "$RESTORE_SCRIPT" "$restore_dir/cellar-restore.sh"
printf '%s\n' "$backup" >"$restore_dir/cellar-backup-name"
echo "restore: $backup from $where ($(stat -c %s "$dump") bytes) will be restored at the first start"
