set -u
D=/tmp/amdahl-imagefolder-wb; A=$PWD/build/bin/amdahl
python3 scripts/make_imagefolder.py $D 3840
pip_site() { python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site; }
pip_site
S=(python3 workloads/python/train_imagefolder.py $D --batch-size 64 --amp --channels-last --workers 0 --steps 30 --timed-last 15)
for r in 1 2; do
  echo "r$r plain: $("${S[@]}" | grep ^last)"
  echo "r$r cupti-only: $($A profile -o /tmp/x.amdahl --force -- "${S[@]}" 2>/dev/null | grep ^last)"
  echo "r$r torch-all: $($A profile --torch -o /tmp/x.amdahl --force -- "${S[@]}" 2>/dev/null | grep ^last)"
  echo "r$r skip-compute-copies: $(AMDAHL_TORCH_SKIP=module_forward,tensor_to,tensor_cuda,tensor_pin_memory $A profile --torch -o /tmp/x.amdahl --force -- "${S[@]}" 2>/dev/null | grep ^last)"
  echo "r$r skip-io-fetch: $(AMDAHL_TORCH_SKIP=pil_open,pil_jpeg_read,builtins_open,fetch $A profile --torch -o /tmp/x.amdahl --force -- "${S[@]}" 2>/dev/null | grep ^last)"
  echo "r$r torch-gpuapi-none: $($A profile --torch --gpu-api none -o /tmp/x.amdahl --force -- "${S[@]}" 2>/dev/null | grep ^last)"
done
L=(python3 workloads/python/train_imagefolder.py $D --batch-size 64 --amp --channels-last --steps 60 --timed-last 25)
for w in 0 4; do
  $A profile --torch -o $OUT/wb-w$w.amdahl --force -- "${L[@]}" --workers $w 2>&1 | grep -E "^last|written|processes"
  gzip -1 $OUT/wb-w$w.amdahl
done
python3 scripts/kineto_wrap.py $OUT/kineto-small-w2.json.gz workloads/python/train_imagefolder.py $D --batch-size 16 --steps 8 --workers 2 --arch resnet18 --amp --channels-last | tail -1
ls -la $OUT
