#!/usr/bin/env bash
# Captures what `amdahl report` and `amdahl whatif` print (stdout, stderr and exit code) for a
# fixed list of commands, so that a refactoring can be checked byte for byte (issue 22: outputs
# identical before and after each step).
#
#   scripts/capture_outputs.sh BUILD_DIR OUT_DIR [PROFILES_DIR]
#
# The profiles are made once in PROFILES_DIR (default: /tmp/amdahl-capture-profiles) with the
# build's cpu_pipeline under `amdahl profile` and with amdahl_gen_profile, and reused when they are
# there: a real run's timings differ from one run to the next, so "before" and "after" must read
# the same files. Each command NAME leaves OUT_DIR/NAME.out, NAME.err and NAME.rc (and the file
# it wrote with -o); the profile folder's and OUT_DIR's paths are replaced by $P and $O, nothing
# else is normalised. Compare two captures with `diff -r BEFORE AFTER`.
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR [PROFILES_DIR]" >&2
  exit 2
fi
build="$(cd "$1" && pwd)"
out="$2"
profiles="${3:-/tmp/amdahl-capture-profiles}"
amdahl="$build/bin/amdahl"
for b in "$amdahl" "$build/bin/cpu_pipeline" "$build/bin/amdahl_gen_profile"; do
  [ -x "$b" ] || { echo "capture_outputs: $b is not built" >&2; exit 2; }
done
mkdir -p "$out" "$profiles"
out="$(cd "$out" && pwd)"
profiles="$(cd "$profiles" && pwd)"
P="$profiles"

# --- profiles (made once) ---------------------------------------------------------------------
make_profile() {  # NAME cpu_pipeline-args...
  local name="$1"; shift
  [ -s "$P/$name.amdahl" ] && return 0
  "$amdahl" profile -o "$P/$name.amdahl" -- "$build/bin/cpu_pipeline" "$@" >/dev/null 2>"$P/$name.log"
}
make_profile pipe --steps 12 --warmup-steps 1 --io-ms 2 --preprocess-ms 3 --h2d-ms 1 --compute-ms 4
make_profile loaders --steps 12 --warmup-steps 1 --io-ms 3 --preprocess-ms 4 --h2d-ms 1 --compute-ms 3 \
  --loader-threads 2
make_profile ranks --ranks 3 --steps 8 --warmup-steps 1 --io-ms 1 --preprocess-ms 1 --h2d-ms 1 --compute-ms 4 \
  --comm-ms 3 --comm-bytes 262144 --comm-gbps 0.25 --straggler 1:1.5
[ -s "$P/gen.amdahl" ] || "$build/bin/amdahl_gen_profile" "$P/gen.amdahl" 20000 >/dev/null
printf 'not a profile\n' >"$P/junk.amdahl"

# --- commands -------------------------------------------------------------------------------------
cap() {  # NAME amdahl-args... ($P and $O in the arguments are the folders)
  local name="$1"; shift
  local args=() a
  for a in "$@"; do a="${a//\$P/$P}"; args+=("${a//\$O/$out}"); done
  rm -f "$out/$name".*
  set +e
  "$amdahl" "${args[@]}" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
  set -e
  local f
  for f in "$out/$name.out" "$out/$name.err" "$out"/"$name".file.*; do
    [ -f "$f" ] || continue
    sed -i -e "s|$P|\$P|g" -e "s|$out|\$O|g" "$f"
  done
}

for p in pipe loaders ranks gen; do
  for fmt in text json html markdown csv; do cap "report-$p-$fmt" report '$P/'$p.amdahl --format $fmt; done
  cap "report-$p-whatif-html" report '$P/'$p.amdahl --whatif gpu_compute=2 --format html
  cap "report-$p-whatif-md" report '$P/'$p.amdahl --whatif gpu_compute=2 --whatif h2d:host=1.5x --format markdown
  cap "whatif-$p-text" whatif '$P/'$p.amdahl --speedup gpu_compute=2 --speedup disk_io=4x
  cap "whatif-$p-json" whatif '$P/'$p.amdahl --speedup gpu_compute=2 --format json
  cap "whatif-$p-target" whatif '$P/'$p.amdahl --target 1.3x
  cap "whatif-$p-target-json" whatif '$P/'$p.amdahl --target 1.3 --format json
  cap "whatif-$p-slower" whatif '$P/'$p.amdahl --speedup cpu_preprocess=0.5
  cap "whatif-$p-workers" whatif '$P/'$p.amdahl --workers 2
  cap "whatif-$p-workers-json" whatif '$P/'$p.amdahl --workers 3 --prefetch 1 --worker-stages disk_io,cpu_preprocess \
    --speedup gpu_compute=2 --format json
done
cap report-pipe-warmup report '$P/pipe.amdahl' --warmup 3 --format json
cap report-pipe-out-html report '$P/pipe.amdahl' -o '$O/report-pipe-out-html.file.html'
cap report-pipe-out-md report '$P/pipe.amdahl' -o '$O/report-pipe-out-md.file.md'
cap report-pipe-out-csv report '$P/pipe.amdahl' -o '$O/report-pipe-out-csv.file.csv'
cap report-pipe-out-json report '$P/pipe.amdahl' -o '$O/report-pipe-out-json.file.json'
cap whatif-ranks-ranks whatif '$P/ranks.amdahl' --ranks 6
cap whatif-ranks-ranks-json whatif '$P/ranks.amdahl' --ranks 8 --bandwidth 0.5 --format json
cap whatif-ranks-fixed whatif '$P/ranks.amdahl' --straggler-fixed
cap whatif-ranks-fixed-json whatif '$P/ranks.amdahl' --straggler-fixed --speedup communication=2 --format json
cap whatif-pipe-ranks whatif '$P/pipe.amdahl' --ranks 4 --bandwidth 1
# Errors: one line on stderr and the exit code.
cap err-whatif-none whatif '$P/pipe.amdahl'
cap err-speedup-syntax whatif '$P/pipe.amdahl' --speedup gpu_compute
cap err-speedup-factor whatif '$P/pipe.amdahl' --speedup gpu_compute=abc
cap err-speedup-zero whatif '$P/pipe.amdahl' --speedup gpu_compute=0
cap err-speedup-huge whatif '$P/pipe.amdahl' --speedup gpu_compute=1e7
cap err-speedup-empty-stage whatif '$P/pipe.amdahl' --speedup =2
cap err-speedup-unknown whatif '$P/pipe.amdahl' --speedup no_such_stage=2
cap err-speedup-host whatif '$P/pipe.amdahl' --speedup disk_io:host=2
cap err-target-low whatif '$P/pipe.amdahl' --target 0.5
cap err-target-syntax whatif '$P/pipe.amdahl' --target 2y
cap err-workers-zero whatif '$P/pipe.amdahl' --workers 0
cap err-workers-syntax whatif '$P/pipe.amdahl' --workers two
cap err-prefetch-alone whatif '$P/pipe.amdahl' --speedup gpu_compute=2 --prefetch 2
cap err-worker-stages-empty whatif '$P/pipe.amdahl' --workers 2 --worker-stages ,
cap err-worker-stages-unknown whatif '$P/pipe.amdahl' --workers 2 --worker-stages nope
cap err-ranks-zero whatif '$P/ranks.amdahl' --ranks 0
cap err-ranks-syntax whatif '$P/ranks.amdahl' --ranks 4.5
cap err-bandwidth-alone whatif '$P/ranks.amdahl' --speedup gpu_compute=2 --bandwidth 1
cap err-bandwidth-syntax whatif '$P/ranks.amdahl' --ranks 4 --bandwidth fast
cap err-ranks-no-bandwidth whatif '$P/pipe.amdahl' --ranks 4
cap err-fixed-one-rank whatif '$P/pipe.amdahl' --straggler-fixed
cap err-report-whatif-syntax report '$P/pipe.amdahl' --whatif gpu_compute
cap err-report-whatif-factor report '$P/pipe.amdahl' --whatif gpu_compute=-1
cap err-report-warmup report '$P/pipe.amdahl' --warmup x
cap err-report-format report '$P/pipe.amdahl' --format pdf
cap err-report-missing report '$P/missing.amdahl'
cap err-report-junk report '$P/junk.amdahl'
cap err-whatif-format whatif '$P/pipe.amdahl' --speedup gpu_compute=2 --format html
echo "capture_outputs: $(ls "$out" | grep -c '\.rc$') commands captured in $out (profiles in $P)"
