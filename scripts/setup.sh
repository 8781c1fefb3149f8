#!/usr/bin/env bash
# Installs the Debian packages amdahl's build and tests need. Idempotent: installs only what
# is missing. The CUDA toolkit (nvcc, CUPTI, NVTX headers, cuDNN) is not installed here: the
# CUDA parts build when it is present and are skipped otherwise.
set -euo pipefail
pkgs=(cmake g++ make libsqlite3-dev sqlite3 libcli11-dev nlohmann-json3-dev libspdlog-dev
      libfmt-dev libboost-dev doctest-dev python3 libpng-dev)
# The fuzz targets (scripts/fuzz.sh, CI's fuzz smoke): clang and its runtime libraries
# (libFuzzer, ASan, UBSan), which clang only recommends.
pkgs+=(clang libclang-rt-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

# --- Python: the `nvtx` package for the --torch annotations' tests (tests/torch) -------------
# Idempotent; skipped (the torch tests then report SKIPPED) when python3 or pip is missing.
if command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; then
  if python3 -c "import nvtx" >/dev/null 2>&1; then
    echo "setup: python nvtx present"
  else
    echo "setup: pip install nvtx"
    python3 -m pip install -q nvtx || python3 -m pip install -q --user nvtx \
      || echo "setup: could not install nvtx; tests/torch will be skipped"
  fi
  # pandas: amdahl.load's DataFrame path (tests/python; the plain-list path needs nothing).
  if python3 -c "import pandas" >/dev/null 2>&1; then
    echo "setup: python pandas present"
  else
    echo "setup: pip install pandas"
    python3 -m pip install -q pandas || python3 -m pip install -q --user pandas \
      || echo "setup: could not install pandas; tests/python checks the plain lists only"
  fi
else
  echo "setup: no python3/pip: skipping the nvtx and pandas packages; tests/torch will be skipped"
fi
