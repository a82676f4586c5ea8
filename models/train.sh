#!/usr/bin/env bash
# Reproduces every shipped model: one command and one seed each (see models/README.md for the
# evaluation of each). Usage: bash models/train.sh [NAME ...]   (default: all). Native build needed:
#   cmake -S . -B build/native && cmake --build build/native -j2 --target attnseq
set -euo pipefail
cd "$(dirname "$0")/.."
A=build/native/attnseq
ARGS=("$@")
unset RUN_THREADS  # set per model below only, never inherited
run() {  # name, then train flags
  local name=$1; shift
  if [ ${#ARGS[@]} -gt 0 ] && ! printf '%s\n' "${ARGS[@]}" | grep -qx "$name"; then return; fi
  echo "== $name"
  # The SSE2 kernels and a fixed thread count (one, unless RUN_THREADS says otherwise): how the shipped
  # files were trained, so the bytes repeat (the native build picks the best instruction set at run
  # time, and results depend on the thread count, not on the cores present).
  ATTNSEQ_ARCH=sse2 "$A" train "$@" --threads "${RUN_THREADS:-1}" --name "$name" --quiet --out "models/$name.safetensors"
  rm -f "models/$name.safetensors.trainer"
}
COMMON_ENKO=(--task en-ko --hidden 64 --embedding 64 --steps 3000 --batch 64 --lr 0.005 --seed 11)
# Two threads (two shards per batch, summed in a fixed order) shorten the longest dates run; the bytes
# repeat for two threads as they do for one.
RUN_THREADS=2 run dates --task dates --hidden 64 --embedding 32 --steps 16000 --batch 64 --lr 0.005 --seed 1
run en-ko        "${COMMON_ENKO[@]}" --style luong --score dot
run en-ko-general  "${COMMON_ENKO[@]}" --style luong --score general
run en-ko-additive "${COMMON_ENKO[@]}" --style luong --score additive
run en-ko-bahdanau "${COMMON_ENKO[@]}" --style bahdanau --score additive
run en-ko-vanilla  "${COMMON_ENKO[@]}" --style none
COMMON_REV=(--task reverse --min-len 1 --max-len 60 --hidden 128 --embedding 32 --bidirectional --steps 6000 --batch 32 --lr 0.003 --seed 21)
run reverse          "${COMMON_REV[@]}" --style luong --score dot
run reverse-vanilla  "${COMMON_REV[@]}" --style none
