# shellcheck shell=bash
# S3 requests for backups and restores, with curl's AWS Signature V4 (curl 7.75 or newer in the
# database image). Path-style URLs: $S3_ENDPOINT/$S3_BUCKET/<key>, signed for $S3_REGION
# (default us-east-1). The keys come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (the
# environment, filled from a Secret) and reach curl through a config on a pipe: never on a command
# line, in a log or in a message.
# Each function that fails sets s3_error to one line saying why.
# shellcheck disable=SC2034 # s3_error is read by the scripts that use these functions

# s3_check: fails with a message saying what is missing (curl, its version, a setting).
s3_check() {
  local version major minor name
  for name in S3_ENDPOINT S3_BUCKET AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY; do
    if [ -z "${!name:-}" ]; then
      s3_error="$name is not set: the object store needs S3_ENDPOINT and S3_BUCKET (from spec) and the credentials Secret's keys AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
      return 1
    fi
  done
  if ! command -v curl >/dev/null 2>&1; then
    s3_error="curl is not installed in this image: backups to object storage need curl 7.75 or newer (for --aws-sigv4); use an image with curl, or back up to the volume (no spec.backup.objectStore)"
    return 1
  fi
  version=$(curl --version 2>/dev/null | awk 'NR == 1 {print $2}')
  major=${version%%.*}
  minor=${version#*.}
  minor=${minor%%.*}
  if ! [[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] || [ "$major" -lt 7 ] ||
    { [ "$major" -eq 7 ] && [ "$minor" -lt 75 ]; }; then
    s3_error="curl ${version:-of unknown version} is too old: backups to object storage need curl 7.75 or newer (for --aws-sigv4)"
    return 1
  fi
}

# The keys as a curl config, quoted for it.
s3_curl_config() {
  local user="$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY"
  user=${user//\\/\\\\}
  user=${user//\"/\\\"}
  printf 'user = "%s"\n' "$user"
}

# s3_request METHOD PATH_AND_QUERY OUTPUT [CURL ARGS...]: one signed request. Sets s3_status to
# the HTTP status (000 when there was no answer) and, on failure, s3_error to one line that says
# why; returns 0 on a 2xx answer.
s3_request() {
  local method=$1 path=$2 output=$3 errfile rc=0
  shift 3
  errfile=$(mktemp)
  s3_status=$(curl -sS -X "$method" -o "$output" -w '%{http_code}' \
    --connect-timeout 10 --retry 2 --retry-connrefused \
    --aws-sigv4 "aws:amz:${S3_REGION:-us-east-1}:s3" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
    -K <(s3_curl_config) "$@" "${S3_ENDPOINT%/}/$S3_BUCKET/$path" 2>"$errfile") || rc=$?
  if [ "$rc" -ne 0 ] && [ "${s3_status:-000}" = 000 ]; then
    s3_error="cannot reach the object store at $S3_ENDPOINT: $(head -n 1 "$errfile")"
    rm -f "$errfile"
    return 1
  fi
  rm -f "$errfile"
  case $s3_status in
    2??) return 0 ;;
  esac
  local code='' message=''
  if [ -f "$output" ]; then
    code=$(sed -n 's:.*<Code>\([^<]*\)</Code>.*:\1:p' "$output" | head -n 1)
    message=$(sed -n 's:.*<Message>\([^<]*\)</Message>.*:\1:p' "$output" | head -n 1)
  fi
  case $code in
    NoSuchBucket) s3_error="bucket $S3_BUCKET does not exist at $S3_ENDPOINT" ;;
    NoSuchKey) s3_error="no object $path in bucket $S3_BUCKET" ;;
    InvalidAccessKeyId | SignatureDoesNotMatch | AccessDenied)
      s3_error="the object store refused the credentials ($code: ${message:-HTTP $s3_status}); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the credentials Secret and the region"
      ;;
    *) s3_error="$method $S3_BUCKET/${path%%\?*} answered HTTP $s3_status${code:+ $code}${message:+: $message}" ;;
  esac
  return 1
}

# A value for a query string, URI-encoded as Signature V4 wants it.
s3_query_value() {
  local s=$1 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [A-Za-z0-9._~-]) out+=$c ;;
      *) out+=$(printf '%%%02X' "'$c") ;;
    esac
  done
  printf '%s' "$out"
}

# s3_put FILE KEY: uploads FILE as KEY.
s3_put() {
  local body
  body=$(mktemp)
  s3_request PUT "$2" "$body" -T "$1" -H 'Content-Type: application/gzip'
  local rc=$?
  rm -f "$body"
  return $rc
}

# s3_get KEY FILE: downloads KEY into FILE.
s3_get() { s3_request GET "$1" "$2"; }

# s3_delete KEY
s3_delete() {
  local body
  body=$(mktemp)
  s3_request DELETE "$1" "$body"
  local rc=$?
  rm -f "$body"
  return $rc
}

# s3_list PREFIX: prints "KEY SIZE" for every object under PREFIX, in key order (at most 1000:
# far more than a retention of 365 keeps).
s3_list() {
  local body rc=0
  body=$(mktemp)
  s3_request GET "?list-type=2&prefix=$(s3_query_value "$1")" "$body" || rc=$?
  if [ "$rc" -eq 0 ]; then
    # One <Contents> element per object; keys and sizes in the same order.
    paste -d' ' \
      <(grep -o '<Key>[^<]*</Key>' "$body" | sed 's:</\{0,1\}Key>::g') \
      <(grep -o '<Size>[^<]*</Size>' "$body" | sed 's:</\{0,1\}Size>::g') | sed '/^ *$/d'
  fi
  rm -f "$body"
  return $rc
}
