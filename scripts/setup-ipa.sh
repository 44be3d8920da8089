#!/usr/bin/env bash
# The real ironic-python-agent for the real-agent tests (docs/agent.md, "The real IPA"):
# ironic-python-agent 13.0.0 from PyPI in a venv under the cache, Ironhook's sandbox plugin
# (emulators/ipa/sandbox: a hardware manager and a write guard) installed into it, and the
# Debian tools IPA runs on a deploy ramdisk: qemu-img, parted, sgdisk, lshw, dmidecode, udevadm,
# and socat for the loopback relays into the agent's network namespace. Idempotent and quick
# when nothing changed: the plugin is reinstalled only when its source changes.
set -euo pipefail

IPA_VERSION=13.0.0
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${IRONHOOK_CACHE:-$HOME/.cache/ironhook}"
VENV="$CACHE/ipa/$IPA_VERSION/venv"
APT_PACKAGES=(qemu-utils parted gdisk lshw dmidecode udev socat util-linux genisoimage xorriso iproute2)

log() { printf '[setup-ipa] %s\n' "$*" >&2; }

# shellcheck source=scripts/apt-install-missing.sh
source "$(dirname "$0")/apt-install-missing.sh"
apt_install_missing setup-ipa "${APT_PACKAGES[@]}"

if [ ! -x "$VENV/bin/ironic-python-agent" ]; then
  log "installing ironic-python-agent $IPA_VERSION into $VENV"
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "ironic-python-agent==$IPA_VERSION" wheel
fi

SANDBOX="$ROOT/emulators/ipa/sandbox"
stamp="$(find "$SANDBOX" -type f \( -name '*.py' -o -name '*.toml' \) -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"
if [ "$(cat "$VENV/.ironhook-sandbox" 2>/dev/null)" != "$stamp" ]; then
  log "installing the Ironhook IPA sandbox plugin"
  build="$(mktemp -d)"
  cp -r "$SANDBOX/." "$build/"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall "$build"
  rm -rf "$build"
  echo "$stamp" >"$VENV/.ironhook-sandbox"
fi
