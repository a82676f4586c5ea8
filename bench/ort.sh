#!/usr/bin/env bash
# attnseq against onnxruntime-web, side by side, with one command: exports the reference model with the
# PyTorch twin if needed (tools/pytorch/export_onnx.py -> build/onnx/), builds the npm package's module
# (dist/) unless --no-build, then times both engines in one Node process (bench/ort.mjs), interleaved,
# and writes build/bench-results/ort.json, which bench/run.sh and bench/js_step.mjs read.
# It measures; it never fails on time. It fails if the two engines' outputs disagree.
#
#   bash bench/ort.sh [--rounds N] [--budget SECONDS] [--H 128,256,512] [--V 1000] [--no-build] [--export]
#
# --V: the vocabulary (both sides) of the exported model; 1000 is the reference model of every other
# benchmark. Any other V (10000: the output layer at a real size) reads and writes its own files,
# build/onnx/ref-H<H>-V<V>* and build/bench-results/ort-V<V>.{txt,json}, so that run.sh and js_step.mjs,
# which compare V = 1000 figures, never quote them.
# Needs onnxruntime-web (an npm dev dependency: npm ci / scripts/setup.sh), and for the export only,
# Debian's python3-torch (bash scripts/setup.sh --bench installs it). Output: build/bench-results/ort.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=3 BUDGET=0.3 HS=128,256,512 V=1000 BUILD=1 FORCE_EXPORT=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --H) HS=$2; shift 2 ;;
    --V) V=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --export) FORCE_EXPORT=1; shift ;;
    *) sed -n '2,15p' "$0"; exit 2 ;;
  esac
done
[[ "$V" =~ ^[0-9]+$ && "$V" -ge 5 ]] || { echo "ort.sh: --V $V: the vocabulary must be a whole number of at least 5" >&2; exit 2; }
# The files' stem per H and the results' names, as tools/pytorch/export_onnx.py and bench/ort.mjs name them.
if [ "$V" = 1000 ]; then SUFFIX='' RESULTS=ort; else SUFFIX="-V$V" RESULTS="ort-V$V"; fi

[ -f node_modules/onnxruntime-web/package.json ] || {
  echo "ort.sh: onnxruntime-web is not installed (it is an npm dev dependency: npm ci, or bash scripts/setup.sh)" >&2; exit 1; }

# Export the H values whose files are missing or older than the exporter or the twin.
OUT=build/onnx
stale=()
for H in ${HS//,/ }; do
  base=$OUT/ref-H$H$SUFFIX
  for f in "$base.safetensors" "$base-encode.onnx" "$base-step.onnx" "$base.json"; do
    if [ "$FORCE_EXPORT" = 1 ] || [ ! -f "$f" ] || [ "$f" -ot tools/pytorch/export_onnx.py ] || [ "$f" -ot tools/pytorch/attnseq_twin.py ]; then
      stale+=("$H"); break
    fi
  done
done
if [ ${#stale[@]} -gt 0 ]; then
  /usr/bin/python3 -c 'import torch' 2>/dev/null || {
    echo "ort.sh: exporting the reference model needs Debian's python3-torch: bash scripts/setup.sh --bench" >&2; exit 1; }
  list=$(IFS=,; echo "${stale[*]}")
  echo "== exporting H = $list, V = $V with the PyTorch twin (tools/pytorch/export_onnx.py)"
  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 tools/pytorch/export_onnx.py --H "$list" --V "$V" --out "$OUT"
fi

if [ "$BUILD" = 1 ]; then bash scripts/build.sh; fi
[ -f dist/attnseq-core.wasm ] || { echo "ort.sh: dist/ is missing (bash scripts/build.sh)" >&2; exit 1; }

mkdir -p build/bench-results
echo "== uptime:$(uptime | sed 's/.*load/ load/')"
node bench/ort.mjs --rounds "$ROUNDS" --budget "$BUDGET" --H "$HS" --V "$V" --dir "$OUT" \
  --out "build/bench-results/$RESULTS.json" | tee "build/bench-results/$RESULTS.txt"
echo "== uptime:$(uptime | sed 's/.*load/ load/')"
