#!/usr/bin/env bash
# Fuzzing (issue #8): builds the libFuzzer targets with clang (ASan+UBSan, AMDAHL_FUZZ=ON, own
# build folder) and runs each for FUZZ_SECONDS with its seed corpus and dictionary, one at a
# time by default (FUZZ_PARALLEL=N: N targets at once), each single process. First replays
# tests/fuzz/regressions/<target>/ (inputs found before).
# Writes a summary (executions, coverage, corpus, peak RSS, findings) and exits non-zero if any
# target found something (crash, sanitizer report, timeout, out-of-memory, leak): the inputs
# are under OUT/<target>/artifacts/, ready to become regression files.
# Usage: scripts/fuzz.sh [TARGET...]   (profile_loader stage_rules kineto_import
#        kineto_import_gzip part_file two_profiles; default all)
# Env: FUZZ_SECONDS (default 600 per target), AMDAHL_FUZZ_DIR (build folder, build-fuzz/),
#      FUZZ_OUT (results, default AMDAHL_FUZZ_DIR/fuzz-out), FUZZ_BUILD_JOBS (default 1),
#      FUZZ_RSS_MB (2048), FUZZ_TIMEOUT_S (10, per input), FUZZ_OPT (-O1; the CI smoke builds
#      with -O0: half the build time of the nlohmann-heavy sources, slower runs),
#      FUZZ_PARALLEL (1: how many targets run at the same time; each is one process).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${AMDAHL_FUZZ_DIR:-$root/build-fuzz}"
out="${FUZZ_OUT:-$dir/fuzz-out}"
seconds="${FUZZ_SECONDS:-600}"
jobs="${FUZZ_BUILD_JOBS:-1}"
rss="${FUZZ_RSS_MB:-2048}"
per_input="${FUZZ_TIMEOUT_S:-10}"
opt="${FUZZ_OPT:--O1}"
parallel="${FUZZ_PARALLEL:-1}"
[ "$parallel" -gt 0 ] 2>/dev/null || { echo "fuzz: FUZZ_PARALLEL must be a number > 0" >&2; exit 1; }
[ "$seconds" -gt 0 ] 2>/dev/null || { echo "fuzz: FUZZ_SECONDS must be > 0 (libFuzzer reads 0 as no limit)" >&2; exit 1; }
targets=("$@")
((${#targets[@]})) || targets=(profile_loader stage_rules kineto_import kineto_import_gzip part_file two_profiles)

command -v clang++ >/dev/null 2>&1 || { echo "fuzz: clang++ not found (scripts/setup.sh installs it)" >&2; exit 1; }
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
t0=$(date +%s)
if [ ! -f "$dir/CMakeCache.txt" ]; then
  # Line tables only (stack traces with lines, less to build than -g).
  CC=clang CXX=clang++ cmake -S "$root" -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="$opt -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$opt -gline-tables-only" \
    -DAMDAHL_WITH_CUDA=OFF -DAMDAHL_FUZZ=ON >/dev/null
fi
cmake --build "$dir" -j "$jobs" --target "${targets[@]/#/fuzz_}"
t1=$(date +%s)
echo "== fuzz: build $((t1 - t0)) s"

# Sanitizer reports abort the run and leave the input in artifacts/.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
mkdir -p "$out"
summary="$out/summary.txt"
{
  echo "# amdahl fuzz run $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  echo "# FUZZ_SECONDS=$seconds -rss_limit_mb=$rss -timeout=$per_input, single process per target, FUZZ_PARALLEL=$parallel"
  printf '%-18s %8s %12s %8s %8s %8s %16s %8s %s\n' target seconds executions exec/s cov ft corpus rss_mb findings
} >"$summary"

# One target: its regression inputs, then the run; its summary row in $work/summary.row and a
# file $work/failed when something failed.
run_target() {
  local t=$1 bin seeds regress work log dict d common rc s0 s1 execs rate peak last cov ft corp findings
  bin="$dir/bin/fuzz_$t"
  seeds="$root/tests/fuzz/corpus/$t"
  regress="$root/tests/fuzz/regressions/$t"
  work="$out/$t"
  rm -rf "$work/artifacts" "$work/failed" "$work/summary.row"
  mkdir -p "$work/corpus" "$work/artifacts"
  log="$work/fuzz.log"
  dict=()
  case "$t" in  # the gzip target's bytes are the JSON; the two-profile target's are profiles
    kineto_import_gzip) d=kineto_import ;;
    two_profiles) d=profile_loader ;;
    *) d=$t ;;
  esac
  [ -f "$root/tests/fuzz/$d.dict" ] && dict=(-dict="$root/tests/fuzz/$d.dict")
  common=(-rss_limit_mb="$rss" -timeout="$per_input" -artifact_prefix="$work/artifacts/")
  # Known inputs first: each must pass (they are fixed findings).
  if compgen -G "$regress/*" >/dev/null; then
    echo "== fuzz: $t: replaying $(ls "$regress" | wc -l) regression inputs"
    if ! "$bin" "${common[@]}" "$regress"/* >"$work/regressions.log" 2>&1; then
      echo "== fuzz: $t: a regression input fails again (see $work/regressions.log)" >&2
      echo 1 >"$work/failed"
    fi
  fi
  echo "== fuzz: $t for $seconds s (log: $log)"
  s0=$(date +%s)
  rc=0
  "$bin" "${common[@]}" "${dict[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    "$work/corpus" "$seeds" >"$log" 2>&1 || rc=$?
  s1=$(date +%s)
  stat() { awk -v k="stat::$1:" '$1 == k {v = $2} END {print v}' "$log"; }
  execs=$(stat number_of_executed_units)
  rate=$(stat average_exec_per_sec)
  peak=$(stat peak_rss_mb)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)  # none when the first input crashed
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[bKM]*\).*/\1/p' <<<"$last")
  findings=$(find "$work/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
                -o -name 'oom-*' -o -name 'slow-unit-*' \) | wc -l)
  if [ "$rc" -ne 0 ] && [ "$findings" -eq 0 ]; then findings=1; fi  # died without an artifact
  printf '%-18s %8s %12s %8s %8s %8s %16s %8s %s\n' "$t" "$((s1 - s0))" "${execs:-?}" "${rate:-?}" \
    "${cov:-?}" "${ft:-?}" "${corp:-?}" "${peak:-?}" "$findings" >"$work/summary.row"
  if [ "$findings" -ne 0 ]; then
    echo 1 >"$work/failed"
    echo "== fuzz: $t: FINDING (exit $rc); inputs in $work/artifacts/, log $log" >&2
    grep -m3 -E 'ERROR: |runtime error|SUMMARY|uncaught|terminate' "$log" >&2 || true
  fi
}

status=0
running=0
for t in "${targets[@]}"; do
  if [ "$parallel" -le 1 ]; then
    run_target "$t"
  else
    if [ "$running" -ge "$parallel" ]; then
      wait -n || true
      running=$((running - 1))
    fi
    run_target "$t" &
    running=$((running + 1))
  fi
done
wait || true
for t in "${targets[@]}"; do
  work="$out/$t"
  if [ -f "$work/summary.row" ]; then cat "$work/summary.row" >>"$summary"; else echo "$t: no summary (the run died)" >>"$summary"; fi
  [ -f "$work/failed" ] && status=1
  [ -f "$work/summary.row" ] || status=1
done
cat "$summary"
if [ "$status" -ne 0 ]; then
  echo "== fuzz: findings left open (see above)" >&2
  exit 1
fi
echo "== fuzz: no findings"
