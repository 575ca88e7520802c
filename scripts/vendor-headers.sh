#!/usr/bin/env bash
# Copies roofline's header-only dependencies (CLI11, nlohmann json, fmt in header-only mode) and the
# GoogleTest sources from this Debian machine into third_party/ (git-ignored), so that a machine
# without them and without a package registry (the GPU machine) can build: carry third_party/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
rm -rf third_party
mkdir -p third_party/include
cp -r /usr/include/CLI third_party/include/
cp -r /usr/include/nlohmann third_party/include/
cp -r /usr/include/fmt third_party/include/
cp -r /usr/src/googletest third_party/googletest
du -sh third_party
