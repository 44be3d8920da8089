#!/usr/bin/env bash
# Builds the real control-plane binaries the integration/e2e tests run (etcd, kube-apiserver,
# kube-controller-manager, kubectl, helm, capi-manager, clusterctl, metacontroller), the local node's
# kube-scheduler and kubelet (devenv/node.ts, docs/dev/real-node.md) and the differential
# tests' oracle (upstream Metal3's code, tools/oracle) into
#   ${IRONHOOK_CACHE:-$HOME/.cache/ironhook}/bin
# from the Go tools modules pinned under tools/, and Metacontroller from upstream's v4.17.2 source
# (the shared vendor tarball, checked against its sha256; or, with METACONTROLLER_GIT_CLONE=1 on a
# machine with internet, the v4.17.2 tag cloned from GitHub). Nothing prebuilt is downloaded: only
# sources and Go modules.
#
# Usage: scripts/setup-test-binaries.sh [--force] [NAME...]
#        scripts/setup-test-binaries.sh --tidy-oracle
#   NAME is one of: etcd kube-apiserver kube-controller-manager kubectl kube-scheduler kubelet
#   helm capi-manager capi-kubeadm-bootstrap-manager capi-kubeadm-control-plane-manager
#   cert-manager-controller cert-manager-cainjector clusterctl metacontroller oracle
#   (default: all of them).
#   --force rebuilds even when the stamp matches.
#   --tidy-oracle runs `go mod tidy` for tools/oracle (after its imports change) with the
#   wrapper copies in place, and writes the result back to tools/oracle/go.mod and go.sum.
#
# Idempotent: each binary has a stamp (sha256 of its module's go.mod + go.sum and of the
# build recipe below); a binary whose file exists and whose stamp matches is reused.
# Builds run one after another with -p 2 (the machines have 2 cores). The Go build and module
# caches stay in their default locations, so a rebuild after a pin change is incremental.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}"
BIN="$CACHE/bin"
ALL=(etcd kube-apiserver kube-controller-manager kubectl kube-scheduler kubelet helm metacontroller capi-manager capi-kubeadm-bootstrap-manager capi-kubeadm-control-plane-manager cert-manager-controller cert-manager-cainjector clusterctl oracle)

# Metacontroller's source: its go.mod declares the bare module path `metacontroller`, so the Go
# module proxy refuses github.com/metacontroller/metacontroller and the source comes as a tree.
MC_VERSION=v4.17.2
MC_COMMIT=76b818bdc67ba56570abe5f69f714d56c0ff5c52
MC_TARBALL="${METACONTROLLER_SOURCE_TARBALL:-$ROOT/../shared/vendor/metacontroller-${MC_VERSION#v}.tar.gz}"
MC_SHA256=71242194978649546c50f6970bc117b883699a46c66f4eb16298bcdbb8b722a3
MC_REPO=https://github.com/metacontroller/metacontroller

log() { printf '[setup-test-binaries] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }

fmt_duration() {
  local s=$1
  if ((s >= 60)); then printf '%dm%02ds' $((s / 60)) $((s % 60)); else printf '%ds' "$s"; fi
}

# Version of a module as resolved in a tools module (reads only go.mod files).
mod_version() { (cd "$1" && go list -m -f '{{.Version}}' "$2"); }

# Sets DIR PKG LDFLAGS (and PATCH_MODULE PATCH_FILE PATCH_SED when a source file is patched) for
# binary $1.
recipe() {
  PATCH_MODULE=""
  PATCH_FILE=""
  PATCH_SED=""
  case "$1" in
    etcd)
      DIR="$ROOT/tools/etcd"
      PKG="go.etcd.io/etcd/server/v3"
      LDFLAGS="-s -w"
      ;;
    kube-apiserver | kube-controller-manager | kubectl | kube-scheduler | kubelet)
      DIR="$ROOT/tools/kube"
      PKG="k8s.io/kubernetes/cmd/$1"
      # The version variables hack/lib/version.sh sets; without them the binaries report
      # v0.0.0-master (/version, kubectl version, helm .Capabilities.KubeVersion).
      local v major minor rest
      v="$(mod_version "$DIR" k8s.io/kubernetes)"
      IFS=. read -r major minor rest <<<"${v#v}"
      LDFLAGS="-s -w"
      local p
      for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
        LDFLAGS+=" -X $p.gitVersion=$v -X $p.gitMajor=$major -X $p.gitMinor=$minor"
        LDFLAGS+=" -X $p.gitTreeState=archive"
      done
      ;;
    helm)
      DIR="$ROOT/tools/helm"
      PKG="helm.sh/helm/v3/cmd/helm"
      # As helm's Makefile: its version, and the Kubernetes version `helm template`/`helm lint`
      # assume offline, derived from the k8s.io/client-go it is built with (v0.X.Y -> 1.X).
      local hv cv cminor
      hv="$(mod_version "$DIR" helm.sh/helm/v3)"
      cv="$(mod_version "$DIR" k8s.io/client-go)"
      cminor="$(cut -d. -f2 <<<"$cv")"
      LDFLAGS="-s -w -X helm.sh/helm/v3/internal/version.version=$hv"
      LDFLAGS+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
      LDFLAGS+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1"
      LDFLAGS+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$cminor"
      LDFLAGS+=" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1"
      LDFLAGS+=" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$cminor"
      ;;
    capi-manager)
      # Cluster API's core controller manager (Cluster, Machine, MachineSet, MachineDeployment,
      # MachineHealthCheck) for the CAPM3 e2e (devenv/capi-manager.ts). About 3.5 min on
      # 2 cores from a warm module cache.
      DIR="$ROOT/tools/cluster-api"
      PKG="sigs.k8s.io/cluster-api/core"
      LDFLAGS="-s -w"
      # Its webhook server has no listen-address flag and controller-runtime binds an empty host
      # to every interface; the build patches core/main.go with Host "127.0.0.1" so the tests'
      # manager listens on loopback only (no webhook is registered with the API server anyway).
      PATCH_MODULE="sigs.k8s.io/cluster-api"
      PATCH_FILE="core/main.go"
      PATCH_SED='s|^\([[:space:]]*\)Port:[[:space:]]*webhookPort,|\1Host: "127.0.0.1",\n\1Port: webhookPort,|'
      ;;
    capi-kubeadm-bootstrap-manager | capi-kubeadm-control-plane-manager)
      # The kubeadm bootstrap (KubeadmConfig) and control-plane (KubeadmControlPlane) managers of
      # the same Cluster API release, for the images `clusterctl init` installs in the clusterctl
      # e2e (scripts/image.sh capi). Patched like capi-manager: their webhook servers listen on
      # 127.0.0.1 only.
      DIR="$ROOT/tools/cluster-api"
      local component="${1#capi-kubeadm-}"
      component="${component%-manager}"
      PKG="sigs.k8s.io/cluster-api/${component//-/}/kubeadm"
      LDFLAGS="-s -w"
      PATCH_MODULE="sigs.k8s.io/cluster-api"
      PATCH_FILE="${component//-/}/kubeadm/main.go"
      PATCH_SED='s|^\([[:space:]]*\)Port:[[:space:]]*webhookPort,|\1Host: "127.0.0.1",\n\1Port: webhookPort,|'
      ;;
    cert-manager-controller | cert-manager-cainjector)
      # cert-manager's controller and CA injector, run as processes beside the control plane in the
      # clusterctl e2e (devenv/cert-manager.ts): they issue the providers' webhook certificates and
      # write their CAs into the webhook configurations and CRDs, which `clusterctl init` expects.
      DIR="$ROOT/tools/cert-manager"
      PKG="github.com/cert-manager/cert-manager/cmd/${1#cert-manager-}"
      LDFLAGS="-s -w -X github.com/cert-manager/cert-manager/pkg/util.AppVersion=$(mod_version "$DIR" github.com/cert-manager/cert-manager)"
      ;;
    clusterctl)
      # Cluster API's CLI, for the clusterctl provider e2e (test/e2e/clusterctl.test.ts): Ironhook
      # from a local provider repository (npm run clusterctl:repo). Stamped as upstream's release
      # builds are, so `clusterctl version` and the provider contract checks see v1.14.x.
      DIR="$ROOT/tools/clusterctl"
      PKG="sigs.k8s.io/cluster-api/cmd/clusterctl"
      local cv cmajor cminor crest
      cv="$(mod_version "$DIR" sigs.k8s.io/cluster-api)"
      IFS=. read -r cmajor cminor crest <<<"${cv#v}"
      LDFLAGS="-s -w -X sigs.k8s.io/cluster-api/version.gitVersion=$cv"
      LDFLAGS+=" -X sigs.k8s.io/cluster-api/version.gitMajor=$cmajor -X sigs.k8s.io/cluster-api/version.gitMinor=$cminor"
      ;;
    oracle)
      # Upstream Metal3 (CAPM3, IPAM, BMO) answering test/differential's cases. Its unexported
      # functions are reached through the wrapper files under tools/oracle/export, added to
      # copies of their modules (oracle_modfile_option).
      DIR="$ROOT/tools/oracle"
      PKG="."
      LDFLAGS="-s -w"
      ;;
    metacontroller)
      DIR="$(metacontroller_source)"
      PKG="./pkg/cmd/metacontroller"
      # As upstream's Makefile stamps its release builds.
      LDFLAGS="-s -w -X main.version=$MC_VERSION"
      ;;
    *) die "unknown binary '$1' (known: ${ALL[*]})" ;;
  esac
}

# Unpacks Metacontroller's source into $CACHE/src once and prints its directory: from the tarball
# (refused unless its sha256 matches), else from a shallow clone of the release tag (checked
# against the release commit).
metacontroller_source() {
  local dir="$CACHE/src/metacontroller-${MC_VERSION#v}" sum tmp
  if [[ -f $dir/.source-ok ]]; then
    printf '%s' "$dir"
    return 0
  fi
  rm -rf "$dir" && mkdir -p "$CACHE/src"
  if [[ -f $MC_TARBALL ]]; then
    sum="$(sha256sum "$MC_TARBALL" | cut -d' ' -f1)"
    [[ $sum == "$MC_SHA256" ]] || die "$MC_TARBALL has sha256 $sum, expected $MC_SHA256"
    tar -xzf "$MC_TARBALL" -C "$CACHE/src"
    [[ -f $dir/go.mod ]] || die "$MC_TARBALL did not unpack to $dir"
    printf 'tarball %s\n' "$MC_SHA256" >"$dir/.source-ok"
  else
    # Opt-in, as in scripts/chart-deps.sh: nothing contacts the network unless asked to.
    [[ ${METACONTROLLER_GIT_CLONE:-} == 1 ]] ||
      die "no Metacontroller source: $MC_TARBALL is missing (set METACONTROLLER_SOURCE_TARBALL, or METACONTROLLER_GIT_CLONE=1 to clone $MC_REPO at $MC_VERSION)"
    log "no $MC_TARBALL; cloning $MC_REPO at $MC_VERSION"
    tmp="$dir.clone"
    rm -rf "$tmp"
    git clone --quiet --depth 1 --branch "$MC_VERSION" "$MC_REPO" "$tmp" >&2 ||
      die "neither $MC_TARBALL nor a clone of $MC_REPO ($MC_VERSION) is available"
    [[ "$(git -C "$tmp" rev-parse HEAD)" == "$MC_COMMIT" ]] || die "$MC_REPO $MC_VERSION is not commit $MC_COMMIT"
    rm -rf "$tmp/.git" && mv "$tmp" "$dir"
    printf 'git %s\n' "$MC_COMMIT" >"$dir/.source-ok"
  fi
  printf '%s' "$dir"
}

stamp_of() {
  {
    cat "$DIR/go.mod"
    cat "$DIR/go.sum" 2>/dev/null || true
    printf 'pkg=%s\nldflags=%s\ncgo=0 trimpath\n' "$PKG" "$LDFLAGS"
    printf 'patch=%s %s %s\n' "$PATCH_MODULE" "$PATCH_FILE" "$PATCH_SED"
    # The oracle's own sources live in the repository and change with the tests.
    if [[ $DIR == "$ROOT/tools/oracle" ]]; then
      (cd "$DIR" && find . -name '*.go' | LC_ALL=C sort | xargs sha256sum)
    fi
  } | sha256sum | cut -d' ' -f1
}

# Go refuses -overlay for files in the module cache, so a recipe that patches a source file
# ($PATCH_MODULE's $PATCH_FILE, edited by $PATCH_SED) builds against a patched copy of that module
# under $CACHE/src, through a copy of the tools go.mod with a replace directive (-modfile).
# Prints the -modfile option; prints nothing when the recipe patches nothing.
patched_modfile_option() {
  [[ -n $PATCH_FILE ]] || return 0
  local moddir version copy modfile
  # `go list -m` prints no Dir for a module that is not in the module cache yet (a fresh machine).
  (cd "$DIR" && go mod download "$PATCH_MODULE") || die "go mod download $PATCH_MODULE failed"
  moddir="$(cd "$DIR" && go list -m -f '{{.Dir}}' "$PATCH_MODULE")"
  [[ -d $moddir ]] || die "no module directory for $PATCH_MODULE after go mod download"
  version="$(mod_version "$DIR" "$PATCH_MODULE")"
  copy="$CACHE/src/${PATCH_MODULE##*/}@$version-$1"
  rm -rf "$copy" && mkdir -p "$CACHE/src"
  cp -R "$moddir" "$copy" && chmod -R u+w "$copy"
  sed "$PATCH_SED" "$moddir/$PATCH_FILE" >"$copy/$PATCH_FILE"
  cmp -s "$moddir/$PATCH_FILE" "$copy/$PATCH_FILE" && die "the patch for $1 changed nothing in $PATCH_FILE"
  modfile="$CACHE/src/$1.go.mod"
  cp "$DIR/go.mod" "$modfile" && cp "$DIR/go.sum" "${modfile%.mod}.sum"
  (cd "$DIR" && go mod edit -modfile="$modfile" -replace="$PATCH_MODULE=$copy")
  printf -- '-modfile=%s' "$modfile"
}

# The oracle's wrappers: tools/oracle/export/<module path>/<dir>/*.go are added to a copy of that
# module (as it is resolved in tools/oracle/go.mod) under $CACHE/src, and the oracle builds
# against the copies through a copy of its go.mod with replace directives. Prints the -modfile
# option.
oracle_modfile_option() {
  local exports="$DIR/export" modfile="$CACHE/src/oracle.go.mod" module moddir version copy
  mkdir -p "$CACHE/src"
  cp "$DIR/go.mod" "$modfile" && cp "$DIR/go.sum" "${modfile%.mod}.sum"
  while read -r module; do
    (cd "$DIR" && go mod download "$module") || die "go mod download $module failed"
    moddir="$(cd "$DIR" && go list -m -f '{{.Dir}}' "$module")"
    [[ -d $moddir ]] || die "no module directory for $module after go mod download"
    version="$(mod_version "$DIR" "$module")"
    copy="$CACHE/src/oracle-${module//\//+}@$version"
    rm -rf "$copy" && cp -R "$moddir" "$copy" && chmod -R u+w "$copy"
    cp -R "$exports/$module/." "$copy/"
    (cd "$DIR" && go mod edit -modfile="$modfile" -replace="$module=$copy")
  done < <(cd "$exports" && find . -name go.mod -prune -o -name '*.go' -print | sed 's|^\./||' | oracle_export_modules | LC_ALL=C sort -u)
  printf -- '-modfile=%s' "$modfile"
}

# Maps each wrapper file's path under tools/oracle/export to the upstream module it belongs to.
oracle_export_modules() {
  local file
  while read -r file; do
    case "$file" in
      github.com/metal3-io/baremetal-operator/*) echo github.com/metal3-io/baremetal-operator ;;
      github.com/metal3-io/cluster-api-provider-metal3/*) echo github.com/metal3-io/cluster-api-provider-metal3 ;;
      github.com/metal3-io/ip-address-manager/*) echo github.com/metal3-io/ip-address-manager ;;
      *) die "tools/oracle/export/$file: not under a module oracle_export_modules knows" ;;
    esac
  done
}

build_one() {
  local name=$1 out="$BIN/$1" stampfile="$BIN/.$1.stamp" stamp start
  recipe "$name"
  stamp="$(stamp_of)"
  if [[ $FORCE == 0 && -x $out && -f $stampfile && "$(<"$stampfile")" == "$stamp" ]]; then
    log "reused $name ($out, stamp ${stamp:0:12})"
    return 0
  fi
  log "building $name from $PKG (${DIR#"$ROOT"/}) ..."
  start=$SECONDS
  rm -f "$stampfile"
  local modfile
  if [[ $name == oracle ]]; then
    modfile="$(oracle_modfile_option)"
  else
    modfile="$(patched_modfile_option "$name")"
  fi
  if ! (cd "$DIR" && CGO_ENABLED=0 go build -p 2 -trimpath ${modfile:+"$modfile"} -ldflags "$LDFLAGS" -o "$out.tmp" "$PKG"); then
    rm -f "$out.tmp"
    [[ -f $DIR/go.sum ]] || log "hint: ${DIR#"$ROOT"/}/go.sum is missing; (cd ${DIR#"$ROOT"/} && go mod tidy) shows why the module cannot be downloaded"
    log "FAILED $name after $(fmt_duration $((SECONDS - start))): (cd ${DIR#"$ROOT"/} && CGO_ENABLED=0 go build -p 2 -trimpath -ldflags '$LDFLAGS' -o $out $PKG)"
    return 1
  fi
  mv -f "$out.tmp" "$out"
  printf '%s\n' "$stamp" >"$stampfile"
  log "built $name in $(fmt_duration $((SECONDS - start))) -> $out"
}

# `go mod tidy` on tools/oracle alone cannot see the wrapper packages (they exist only in the
# module copies), so it runs against the build's -modfile and the replaces are dropped again.
tidy_oracle() {
  recipe oracle
  local option modfile module
  option="$(oracle_modfile_option)"
  modfile="${option#-modfile=}"
  (cd "$DIR" && go mod tidy "$option") || die "go mod tidy for tools/oracle failed"
  for module in $(cd "$DIR" && go mod edit -modfile="$modfile" -json | jq -r '.Replace[]? | select(.New.Version == null) | .Old.Path'); do
    (cd "$DIR" && go mod edit -modfile="$modfile" -dropreplace="$module")
  done
  cp "$modfile" "$DIR/go.mod" && cp "${modfile%.mod}.sum" "$DIR/go.sum"
  # The build downloads the replaced modules themselves (to copy them), so go.sum keeps their sums.
  for module in $(cd "$DIR/export" && find . -name go.mod -prune -o -name '*.go' -print | sed 's|^\./||' | oracle_export_modules | LC_ALL=C sort -u); do
    (cd "$DIR" && go mod download "$module") || die "go mod download $module failed"
  done
  log "tidied tools/oracle/go.mod and go.sum"
}

FORCE=0
TIDY=0
names=()
for a in "$@"; do
  case "$a" in
    --force) FORCE=1 ;;
    --tidy-oracle) TIDY=1 ;;
    -h | --help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $a" ;;
    *) names+=("$a") ;;
  esac
done
((${#names[@]})) || names=("${ALL[@]}")
for n in "${names[@]}"; do
  [[ " ${ALL[*]} " == *" $n "* ]] || die "unknown binary '$n' (known: ${ALL[*]})"
done

command -v go >/dev/null || die "go is not on PATH"
# The checksum database lacks some metal3-io releases (the oracle's modules); go.sum pins them.
export GONOSUMDB="${GONOSUMDB:+$GONOSUMDB,}github.com/metal3-io"
mkdir -p "$BIN"
if ((TIDY)); then
  tidy_oracle
  exit 0
fi
log "go $(go env GOVERSION), output $BIN"

total=$SECONDS
failed=()
for n in "${names[@]}"; do
  build_one "$n" || failed+=("$n")
done
log "done in $(fmt_duration $((SECONDS - total)))"
if ((${#failed[@]})); then
  log "failed: ${failed[*]}"
  exit 1
fi
