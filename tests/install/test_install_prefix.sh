#!/usr/bin/env bash
# cmake --install BUILD --prefix P into a temporary P; checks the installed layout (bin/amdahl,
# lib/ with the collector libraries this build made, share/amdahl/python), then runs
# `P/bin/amdahl profile -o x.amdahl -- BUILD/bin/cpu_pipeline --steps 5` from an unrelated
# directory and reads the report back with the installed binary.
set -u
build=${AMDAHL_BUILD_DIR:?AMDAHL_BUILD_DIR is not set}
cmake_bin=${CMAKE_COMMAND:-cmake}
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/amdahl-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
if ! "$cmake_bin" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
  cat "$tmp/install.log"; echo "FAIL cmake --install"; exit 1
fi

check "bin/amdahl is installed and executable" '[ -x "$prefix/bin/amdahl" ]'
for lib in libamdahl_collector.so libamdahl_exit.so libamdahl_cupti.so; do
  if [ -e "$build/lib/$lib" ]; then
    check "lib/$lib is installed (built here)" '[ -f "$prefix/lib/$lib" ]'
  fi
done
check "share/amdahl/python has sitecustomize.py and amdahl_torch" \
  '[ -f "$prefix/share/amdahl/python/sitecustomize.py" ] && [ -f "$prefix/share/amdahl/python/amdahl_torch/__init__.py" ]'
check "share/amdahl/python has the amdahl package" '[ -f "$prefix/share/amdahl/python/amdahl/__init__.py" ]'

mkdir -p "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
"$prefix/bin/amdahl" profile -o x.amdahl -- "$build/bin/cpu_pipeline" --steps 5 >"$tmp/profile.out" 2>"$tmp/profile.err"
rc=$?
check "installed amdahl profile exits 0 (got $rc)" '[ $rc -eq 0 ]'
check "the profile x.amdahl was written in the working directory" '[ -s x.amdahl ]'
check "no collector warning on stderr" '! grep -q "collector" "$tmp/profile.err"'
"$prefix/bin/amdahl" report x.amdahl --format json >"$tmp/report.json" 2>"$tmp/report.err"
rc=$?
check "installed amdahl report exits 0 (got $rc)" '[ $rc -eq 0 ]'
# The collector recorded the run: the report has the steps and cpu_pipeline's stages.
check "the report has steps" 'grep -Eq "\"steps\": *[1-9]" "$tmp/report.json"'
check "the report has the disk_io and cpu_preprocess stages" \
  'grep -q "\"disk_io\"" "$tmp/report.json" && grep -q "\"cpu_preprocess\"" "$tmp/report.json"'
if command -v sqlite3 >/dev/null; then
  col=$(sqlite3 x.amdahl "select value from meta where key='collector'" 2>/dev/null)
  check "the installed collector was injected ($col)" '[ "$col" = "$prefix/lib/libamdahl_collector.so" ]'
fi
# The installed Python package finds the installed command (PREFIX/bin/amdahl, not PATH's).
if command -v python3 >/dev/null; then
  used=$(cd "$tmp" && env -u AMDAHL_BIN PYTHONPATH="$prefix/share/amdahl/python" python3 -c \
    'import amdahl, sys; r = amdahl.load(sys.argv[1]); print(r.amdahl_bin if r["steps"] > 0 else "no steps")' \
    "$tmp/elsewhere/x.amdahl" 2>&1)
  check "the installed amdahl package loads the profile with $prefix/bin/amdahl ($used)" \
    '[ "$used" = "$prefix/bin/amdahl" ]'
fi
if [ $fail -ne 0 ]; then
  echo "--- profile stderr"; cat "$tmp/profile.err"; echo "--- report stderr"; cat "$tmp/report.err"
fi
exit $fail
