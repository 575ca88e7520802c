#!/usr/bin/env bash
# Installs roofline's build dependencies (Debian 12 packages). Skips what is present; runs
# `apt-get update` at most once; as non-root it prints the packages to install and fails.
# Called by `make run` and `make test` (and so by .ci/run).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  libgtest-dev googletest
  libopenblas-dev libopenblas-openmp-dev libcpuinfo-dev libomp-dev
  libopenmpi-dev openmpi-bin
  clang libclang-rt-14-dev
  chromium libxml2-utils
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "roofline setup: missing Debian packages; install them as root:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "roofline setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "roofline setup: done" >&2
