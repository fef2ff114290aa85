#!/bin/sh
# Packages the plugin (run by Maven in the package phase, after the shade plugin):
#   package.sh LAUNCHER JAR TARGET_DIR VERSION
# writes TARGET_DIR/kubectl-cellar (the launcher with the jar appended: one file to copy onto the
# PATH), TARGET_DIR/kubectl-cellar.tar.gz (the archive Krew installs) and
# TARGET_DIR/krew/cellar.yaml (the Krew manifest with the archive's sha256).
set -eu
launcher=$1 jar=$2 target=$3 version=$4
cat "$launcher" "$jar" >"$target/kubectl-cellar"
chmod 755 "$target/kubectl-cellar"
tar -czf "$target/kubectl-cellar.tar.gz" -C "$target" kubectl-cellar
sha=$(sha256sum "$target/kubectl-cellar.tar.gz" | cut -d' ' -f1)
mkdir -p "$target/krew"
sed -e "s/@VERSION@/$version/g" -e "s/@SHA256@/$sha/g" \
  "$(dirname "$0")/../krew/cellar.yaml" >"$target/krew/cellar.yaml"
