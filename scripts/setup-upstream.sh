#!/usr/bin/env bash
# Builds upstream Metal3 for the scale bench's side-by-side run (docs/dev/scale.md, "Upstream"):
# baremetal-operator v0.13.2 from the Go module proxy, and Ironic 39.0.0 standalone from PyPI in
# a virtualenv, into ${IRONHOOK_CACHE:-$HOME/.cache/ironhook}/upstream. Sources and packages only,
# nothing prebuilt. The recipe and why each step is as it is: ../shared/reference/upstream-baseline.md.
#
# Usage: scripts/setup-upstream.sh [--force]
# Idempotent: a stamp per part records what built it; a part whose stamp matches is reused.
set -euo pipefail

CACHE="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}/upstream"
BMO_VERSION=v0.13.2
# The proxy serves pkg/hardwareutils at v0.13.1 only; its files equal v0.13.2's.
HARDWAREUTILS_VERSION=v0.13.1
# v0.13.2 wants ironic-standalone-operator/api v0.8.2, which the proxy refuses; v0.8.0 differs
# only in constants BMO uses for the Ironic CR integration, which the bench does not run.
ISO_API_VERSION=v0.8.0
IRONIC_VERSION=39.0.0
FORCE=0
[[ "${1:-}" == "--force" ]] && FORCE=1

log() { printf '[setup-upstream] %s\n' "$*" >&2; }

# cached STAMP WANT BINARY LABEL: true (and says so) when BINARY exists and STAMP records WANT.
cached() {
  if [[ $FORCE == 0 && -f "$1" && "$(cat "$1")" == "$2" && -x "$3" ]]; then
    log "$4: cached"
    return 0
  fi
  return 1
}

build_bmo() {
  local stamp="$CACHE/bmo.stamp" want="bmo $BMO_VERSION hardwareutils $HARDWAREUTILS_VERSION iso-api $ISO_API_VERSION"
  cached "$stamp" "$want" "$CACHE/bmo/manager" "baremetal-operator $BMO_VERSION" && return
  log "building baremetal-operator $BMO_VERSION (several minutes on a cold Go cache)"
  local started=$SECONDS tools="$CACHE/bmo-tools"
  rm -rf "$CACHE/bmo" "$tools"
  mkdir -p "$tools" "$CACHE/bmo"
  # Checksum-database lookups for these modules answer 404 through the proxy.
  export GONOSUMDB=github.com/metal3-io GOFLAGS=-mod=mod
  (cd "$tools" && go mod init bmotools >/dev/null 2>&1 && go mod download \
    "github.com/metal3-io/baremetal-operator@$BMO_VERSION" \
    "github.com/metal3-io/baremetal-operator/apis@$BMO_VERSION" \
    "github.com/metal3-io/baremetal-operator/pkg/hardwareutils@$HARDWAREUTILS_VERSION")
  local modules src="$CACHE/bmo/src"
  modules="$(go env GOMODCACHE)/github.com/metal3-io/baremetal-operator"
  # The root module's go.mod replaces ./apis and ./pkg/hardwareutils, separate modules that its
  # zip leaves out: they are put back where the replace directives look.
  cp -r "$modules@$BMO_VERSION" "$src"
  chmod -R u+w "$src"
  cp -r "$modules/apis@$BMO_VERSION" "$src/apis"
  cp -r "$modules/pkg/hardwareutils@$HARDWAREUTILS_VERSION" "$src/pkg/hardwareutils"
  chmod -R u+w "$src"
  echo "replace github.com/metal3-io/ironic-standalone-operator/api => github.com/metal3-io/ironic-standalone-operator/api $ISO_API_VERSION" >>"$src/go.mod"
  (cd "$src" && nice go build -p 2 -trimpath -o "$CACHE/bmo/manager" .)
  rm -rf "$tools"
  echo "$want" >"$stamp"
  log "baremetal-operator built in $((SECONDS - started)) s"
}

install_ironic() {
  local stamp="$CACHE/ironic.stamp" want="ironic $IRONIC_VERSION"
  cached "$stamp" "$want" "$CACHE/ironic-venv/bin/ironic" "Ironic $IRONIC_VERSION" && return
  log "installing Ironic $IRONIC_VERSION into a virtualenv"
  rm -rf "$CACHE/ironic-venv"
  python3 -m venv "$CACHE/ironic-venv"
  "$CACHE/ironic-venv/bin/pip" install --quiet --disable-pip-version-check "ironic==$IRONIC_VERSION" sushy
  echo "$want" >"$stamp"
}

mkdir -p "$CACHE"
install_ironic
build_bmo
