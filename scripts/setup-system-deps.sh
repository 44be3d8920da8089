#!/usr/bin/env bash
# Installs the Debian and PyPI packages the integration and e2e tests run against, when
# missing: ipmitool and OpenIPMI's ipmi_sim (real IPMI peers), python3-sushy and redfishtool
# (real Redfish clients that cross-check our emulator), and sushy-tools from PyPI (the Redfish
# emulator Metal3 uses) in a venv under the cache. genisoimage and xorriso: the driver pool builds
# the config drive ISO with them (drivers/agent/configdrive.ts; its tests read it back with
# isoinfo, from genisoimage). For the container images (npm run image,
# docs/images.md): buildah, podman, skopeo, umoci, runc (crun fails on hybrid cgroups),
# mmdebstrap (the Debian base rootfs) and gcc (the static pause program); containerd for a
# kubelet node that imports those images. Idempotent; quiet when everything is there.
set -euo pipefail

CACHE="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}"
VENV="$CACHE/venv"
APT_PACKAGES=(ipmitool openipmi python3-sushy redfishtool openssl
  genisoimage xorriso
  buildah podman skopeo umoci runc mmdebstrap containerd gcc libc6-dev)
PIP_PACKAGES=(sushy-tools)

log() { printf '[setup-system-deps] %s\n' "$*" >&2; }

# shellcheck source=scripts/apt-install-missing.sh
source "$(dirname "$0")/apt-install-missing.sh"
apt_install_missing setup-system-deps "${APT_PACKAGES[@]}"

if [ ! -x "$VENV/bin/sushy-emulator" ]; then
  log "installing ${PIP_PACKAGES[*]} into $VENV"
  mkdir -p "$CACHE"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PIP_PACKAGES[@]}"
fi
