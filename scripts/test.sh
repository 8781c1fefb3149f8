#!/usr/bin/env bash
# The test command: sets up, builds, and runs every test with ctest. Tests labelled `gpu` skip
# with a message where no GPU is usable (they report "skipped" through ctest's SKIP code).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/setup_test_extras.sh"   # test-only: chromium for the HTML report render test
"$root/scripts/build.sh"
cd "${AMDAHL_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)" "$@"
