#!/usr/bin/env bash
# Configures and builds amdahl in Release into build/ (or $AMDAHL_BUILD_DIR).
# Extra arguments go to cmake's configure step (e.g. -DAMDAHL_SANITIZE=address,undefined).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMDAHL_BUILD_DIR:-$root/build}"
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DAMDAHL_WARNINGS_AS_ERRORS=$werror "$@"
else
  cmake -S "$root" -B "$build" -DAMDAHL_WARNINGS_AS_ERRORS=$werror "$@" >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
