#!/usr/bin/env bash
# Installs the Debian packages Shoal needs to build and test (and, with the argument `bench`, to
# plot the benchmark report), if any are missing.
# Idempotent and quiet: prints nothing (and never touches apt) when everything is there.
# Non-interactive; run as root, or as a user with sudo.
set -euo pipefail

# iproute2 and util-linux: the namespace cluster of the multinode tests (ip, unshare, nsenter).
packages=(build-essential cmake mpich libmpich-dev openmpi-bin libopenmpi-dev gfortran pkg-config
    python3 valgrind clang-format iproute2 util-linux)
# `install-deps.sh bench` (make bench) also wants matplotlib for the report's plots; the tests do not.
[ "${1:-}" = bench ] && packages+=(python3-matplotlib)

missing=()
for p in "${packages[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
    [ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || {
        echo "install-deps: missing packages (${missing[*]}) and not root; no sudo either" >&2
        exit 1
    }
    sudo=(sudo -n)
fi
export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! "${sudo[@]}" apt-get update -qq >"$log" 2>&1 ||
    ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
        "${missing[@]}" >>"$log" 2>&1; then
    cat "$log" >&2
    echo "install-deps: apt-get failed" >&2
    exit 1
fi
echo "install-deps: done"
