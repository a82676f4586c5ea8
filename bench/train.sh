#!/usr/bin/env bash
# Training throughput, side by side in one run (issue 10's benchmark): target tokens per second of
# `attnseq train` natively with one thread and with every core, of the npm package's createTrainer in
# Node (wasm SIMD, one thread), and of the PyTorch twin (tools/pytorch/train.py) on the same TSV data
# and configuration, interleaved round by round; plus the training step's achieved GFLOP/s and the
# matrix-product rates of our kernels and of OpenBLAS on the model's shapes. It measures; it never
# fails on time. bench/README.md says how to read it.
#
#   bash bench/train.sh [--rounds N] [--config g2p|dates|both|m30k] [--no-build] [--no-torch]
#
# m30k is the translation recipe's configuration (scripts/train-multi30k.sh: Multi30K en-de through its
# SentencePiece models, V 8,000, hidden and tied embeddings 512): native `train --src --tgt` (stopped
# after a few steps of its first epoch) against the twin's `train.py --src --tgt`; no wasm figure (the
# package's createTrainer takes tasks and TSV, not parallel text with tokenizers).
#
# The twin needs Debian's python3-torch, and OpenBLAS as the system BLAS (libopenblas0-pthread:
# `update-alternatives` then points libblas.so.3 at it; the line "blas:" below says which one ran):
#   apt-get install python3-torch libopenblas0-pthread     (or: bash scripts/setup.sh --bench)
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=2 CONFIG=both BUILD=1 TORCH=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --config) CONFIG=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --no-torch) TORCH=0; shift ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done

CLI=build/native/attnseq FLOPS=build/native/bench/attnseq_train_flops
if [ "$BUILD" = 1 ]; then
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j"$(nproc)" --target attnseq attnseq_train_flops >/dev/null
  NODE_PATH=/usr/share/nodejs bash scripts/build.sh >/dev/null
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
NPROC=$(nproc)
PY=/usr/bin/python3
if [ "$TORCH" = 1 ] && ! $PY -c 'import torch' 2>/dev/null; then
  echo "the PyTorch twin needs Debian's python3-torch (see the header of this script); or pass --no-torch" >&2
  exit 1
fi

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
# OpenBLAS 0.3.21 does not know every CPU: on one it cannot name it falls back to SSE3 kernels, several
# times slower than its AVX-512 ones, and the twin would look far slower than it is. bench/sgemm.py asks
# the library which kernels it chose; the fairer ones are set here unless OPENBLAS_CORETYPE already is.
if [ "$TORCH" = 1 ] && [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  fix=$($PY bench/sgemm.py --coretype-fix)
  if [ -n "$fix" ]; then
    export OPENBLAS_CORETYPE="$fix"
    echo "OpenBLAS chose kernels without AVX2 on this CPU: the twin runs with OPENBLAS_CORETYPE=$fix"
  fi
fi
echo "machine: nproc=$NPROC, $(lscpu | sed -n 's/^Model name: *//p') (the arch in use: the RESULT what=train_step line)"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$TORCH" = 1 ]; then
  echo "blas: $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3); torch $($PY -c 'import torch; print(torch.__version__)')"
fi

if [ "$CONFIG" != m30k ]; then
# The data: CMUdict's training words (G2P) and 100,000 dates of the dates task as TSV.
$FLOPS --task dates --dump-tsv 100000 "$TMP/dates.tsv"
G2P_DATA=data/cmudict/g014b2b.train
G2P_FLAGS="--src-tokenizer char --tgt-tokenizer word --bidirectional --bridge --input-feeding --score general --hidden 256 --embedding 64"
G2P_WASM="char word 10 64 256 64 bidirectional,bridge,inputFeeding general"
DATES_FLAGS="--src-tokenizer char --tgt-tokenizer char --hidden 64 --embedding 32"
DATES_WASM="char char 60 64 64 32"

# Matrix-product rates on the G2P decoder's recurrent shape, one thread: ours, then OpenBLAS (numpy).
$FLOPS --data $G2P_DATA $G2P_FLAGS --seconds 3
if [ "$TORCH" = 1 ]; then
  OPENBLAS_NUM_THREADS=1 $PY - <<'PY'
import time, numpy as np
a = np.random.rand(64, 256).astype(np.float32); b = np.random.rand(256, 768).astype(np.float32)
a @ b; t = time.perf_counter(); n = 0
while time.perf_counter() - t < 1: a @ b; n += 1
print(f"RESULT what=openblas shape=64x256_by_256x768 gflops={2 * 64 * 256 * 768 * n / (time.perf_counter() - t) / 1e9:.1f}")
PY
fi
fi

run_config() {  # name data flags wasm_args native_steps torch_steps
  local name=$1 data=$2 flags=$3 wasm=$4 steps=$5 tsteps=$6 r out
  for r in $(seq 1 "$ROUNDS"); do
    for threads in 1 "$NPROC"; do
      out=$($CLI train --data "$data" $flags --batch 64 --steps "$steps" --warmup 4 --seed 1 --quiet \
        --threads "$threads" --out "$TMP/n.safetensors" | tail -1)
      echo "RESULT config=$name round=$r trainer=native_${threads}t tok_s=$(sed -E 's/.*\(([0-9.]+) target tokens\/s\).*/\1/' <<<"$out")"
    done
    echo "RESULT config=$name round=$r $(node bench/train_wasm.mjs "$data" $wasm | sed 's/^RESULT //')"
    if [ "$TORCH" = 1 ]; then
      for threads in 1 "$NPROC"; do
        # PyTorch's own threads only: OpenBLAS's pthreads on top of them oversubscribe the cores (on
        # this 2-core machine the twin then ran 27x slower), so OpenBLAS runs one thread per call.
        out=$(OPENBLAS_NUM_THREADS=1 $PY tools/pytorch/train.py --data "$data" $flags --batch 64 --steps "$tsteps" \
          --warmup 4 --seed 1 --device cpu --threads "$threads" --eval 0 --log-every 1000000 \
          --out "$TMP/t.safetensors" 2>&1 | tail -1)
        echo "RESULT config=$name round=$r trainer=pytorch_${threads}t tok_s=$(sed -E 's/.*\(([0-9.]+) target tokens\/s\).*/\1/' <<<"$out")"
      done
    fi
  done
}
case "$CONFIG" in g2p|both) run_config g2p $G2P_DATA "$G2P_FLAGS" "$G2P_WASM" 60 40 ;; esac
case "$CONFIG" in dates|both) run_config dates "$TMP/dates.tsv" "$DATES_FLAGS" "$DATES_WASM" 600 200 ;; esac

M30K=data/multi30k
M30K_DATA="--src $M30K/raw/train.en --tgt $M30K/raw/train.de"
M30K_SPM="--src-spm $M30K/spm/m30k_en.model --tgt-spm $M30K/spm/m30k_de.model"
M30K_FLAGS="--bidirectional --input-feeding --score general --hidden 512 --embedding 512 --tie-embeddings --dropout 0.3 --label-smoothing 0.1"
run_m30k() {  # native_steps torch_steps
  local r out threads
  for r in $(seq 1 "$ROUNDS"); do
    for threads in 1 "$NPROC"; do
      out=$($CLI train $M30K_DATA --dev-src $M30K/raw/val.en --dev-tgt $M30K/raw/val.de $M30K_SPM $M30K_FLAGS \
        --batch 64 --epochs 1 --stop-after "$1" --warmup 4 --seed 1 --quiet --threads "$threads" \
        --out "$TMP/m.safetensors" | tail -1)
      echo "RESULT config=m30k round=$r trainer=native_${threads}t tok_s=$(sed -E 's/.*\(([0-9.]+) target tokens\/s\).*/\1/' <<<"$out")"
    done
    if [ "$TORCH" = 1 ]; then
      for threads in 1 "$NPROC"; do
        out=$(OPENBLAS_NUM_THREADS=1 $PY tools/pytorch/train.py $M30K_DATA $M30K_SPM $M30K_FLAGS --batch 64 \
          --steps "$2" --warmup 4 --seed 1 --device cpu --threads "$threads" --eval 0 --log-every 1000000 \
          --out "$TMP/t.safetensors" 2>&1 | tail -1)
        echo "RESULT config=m30k round=$r trainer=pytorch_${threads}t tok_s=$(sed -E 's/.*\(([0-9.]+) target tokens\/s\).*/\1/' <<<"$out")"
      done
    fi
  done
}
case "$CONFIG" in m30k) run_m30k "${M30K_STEPS:-40}" "${M30K_TORCH_STEPS:-20}" ;; esac
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
