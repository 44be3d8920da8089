# Sourced by the setup scripts: apt_install_missing <log-prefix> <package>... installs the Debian
# packages that are not installed yet (sudo when not root), quietly, and nothing when all are.
apt_install_missing() {
  local prefix="$1" pkg
  shift
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  printf '[%s] installing Debian packages: %s\n' "$prefix" "${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}
