#!/usr/bin/env bash
# The real node's container images, built here because no container registry is reachable:
#   pause     cellar.local/pause:1        the pod sandbox (pause/main.go, standard library only)
#   postgres  cellar.local/postgres:15    Debian's postgresql-15 plus images/postgres/
#   mariadb   cellar.local/mariadb:10.11  Debian's mariadb-server (10.11) plus images/mariadb/
#   postgres17 cellar.local/postgres:17   Debian trixie's postgresql-17 plus images/postgres/ (the
#                                         target of the major upgrade tests: bookworm has only 15)
#   postgres-exporter cellar.local/postgres-exporter:0.17.1  Debian trixie's
#                                         prometheus-postgres-exporter
#   mysqld-exporter   cellar.local/mysqld-exporter:0.17.2    Debian trixie's
#                                         prometheus-mysqld-exporter
# The database images are root file systems made by mmdebstrap from the Debian sources apt is
# configured with (/etc/apt/sources.list*), with this project's entrypoints honouring the official
# images' environment contract; postgres17 from Debian's trixie suite, named to mmdebstrap alone
# (the machine's own apt sources are left alone). The exporter images (the metrics sidecars that
# spec.monitoring.image names on the real node) are trixie's packages too: bookworm's
# mysqld_exporter (0.14) predates the --mysqld.address and --mysqld.username flags Cellar passes.
# They hold the exporter, its libraries and no shell (mmdebstrap's extract variant: no package
# is configured) and run as nobody (65534), as the upstream images do. Each image is one OCI
# archive, kept in
# $CELLAR_CACHE/images/<name>-<recipe hash>.tar and rebuilt only when its recipe changes: this
# script, the image's files, and the package versions apt would install.
#
# Usage: e2e/realnode/images.sh build [NAME...]          build what is missing; print the archives
#        e2e/realnode/images.sh import SOCKET [NAME...]  build, then import into containerd's k8s.io
#                                                       namespace through SOCKET (skips present ones)
#        e2e/realnode/images.sh ref NAME                 print the image reference
# NAME: pause, postgres, mariadb, postgres17, postgres-exporter, mysqld-exporter (default: all).
# Needs root, mmdebstrap, jq and Go.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self=$here/$(basename "${BASH_SOURCE[0]}")
cache=${CELLAR_CACHE:-$HOME/.cache/cellar}/images
ALL=(pause postgres mariadb postgres17 postgres-exporter mysqld-exporter)

say() { echo "realnode images: $*" >&2; }
die() { echo "realnode images: error: $*" >&2; exit 1; }

ref() {
  case $1 in
    pause) echo cellar.local/pause:1 ;;
    postgres) echo cellar.local/postgres:15 ;;
    postgres17) echo cellar.local/postgres:17 ;;
    mariadb) echo cellar.local/mariadb:10.11 ;;
    # The upstream version of trixie's package: the build fails when trixie's differs.
    postgres-exporter) echo cellar.local/postgres-exporter:0.17.1 ;;
    mysqld-exporter) echo cellar.local/mysqld-exporter:0.17.2 ;;
    *) die "unknown image '$1' (one of: ${ALL[*]})" ;;
  esac
}

# Debian packages each database image installs (besides the essential set). curl (7.75+, for its
# AWS signatures) and the CA certificates carry backups to and from S3-compatible object storage.
packages() {
  case $1 in
    postgres) echo mawk curl ca-certificates postgresql-15 postgresql-client-15 ;;
    postgres17) echo mawk curl ca-certificates postgresql-17 postgresql-client-17 ;;
    mariadb) echo mawk curl ca-certificates mariadb-server mariadb-client ;;
    postgres-exporter) echo prometheus-postgres-exporter ;;
    mysqld-exporter) echo prometheus-mysqld-exporter ;;
  esac
}

# The recipe of an image: the functions of this script that make it, its files, and for the
# database images the versions of their packages that apt would install now.
recipe_hash() {
  local name=$1
  {
    declare -f ref oci_archive blob
    if [ "$name" = pause ]; then
      declare -f build_pause
      cat "$here/pause/go.mod" "$here/pause/main.go"
    elif is_exporter "$name"; then
      declare -f packages is_exporter build_exporter customize_exporter exporter_binary exporter_flags runtime_config
      # As for postgres17: trixie's suite and the package stand for the version, which the
      # build checks against the one ref() names.
      echo "$TRIXIE_SOURCE $(packages "$name")"
    else
      declare -f packages build_db customize runtime_config debian_sources major_of files_of
      cat "$here/images/$(files_of "$name")"/*
      if [ "$name" = postgres17 ]; then
        # This machine's apt does not see trixie: its suite and packages stand for the versions.
        echo "$TRIXIE_SOURCE"
      else
        # shellcheck disable=SC2046 # one word per package
        apt-cache policy $(packages "$name") 2>/dev/null | grep -E '^[^ ]|Candidate'
      fi
    fi
  } | sha256sum | cut -c1-12
}
# The Debian suite the PostgreSQL 17 image comes from, given to mmdebstrap only.
TRIXIE_SOURCE="deb http://deb.debian.org/debian trixie main"
major_of() { case $1 in postgres) echo 15 ;; postgres17) echo 17 ;; esac; }
files_of() { case $1 in postgres17) echo postgres ;; *) echo "$1" ;; esac; }
archive_of() { echo "$cache/$1-$(recipe_hash "$1").tar"; }
is_exporter() { case $1 in *-exporter) return 0 ;; *) return 1 ;; esac; }

# ---------------------------------------------------------------------------------------------
# OCI archives: one uncompressed layer, a config, a manifest and an index that names the image.

blob() { # blob FILE: move FILE into the layout's blobs by its digest; print "sha256:HEX SIZE"
  local hex size
  hex=$(sha256sum "$1" | cut -d' ' -f1)
  size=$(stat -c %s "$1")
  mv "$1" "$layout/blobs/sha256/$hex"
  echo "sha256:$hex $size"
}

# oci_archive NAME ROOTFS_TAR OUT CONFIG_JSON: CONFIG_JSON is the image's runtime config object.
oci_archive() {
  local name=$1 rootfs=$2 out=$3 runtime=$4 layout layer layer_size config config_size manifest manifest_size
  layout=$(mktemp -d "$cache/.layout-XXXXXX")
  mkdir -p "$layout/blobs/sha256"
  read -r layer layer_size < <(blob "$rootfs")
  jq -n --argjson runtime "$runtime" --arg layer "$layer" --arg by "$(basename "$self")" '{
      architecture: "amd64", os: "linux", created: "1970-01-01T00:00:00Z", config: $runtime,
      rootfs: {type: "layers", diff_ids: [$layer]},
      history: [{created: "1970-01-01T00:00:00Z", created_by: $by}]}' >"$layout/config.json"
  read -r config config_size < <(blob "$layout/config.json")
  jq -n --arg config "$config" --argjson config_size "$config_size" \
    --arg layer "$layer" --argjson layer_size "$layer_size" '{
      schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $config, size: $config_size},
      layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $layer, size: $layer_size}]}' \
    >"$layout/manifest.json"
  read -r manifest manifest_size < <(blob "$layout/manifest.json")
  jq -n --arg manifest "$manifest" --argjson size "$manifest_size" --arg ref "$(ref "$name")" '{
      schemaVersion: 2,
      manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $manifest, size: $size,
        platform: {architecture: "amd64", os: "linux"},
        annotations: {"io.containerd.image.name": $ref, "org.opencontainers.image.ref.name": ($ref | split(":")[1])}}]}' \
    >"$layout/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$layout/oci-layout"
  tar -C "$layout" --owner=0 --group=0 --numeric-owner -cf "$out.tmp" oci-layout index.json blobs
  rm -rf "$layout"
  mv "$out.tmp" "$out"
}

# ---------------------------------------------------------------------------------------------
# The images

build_pause() {
  local out=$1 root
  command -v go >/dev/null || die "no Go toolchain on PATH: the pause image is built with it"
  root=$(mktemp -d "$cache/.pause-XXXXXX")
  (cd "$here/pause" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags '-s -w' -o "$root/pause" .)
  tar -C "$root" --owner=0 --group=0 --numeric-owner --mtime=@0 -cf "$root.tar" pause
  rm -rf "$root"
  oci_archive pause "$root.tar" "$out" '{"Entrypoint": ["/pause"], "User": "65535:65535"}'
}

# shellcheck source=/dev/null
codename() { (. /etc/os-release && echo "${VERSION_CODENAME:-}"); }

# The apt sources of this machine that carry its Debian release, for mmdebstrap to copy.
debian_sources() {
  local codename f
  codename=$(codename)
  [ -n "$codename" ] || die "cannot tell the Debian release from /etc/os-release"
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && grep -Eq "^[^#]*\b$codename\b" "$f" && echo "$f"
  done
  return 0
}

# build_db NAME OUT RUNTIME_CONFIG: a root file system from Debian's packages, then the archive.
build_db() {
  local name=$1 out=$2 runtime=$3 codename sources rootfs
  command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: run e2e/realnode/install-deps.sh"
  if [ "$name" = postgres17 ]; then
    codename=trixie sources=("$TRIXIE_SOURCE")
  else
    codename=$(codename)
    mapfile -t sources < <(debian_sources)
    [ ${#sources[@]} -gt 0 ] || die "no apt source under /etc/apt carries '$codename'"
  fi
  rootfs=$(mktemp -u "$cache/.$name-XXXXXX.tar")
  # The uid and gid 999 of the official images' database user, in place before the packages'
  # maintainer scripts create the user (they keep an existing one).
  local user home
  case $name in postgres*) user=postgres home=/var/lib/postgresql ;; mariadb) user=mysql home=/nonexistent ;; esac
  local hooks=(--essential-hook="echo '$user:x:999:999::$home:/bin/bash' >>\"\$1/etc/passwd\"; echo '$user:x:999:' >>\"\$1/etc/group\"")
  # No cluster made by the package: the entrypoint initialises PGDATA.
  # shellcheck disable=SC2016 # $1 is mmdebstrap's, expanded by its hook shell
  [ "$(files_of "$name")" != postgres ] || hooks+=(--essential-hook='mkdir -p "$1/etc/postgresql-common" && echo "create_main_cluster = false" >"$1/etc/postgresql-common/createcluster.conf"')
  # /run is kept (customize empties it and makes the sockets' directories there).
  mmdebstrap --quiet --variant=essential --mode=root --format=tar --skip=cleanup/run \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    "${hooks[@]}" \
    --include="$(packages "$name" | tr ' ' ,)" \
    --customize-hook="\"$self\" customize $name \"\$1\"" \
    "$codename" "$rootfs" "${sources[@]}" >&2 || die "mmdebstrap failed for $name"
  oci_archive "$name" "$rootfs" "$out" "$runtime"
}

# customize NAME ROOT: the image's own files and directories, inside mmdebstrap's root.
customize() {
  local name=$1 root=$2
  install -m 0755 "$here/images/$(files_of "$name")"/*.sh "$root/usr/local/bin/"
  rm -rf "${root:?}/run/"*
  install -d -m 1777 "$root/run/lock"
  mkdir -p "$root/docker-entrypoint-initdb.d"
  case $name in
    postgres*)
      rm -rf "${root:?}/var/lib/postgresql/"*
      install -d -o 999 -g 999 -m 0755 "$root/var/lib/postgresql"
      install -d -o 999 -g 999 -m 1777 "$root/var/lib/postgresql/data"
      install -d -o 999 -g 999 -m 3777 "$root/run/postgresql"
      # As in the official image: a new cluster listens on every address.
      sed -i "s/^#listen_addresses = 'localhost'/listen_addresses = '*'/" \
        "$root/usr/share/postgresql/$(major_of "$name")/postgresql.conf.sample"
      ;;
    mariadb)
      rm -rf "${root:?}/var/lib/mysql/"*
      install -d -o 999 -g 999 -m 0755 "$root/var/lib/mysql"
      install -d -o 999 -g 999 -m 0777 "$root/run/mysqld"
      # Debian's server listens on 127.0.0.1 only; the official image listens everywhere and
      # resolves no host names.
      sed -i 's/^bind-address/#bind-address/' "$root/etc/mysql/mariadb.conf.d/50-server.cnf"
      printf '[mariadb]\nhost-cache-size=0\nskip-name-resolve\n' >"$root/etc/mysql/mariadb.conf.d/05-skipcache.cnf"
      ;;
  esac
  rm -f "$root/etc/machine-id" "$root/var/lib/dbus/machine-id"
}

# The exporter's program, as Debian names it, and the flags of it that Cellar's engine profiles
# pass (exporterArgs; postgres_exporter takes its connection from DATA_SOURCE_* variables).
exporter_binary() { echo "/usr/bin/prometheus-$1"; }
exporter_flags() {
  case $1 in
    postgres-exporter) echo --web.listen-address ;;
    mysqld-exporter) echo --web.listen-address --mysqld.address --mysqld.username --tls.insecure-skip-verify ;;
  esac
}

# build_exporter NAME OUT RUNTIME_CONFIG: trixie's exporter package, extracted (not configured:
# its maintainer scripts only make a system user and a service, which a container has no use
# for), with its dependencies' files: libc is what the program needs of them.
build_exporter() {
  local name=$1 out=$2 runtime=$3 rootfs
  command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: run e2e/realnode/install-deps.sh"
  rootfs=$(mktemp -u "$cache/.$name-XXXXXX.tar")
  # merged /usr: the symlinks /lib64 -> usr/lib64 and so on, which trixie's packages expect and
  # only a configured root gets otherwise (the program's loader is /lib64/ld-linux-x86-64.so.2).
  # gconv (8 MiB) serves iconv, which a Go program does not call.
  # shellcheck disable=SC2016 # $1 is mmdebstrap's, expanded by its hook shell
  mmdebstrap --quiet --variant=extract --mode=root --format=tar \
    --setup-hook='for d in bin sbin lib lib64; do mkdir -p "$1/usr/$d" && ln -s "usr/$d" "$1/$d"; done' \
    --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/gconv/*' \
    --include="$(packages "$name")" \
    --extract-hook="\"$self\" customize-exporter $name \"\$1\"" \
    trixie "$rootfs" "$TRIXIE_SOURCE" >&2 || die "mmdebstrap failed for $name"
  oci_archive "$name" "$rootfs" "$out" "$runtime"
}

# customize-exporter NAME ROOT (mmdebstrap's extract hook: the extract variant runs no other):
# the accounts of nobody, and a check that the program runs in the root, is the version ref()
# names and takes the flags Cellar passes.
customize_exporter() {
  local name=$1 root=$2 binary version wanted help flag
  binary=$(exporter_binary "$name")
  # No package is configured, so base-passwd's files are missing: root and nobody, as in the
  # upstream images (busybox's).
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  install -d -m 1777 "$root/tmp"
  version=$(chroot "$root" "$binary" --version 2>&1 | awk '/version/ {print $3; exit}') ||
    die "$binary does not run in its image"
  wanted=$(ref "$name")
  wanted=${wanted##*:}
  [ "$version" = "$wanted" ] ||
    die "trixie's $(packages "$name") is version '$version', ref() names $wanted: update ref() (and docs/monitoring.md, e2e/realnode/README.md)"
  help=$(chroot "$root" "$binary" --help 2>&1) || true
  for flag in $(exporter_flags "$name"); do
    [[ $help == *"$flag"* ]] || die "$binary $version has no $flag, which Cellar passes"
  done
  rm -f "$root/etc/machine-id"
}

runtime_config() {
  local path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  case $1 in
    *-exporter) # before postgres*, which would match postgres-exporter
      jq -n --arg path "$path" --arg binary "$(exporter_binary "$1")" \
        --arg port "$(case $1 in postgres-exporter) echo 9187 ;; *) echo 9104 ;; esac)" '{
        Env: ["PATH=\($path)"], Entrypoint: [$binary], User: "65534:65534",
        ExposedPorts: {"\($port)/tcp": {}}}' ;;
    postgres*)
      jq -n --arg path "$path:/usr/lib/postgresql/$(major_of "$1")/bin" --arg major "$(major_of "$1")" '{
        Env: ["PATH=\($path)", "LANG=C.UTF-8", "PG_MAJOR=\($major)", "PGDATA=/var/lib/postgresql/data"],
        Entrypoint: ["docker-entrypoint.sh"], Cmd: ["postgres"], StopSignal: "SIGINT",
        ExposedPorts: {"5432/tcp": {}}, Volumes: {"/var/lib/postgresql/data": {}}}' ;;
    mariadb)
      jq -n --arg path "$path" '{
        Env: ["PATH=\($path)", "LANG=C.UTF-8", "MARIADB_MAJOR=10.11"],
        Entrypoint: ["docker-entrypoint.sh"], Cmd: ["mariadbd"], StopSignal: "SIGTERM",
        ExposedPorts: {"3306/tcp": {}}, Volumes: {"/var/lib/mysql": {}}}' ;;
  esac
}

build() { # build NAME: the archive, built if missing; prints its path
  local name=$1 out start=$SECONDS
  out=$(archive_of "$name")
  if [ ! -f "$out" ]; then
    mkdir -p "$cache"
    say "building $(ref "$name") into $out"
    case $name in
      pause) build_pause "$out" ;;
      *-exporter) build_exporter "$name" "$out" "$(runtime_config "$name")" ;;
      *) build_db "$name" "$out" "$(runtime_config "$name")" ;;
    esac
    say "built $(ref "$name") in $((SECONDS - start)) s ($(du -m "$out" | cut -f1) MiB)"
  fi
  # Older recipes of this image unused for a day go (another worktree may still use a recent one).
  # Twelve characters of hash: postgres-* would also match postgres-exporter's archives.
  touch "$out"
  find "$cache" -maxdepth 1 -name "$name-????????????.tar" ! -path "$out" -mtime +0 -delete
  echo "$out"
}

cmd_import() {
  local socket=$1 name archive; shift
  for name in "$@"; do
    archive=$(build "$name")
    # The archive's digest is in its name: skip an image containerd already has from it.
    local present wanted
    present=$(ctr --address "$socket" -n k8s.io images ls "name==$(ref "$name")" 2>/dev/null | awk 'NR == 2 {print $3}')
    wanted=$(tar -xOf "$archive" index.json | jq -r '.manifests[0].digest')
    [ "$present" != "$wanted" ] || continue
    local start=$SECONDS
    ctr --address "$socket" -n k8s.io images import "$archive" >/dev/null ||
      die "ctr could not import $archive"
    say "imported $(ref "$name") in $((SECONDS - start)) s"
  done
}

mkdir -p "$cache"
cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
  build) [ $# -gt 0 ] || set -- "${ALL[@]}"; for n in "$@"; do ref "$n" >/dev/null; build "$n"; done ;;
  import) [ $# -gt 0 ] || die "usage: $0 import SOCKET [NAME...]"
    s=$1; shift; [ $# -gt 0 ] || set -- "${ALL[@]}"; cmd_import "$s" "$@" ;;
  ref) ref "${1:-}" ;;
  customize) customize "$@" ;;
  customize-exporter) customize_exporter "$@" ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
