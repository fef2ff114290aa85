#!/usr/bin/env bash
# A backup, the same for every engine (run after s3.sh's functions: the scripts ConfigMap's
# backup-job.sh is the two in one file):
#   1. the engine's dump of the primary ($DUMP_COMMAND, from the engine profile, connecting to
#      $DB_HOST), gzipped, named $BACKUP_NAME-<UTC timestamp>.sql.gz (names sort by time);
#   2. stored: uploaded to $S3_ENDPOINT/$S3_BUCKET/[$S3_PREFIX/]<name> when S3_BUCKET is set, else
#      written to $BACKUP_DIR;
#   3. retention: only the newest $RETENTION dumps of $BACKUP_NAME are kept on that target;
#   4. verification, when $VERIFY_SCRIPT (the path of the engine's verify-dump script) is set:
#      the stored dump is read back and restored into a throwaway server of the same engine, which
#      must answer a query.
# The result is one line of JSON in $RESULT_FILE (default /dev/termination-log, the container's
# termination message, which the operator reads): {"result":"succeeded",...} or
# {"result":"failed","stage":...,"message":...}. No credential is ever in it.
#
# BACKUP_MODE=verify verifies a stored dump instead ($VERIFY_BACKUP: latest or a dump's name).
set -euo pipefail
s3_error='' # set by s3.sh's functions
: "${BACKUP_NAME:?}" "${RETENTION:=7}"
result_file=${RESULT_FILE:-/dev/termination-log}
scratch_root=${CELLAR_SCRATCH:-${TMPDIR:-/tmp}}
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
name='' location='' size=0 verified=false verification=''

json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/ }
  s=${s//$'\r'/ }
  s=${s//$'\n'/ }
  printf '"%s"' "$s"
}

write_result() {
  printf '%s\n' "$1" >"$result_file" 2>/dev/null || true
  printf '%s\n' "$1"
}

# fail STAGE MESSAGE: the failed result, then exit 1.
fail() {
  local stage=$1 message=$2
  echo "backup failed at $stage: $message" >&2
  write_result "{\"result\":\"failed\",\"stage\":$(json_string "$stage"),\"name\":$(json_string "$name"),\"startTime\":$(json_string "$started"),\"message\":$(json_string "$message")}"
  exit 1
}

if [ -n "${S3_BUCKET:-}" ]; then
  target=s3
  s3_check || fail configuration "$s3_error"
  key_prefix=${S3_PREFIX:-}
  key_prefix=${key_prefix#/}
  [ -z "$key_prefix" ] || key_prefix=${key_prefix%/}/
else
  target=volume
  : "${BACKUP_DIR:?BACKUP_DIR or S3_BUCKET must be set}"
fi

scratch=$(mktemp -d "$scratch_root/cellar-backup-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# The stored dumps of this Database, oldest first, as "NAME SIZE" lines.
stored_dumps() {
  local pattern="^${BACKUP_NAME//./\\.}-[0-9]{8}T[0-9]{6}Z\\.sql\\.gz\$"
  if [ "$target" = s3 ]; then
    if ! s3_list "$key_prefix$BACKUP_NAME-" >"$scratch/list"; then
      echo "$s3_error" >"$scratch/list.err"
      return 1
    fi
    # bash's own regular expressions, not awk's: mawk (Debian's default awk, in the PostgreSQL
    # images) has no {n} intervals, and matched no dump, so retention never removed one.
    local key bytes
    sed "s:^$key_prefix::" "$scratch/list" | while read -r key bytes; do
      [[ $key =~ $pattern ]] && printf '%s %s\n' "$key" "$bytes"
    done | sort
  else
    local f
    shopt -s nullglob
    for f in "$BACKUP_DIR/$BACKUP_NAME-"*.sql.gz; do
      f=${f##*/}
      [[ $f =~ $pattern ]] && printf '%s %s\n' "$f" "$(stat -c %s "$BACKUP_DIR/$f")"
    done | sort
  fi
}

location_of() {
  if [ "$target" = s3 ]; then
    printf 's3://%s/%s%s' "$S3_BUCKET" "$key_prefix" "$1"
  else
    printf 'pvc://%s/%s' "${BACKUP_CLAIM:-$BACKUP_DIR}" "$1"
  fi
}

# verify NAME: reads the stored dump back and restores it into a throwaway server.
verify() {
  local dump=$scratch/verify.sql.gz out=$scratch/verify.out
  if [ "$target" = s3 ]; then
    s3_get "$key_prefix$1" "$dump" || fail verify "reading $1 back: $s3_error"
  else
    dump=$BACKUP_DIR/$1
    [ -f "$dump" ] || fail verify "no dump $1 in $BACKUP_DIR"
  fi
  size=$(stat -c %s "$dump")
  gzip -t "$dump" 2>"$out" || fail verify "$1 is not a valid gzip file (corrupt or truncated): $(grep -v '^$' "$out" | head -n 1 | sed 's/^gzip: [^:]*: //')"
  if ! gzip -dc "$dump" | CELLAR_SCRATCH=$scratch bash "$VERIFY_SCRIPT" >"$out" 2>&1; then
    fail verify "$1 did not restore into a throwaway server: $(grep -m 1 -iE 'error|fatal|unexpected|invalid' "$out" || tail -n 1 "$out")"
  fi
  verification=$(tail -n 1 "$out")
  verified=true
}

if [ "${BACKUP_MODE:-backup}" = verify ]; then
  [ -n "${VERIFY_SCRIPT:-}" ] || fail configuration "BACKUP_MODE=verify needs VERIFY_SCRIPT"
  name=${VERIFY_BACKUP:-latest}
  if [ "$name" = latest ]; then
    list=$(stored_dumps) || fail list "$(cat "$scratch/list.err")"
    name=$(tail -n 1 <<<"$list" | cut -d' ' -f1)
    [ -n "$name" ] || fail verify "no dump of $BACKUP_NAME at $(location_of '')"
  fi
  verify "$name"
  location=$(location_of "$name")
else
  # 1. The dump, to a temporary file first: a failed dump never counts as a backup nor pushes a
  # good one out of the retention window.
  name="$BACKUP_NAME-$(date -u +%Y%m%dT%H%M%SZ).sql.gz"
  : "${DUMP_COMMAND:?}"
  if [ "$target" = s3 ]; then
    partial=$scratch/$name
  else
    partial=$BACKUP_DIR/$name.partial
  fi
  if ! bash -c "$DUMP_COMMAND" 2>"$scratch/dump.err" | gzip >"$partial"; then
    rm -f "$partial"
    fail dump "the dump failed: $(grep -v '^$' "$scratch/dump.err" | tail -n 1)"
  fi
  size=$(stat -c %s "$partial")

  # 2. Stored.
  if [ "$target" = s3 ]; then
    s3_put "$partial" "$key_prefix$name" || fail upload "$s3_error"
    rm -f "$partial"
  else
    mv "$partial" "$BACKUP_DIR/$name"
  fi
  location=$(location_of "$name")
  echo "backup written: $location ($size bytes) in $SECONDS s"

  # 3. Retention, counting only complete dumps of this Database.
  list=$(stored_dumps) || fail retention "listing the dumps: $(cat "$scratch/list.err")"
  mapfile -t dumps < <(cut -d' ' -f1 <<<"$list" | sed '/^$/d')
  old=$((${#dumps[@]} - RETENTION))
  for ((i = 0; i < old; i++)); do
    if [ "$target" = s3 ]; then
      s3_delete "$key_prefix${dumps[i]}" || fail retention "deleting ${dumps[i]}: $s3_error"
    else
      rm -f -- "${BACKUP_DIR:?}/${dumps[i]}"
    fi
    echo "retention: removed ${dumps[i]}"
  done

  # 4. Verification of what was stored.
  if [ -n "${VERIFY_SCRIPT:-}" ]; then
    verify_start=$SECONDS
    verify "$name"
    echo "verification: $((SECONDS - verify_start)) s"
  fi
fi

finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)
[ -z "$verification" ] || echo "verified: $verification"
write_result "{\"result\":\"succeeded\",\"name\":$(json_string "$name"),\"location\":$(json_string "$location"),\"sizeBytes\":$size,\"startTime\":$(json_string "$started"),\"completionTime\":$(json_string "$finished"),\"verified\":$verified,\"verification\":$(json_string "$verification")}"
