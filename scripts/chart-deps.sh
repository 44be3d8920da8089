#!/usr/bin/env bash
# Puts the chart's dependency, upstream Metacontroller's chart (metacontroller-helm, alias
# metacontroller), into charts/ironhook/charts/ without the OCI registry, so `helm lint`,
# `helm template`, `helm package` and `helm install` work offline. The tgz is git-ignored.
#
# Usage: scripts/chart-deps.sh
#
# Where the chart comes from, first match wins:
#   1. charts/ironhook/charts/metacontroller-helm-<version>.tgz already there (kept as it is);
#   2. $METACONTROLLER_CHART_DIR: an unpacked deploy/helm/metacontroller of the matching release
#      (a checkout, or `helm pull oci://ghcr.io/metacontroller/metacontroller-helm --untar`
#      on a machine that reaches the registry);
#   3. the Go module github.com/metacontroller/metacontroller at the pseudo-version pinned in
#      tools/metacontroller/go.mod (`go mod download`; module zips contain the repository's
#      deploy/helm/metacontroller).
# The result is checked: name metacontroller-helm, the version Chart.yaml asks for.
#
# Exit status: 0 the dependency is in place; 3 it could not be obtained (the message says from
# where and why; docs/helm.md "Installing from a checkout" has the way around); 2 other errors.
# Chart.lock is not written: helm needs it only for `helm dependency build`, which would go to
# the registry anyway.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHART="$ROOT/charts/ironhook"
CACHE="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}"
HELM="${HELM:-$CACHE/bin/helm}"
NAME=metacontroller-helm
MODULE=github.com/metacontroller/metacontroller

log() { printf '[chart-deps] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }
unavailable() { log "UNAVAILABLE: $*"; exit 3; }

if [[ ! -x $HELM ]]; then
  log "no helm at $HELM; building it (scripts/setup-test-binaries.sh helm)"
  "$ROOT/scripts/setup-test-binaries.sh" helm >&2 || die "could not build helm"
fi

# The version Chart.yaml pins for the dependency, from helm itself.
VERSION="$("$HELM" dependency list "$CHART" 2>/dev/null | awk -v n="$NAME" '$1 == n { print $2 }')"
[[ -n $VERSION ]] || die "charts/ironhook/Chart.yaml has no dependency named $NAME"
TGZ="$CHART/charts/$NAME-$VERSION.tgz"

# Checks that a packaged or unpacked chart is metacontroller-helm at $VERSION.
check_chart() {
  local meta name version
  meta="$("$HELM" show chart "$1")" || return 1
  name="$(sed -n 's/^name: *//p' <<<"$meta" | head -n1)"
  version="$(sed -n 's/^version: *//p' <<<"$meta" | head -n1)"
  if [[ $name != "$NAME" || $version != "$VERSION" ]]; then
    log "$1 is $name $version, not $NAME $VERSION"
    return 1
  fi
}

package_from() {
  local src=$1 tmp
  [[ -f $src/Chart.yaml ]] || unavailable "$src has no Chart.yaml"
  check_chart "$src" || unavailable "$src is not $NAME $VERSION"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  "$HELM" package "$src" --destination "$tmp" >&2 || die "helm package $src failed"
  mkdir -p "$CHART/charts"
  mv -f "$tmp/$NAME-$VERSION.tgz" "$TGZ"
  log "packaged $src -> ${TGZ#"$ROOT"/}"
}

# The module version: the replace target of `metacontroller` in tools/metacontroller/go.mod.
module_version() {
  sed -n "s#^replace metacontroller => $MODULE \(v[^ ]*\)\$#\1#p" "$ROOT/tools/metacontroller/go.mod" | head -n1
}

from_go_module() {
  command -v go >/dev/null || unavailable "go is not on PATH (needed to fetch $MODULE)"
  local version json dir err
  version="$(module_version)"
  [[ -n $version ]] || die "tools/metacontroller/go.mod has no 'replace metacontroller => $MODULE <version>'"
  log "fetching $MODULE@$version through the Go module proxy"
  # Outside any module, so no go.mod/go.sum is touched.
  json="$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod timeout 300 go mod download -json "$MODULE@$version" 2>&1)" || true
  dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json" | head -n1)"
  if [[ -z $dir || ! -d $dir ]]; then
    err="$(sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p' <<<"$json" | head -n1)"
    unavailable "go mod download $MODULE@$version failed: ${err:-$json}"
  fi
  package_from "$dir/deploy/helm/metacontroller"
}

if [[ -f $TGZ ]] && check_chart "$TGZ"; then
  log "ok: ${TGZ#"$ROOT"/}"
elif [[ -n ${METACONTROLLER_CHART_DIR:-} ]]; then
  package_from "$METACONTROLLER_CHART_DIR"
else
  from_go_module
fi
"$HELM" dependency list "$CHART" | awk -v n="$NAME" '$1 == n && $4 != "ok" { bad = 1 } END { exit bad }' ||
  die "helm dependency list does not report $NAME as ok"
