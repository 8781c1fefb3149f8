#!/usr/bin/env bash
# A copy of bin/amdahl with no lib/ next to it: `amdahl profile` must stop before the command
# starts, with one line on stderr that names the collector, a non-zero exit and no profile.
set -u
build=${AMDAHL_BUILD_DIR:?AMDAHL_BUILD_DIR is not set}
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/amdahl-copied-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/alone/bin" "$tmp/work"
cp "$build/bin/amdahl" "$tmp/alone/bin/amdahl"
cd "$tmp/work" || exit 1
env -u AMDAHL_LIB_DIR "$tmp/alone/bin/amdahl" profile -o y.amdahl -- sh -c 'touch ran' >"$tmp/out" 2>"$tmp/err"
rc=$?
check "exit code is non-zero (got $rc)" '[ $rc -ne 0 ]'
check "the command did not run" '[ ! -e ran ]'
check "no profile was written" '[ ! -e y.amdahl ]'
check "exactly one line on stderr" '[ "$(wc -l <"$tmp/err")" -eq 1 ]'
check "the line names the missing collector" 'grep -q "^amdahl: error: .*libamdahl_collector.so" "$tmp/err"'
echo "stderr: $(cat "$tmp/err")"

# AMDAHL_LIB_DIR points the copy at the build's lib/: it profiles again.
AMDAHL_LIB_DIR="$build/lib" "$tmp/alone/bin/amdahl" profile -o z.amdahl -- "$build/bin/cpu_pipeline" --steps 3 \
  >"$tmp/out2" 2>"$tmp/err2"
rc=$?
check "with AMDAHL_LIB_DIR the copy profiles (exit $rc)" '[ $rc -eq 0 ] && [ -s z.amdahl ]'
check "with AMDAHL_LIB_DIR no collector warning" '! grep -q "collector" "$tmp/err2"'
[ $fail -ne 0 ] && cat "$tmp/err2"
exit $fail
