#!/usr/bin/env bash
# Puts the chart's dependency, upstream Metacontroller's chart (metacontroller-helm, alias
# metacontroller), into charts/ironhook/charts/ without the OCI registry, so `helm lint`,
# `helm template`, `helm package` and `helm install` work offline. The tgz is git-ignored.
# Helm needs it even with metacontroller.enabled=false: it refuses to render a chart whose
# declared dependency is missing from charts/.
#
# Usage: scripts/chart-deps.sh
#
# Where the chart comes from, first match wins:
#   1. charts/ironhook/charts/metacontroller-helm-<version>.tgz already there and named and
#      versioned as Chart.yaml asks (kept as it is);
#   2. $METACONTROLLER_CHART_DIR: an unpacked deploy/helm/metacontroller of the matching release
#      (a checkout, or `helm pull oci://ghcr.io/metacontroller/metacontroller-helm --untar`);
#   3. the upstream source tarball, $METACONTROLLER_SOURCE_TARBALL, by default
#      <repo>/../shared/vendor/metacontroller-<version>.tar.gz (`git archive` of the release
#      commit, top folder metacontroller-<version>/; shared/vendor/README.md). Its sha256 is
#      checked against PINNED_SHA256 below first and a mismatch is refused; then only
#      metacontroller-<version>/deploy/helm/metacontroller is extracted, into a temporary
#      folder, and packaged with `helm package`;
#   4. only with METACONTROLLER_GIT_CLONE=1 (a machine with internet access; never tried
#      otherwise, so nothing leaves the machine by default):
#      `git clone --depth 1 --branch v<version> https://github.com/metacontroller/metacontroller`
#      into a temporary folder, then its deploy/helm/metacontroller as in 2.
# The result is checked: name metacontroller-helm, the version Chart.yaml asks for, and
# `helm dependency list` reporting it ok.
#
# Exit status: 0 the dependency is in place; 3 no source is available (the message names what
# was looked for); 4 the source tarball's sha256 does not match (refused); 2 other errors.
# Chart.lock is not written: helm needs it only for `helm dependency build`, which would go to
# the registry anyway.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CHART="$ROOT/charts/ironhook"
CACHE="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}"
HELM="${HELM:-$CACHE/bin/helm}"
NAME=metacontroller-helm
REPO_URL=https://github.com/metacontroller/metacontroller
# The release the tarball's checksum belongs to; update both together with Chart.yaml.
PINNED_VERSION=4.17.2
PINNED_SHA256=71242194978649546c50f6970bc117b883699a46c66f4eb16298bcdbb8b722a3

log() { printf '[chart-deps] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }
unavailable() { log "UNAVAILABLE: $*"; exit 3; }
refuse() { log "REFUSED: $*"; exit 4; }

# Scratch space for extracting, cloning and packaging; removed on exit.
WORK="$(mktemp -d "${TMPDIR:-/tmp}/chart-deps.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

if [[ ! -x $HELM ]]; then
  log "no helm at $HELM; building it (scripts/setup-test-binaries.sh helm)"
  "$ROOT/scripts/setup-test-binaries.sh" helm >&2 || die "could not build helm"
fi

# One run at a time (the test files prepare the chart in parallel): the others wait, then keep
# what the first one packaged.
mkdir -p "$CHART/charts" "$ROOT/.ironhook"
if command -v flock >/dev/null; then
  exec 9>"$ROOT/.ironhook/chart-deps.lock"
  flock -w 600 9 || die "another scripts/chart-deps.sh holds .ironhook/chart-deps.lock"
fi

# The version Chart.yaml pins for the dependency, from helm itself.
VERSION="$("$HELM" dependency list "$CHART" 2>/dev/null | awk -v n="$NAME" '$1 == n { print $2 }')"
[[ -n $VERSION ]] || die "charts/ironhook/Chart.yaml has no dependency named $NAME"
TGZ="$CHART/charts/$NAME-$VERSION.tgz"
TARBALL="${METACONTROLLER_SOURCE_TARBALL:-$(dirname "$ROOT")/shared/vendor/metacontroller-$VERSION.tar.gz}"

# Checks that a packaged or unpacked chart is metacontroller-helm at $VERSION.
check_chart() {
  local meta name version
  meta="$("$HELM" show chart "$1" 2>/dev/null)" || { log "$1 is not a chart helm can read"; return 1; }
  name="$(sed -n 's/^name: *//p' <<<"$meta" | head -n1)"
  version="$(sed -n 's/^version: *//p' <<<"$meta" | head -n1)"
  if [[ $name != "$NAME" || $version != "$VERSION" ]]; then
    log "$1 is $name $version, not $NAME $VERSION"
    return 1
  fi
}

package_from() {
  local src=$1 out
  [[ -f $src/Chart.yaml ]] || unavailable "$src has no Chart.yaml"
  check_chart "$src" || unavailable "$src is not $NAME $VERSION"
  out="$WORK/package"
  mkdir -p "$out"
  "$HELM" package "$src" --destination "$out" >&2 || die "helm package $src failed"
  # Copied next to the target under a name helm skips (leading dot), then renamed: a helm run
  # reading charts/ meanwhile sees the old tgz or the new one, never half of one.
  cp "$out/$NAME-$VERSION.tgz" "$CHART/charts/.$NAME-$VERSION.tgz.$$"
  mv -f "$CHART/charts/.$NAME-$VERSION.tgz.$$" "$TGZ"
  log "packaged $src -> ${TGZ#"$ROOT"/}"
}

from_tarball() {
  local sum top="metacontroller-$VERSION" dir
  [[ $VERSION == "$PINNED_VERSION" ]] ||
    die "Chart.yaml asks for $NAME $VERSION, but this script pins the tarball checksum of $PINNED_VERSION (update PINNED_VERSION and PINNED_SHA256)"
  sum="$(sha256sum "$TARBALL" | awk '{ print $1 }')" || die "could not read $TARBALL"
  [[ $sum == "$PINNED_SHA256" ]] || refuse "$TARBALL has sha256 $sum, expected $PINNED_SHA256"
  log "sha256 ok: $TARBALL"
  dir="$WORK/source"
  mkdir -p "$dir"
  tar -xzf "$TARBALL" -C "$dir" --no-same-owner --no-same-permissions "$top/deploy/helm/metacontroller" ||
    die "$TARBALL has no $top/deploy/helm/metacontroller"
  package_from "$dir/$top/deploy/helm/metacontroller"
}

from_git_clone() {
  local dir
  command -v git >/dev/null || unavailable "git is not on PATH (METACONTROLLER_GIT_CLONE=1)"
  dir="$WORK/clone"
  log "cloning $REPO_URL at v$VERSION"
  timeout 300 git clone --quiet --depth 1 --branch "v$VERSION" "$REPO_URL" "$dir" >&2 ||
    unavailable "git clone --depth 1 --branch v$VERSION $REPO_URL failed"
  package_from "$dir/deploy/helm/metacontroller"
}

if [[ -f $TGZ ]] && check_chart "$TGZ"; then
  log "ok: ${TGZ#"$ROOT"/} (kept)"
elif [[ -n ${METACONTROLLER_CHART_DIR:-} ]]; then
  package_from "$METACONTROLLER_CHART_DIR"
elif [[ -f $TARBALL ]]; then
  from_tarball
elif [[ ${METACONTROLLER_GIT_CLONE:-} == 1 ]]; then
  from_git_clone
else
  unavailable "no $NAME $VERSION: no ${TGZ#"$ROOT"/}, METACONTROLLER_CHART_DIR unset, no source tarball at $TARBALL (set METACONTROLLER_SOURCE_TARBALL), and METACONTROLLER_GIT_CLONE=1 not set for cloning $REPO_URL"
fi
"$HELM" dependency list "$CHART" | awk -v n="$NAME" '$1 == n && $4 != "ok" { bad = 1 } END { exit bad }' ||
  die "helm dependency list does not report $NAME as ok"
