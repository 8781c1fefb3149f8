#!/usr/bin/env bash
# Prepares what a device run carries besides the working tree (64 MiB in all): the SQLite
# header (the GPU machine has the library but no header) and the gpu-labelled test binaries of
# a local build, so that build/bin + build/lib + .carry make a slim carried build.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMDAHL_BUILD_DIR:-$root/build}"
mkdir -p "$root/.carry/include" "$root/.carry/tests"
cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h "$root/.carry/include/"
rm -f "$root/.carry/tests/"*
for t in test_gpu_stage_timing test_gpu_one_clock test_gpu_robustness test_gpu_implicit_waits test_dnn_layers \
         test_resnet_training test_segmentation_gpu test_sentiment_gpu; do
  [ -x "$build/tests/$t" ] && cp "$build/tests/$t" "$root/.carry/tests/"
done
strip "$root/.carry/tests/"* 2>/dev/null || true
du -sh "$root/.carry" "$build/bin" "$build/lib"
