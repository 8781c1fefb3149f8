#!/usr/bin/env bash
# Test-only extras, installed only when the tests run (scripts/test.sh calls this): Debian's
# `chromium`, for the headless render of the HTML report (tests/render/test_html_chromium.cpp).
# Idempotent; never fatal: without it that test reports SKIPPED with a message.
set -uo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  echo "setup_test_extras: chromium present"
  exit 0
fi
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
if [ -n "$SUDO" ] && ! command -v sudo >/dev/null 2>&1; then
  echo "setup_test_extras: cannot install chromium (not root, no sudo); the HTML render test will be skipped"
  exit 0
fi
echo "setup_test_extras: installing chromium (headless HTML report test)"
if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium; }; then
  echo "setup_test_extras: chromium could not be installed; the HTML render test will be skipped"
fi
exit 0
