#!/usr/bin/env bash
# Installs roofline's Debian 12 packages. `setup.sh run` (what `make run` calls): what building and
# running the tool needs, nothing more. `setup.sh test` (what `make test` calls): that, plus what only
# the tests need: GoogleTest, clang and its sanitizer runtime (`make sanitize`), Chromium (the browser
# tests of report.html), xmllint (the markup checks) and python3's Prometheus client (the check of
# `roofline export --format vllm` with the consumer's own parser). Skips what is present; runs
# `apt-get update` at most once; as non-root it prints the packages to install and fails.
set -euo pipefail

mode=${1:-test}
run_packages=(
  build-essential cmake ninja-build pkg-config
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev
  libopenblas-dev libopenblas-openmp-dev libcpuinfo-dev libomp-dev
  libopenmpi-dev openmpi-bin
)
test_packages=(
  libgtest-dev googletest
  clang libclang-rt-14-dev
  chromium libxml2-utils
  python3 python3-prometheus-client
)
case $mode in
  run) packages=("${run_packages[@]}") ;;
  test) packages=("${run_packages[@]}" "${test_packages[@]}") ;;
  --list-run) printf '%s\n' "${run_packages[@]}"; exit 0 ;;
  --list-test) printf '%s\n' "${test_packages[@]}"; exit 0 ;;
  *) echo "usage: scripts/setup.sh [run|test|--list-run|--list-test]" >&2; exit 2 ;;
esac
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
echo "roofline setup ($mode): installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "roofline setup: done" >&2
