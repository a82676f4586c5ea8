#!/usr/bin/env bash
# The output layer's matrix products at a real vocabulary: attnseq's kernels beside OpenBLAS's sgemm on the
# same shapes, one thread each (the output-layer issue: the output product's rate set beside OpenBLAS's,
# goal at least half of it). Builds attnseq_train_flops (build/native, at most -j2) unless --no-build, then,
# round by round and per (H, V), runs `attnseq_train_flops --output-layer` and bench/sgemm.py (numpy on
# OpenBLAS) in turn, the order swapped every round, and prints one table. It measures; it never fails on time.
#
#   bash bench/output_layer.sh [--rounds N] [--budget SECONDS] [--H 256,512] [--V 8000,10000]
#                              [--shapes step_B1,step_B4,step_B1_int8,step_B4_int8,train_fwd,train_dX,train_dW]
#                              [--no-build] [--openblas-own-core]
#
# --budget: seconds of repetitions per shape and round, on each side (default 0.3). --openblas-own-core:
# keep the kernels OpenBLAS picks even where it mistakes the CPU for one without AVX2 (bench/sgemm.py).
# Needs Debian's python3-numpy and OpenBLAS as the system BLAS (libopenblas0-pthread: bash scripts/setup.sh
# --bench). Raw lines: build/bench-results/output_layer.txt. bench/README.md says what each shape is.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=3 BUDGET=0.3 HS=256,512 VS=8000,10000 BUILD=1
SHAPES=step_B1,step_B4,step_B1_int8,step_B4_int8,train_fwd,train_dX,train_dW
SGEMM_FLAGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --H) HS=$2; shift 2 ;;
    --V) VS=$2; shift 2 ;;
    --shapes) SHAPES=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --openblas-own-core) SGEMM_FLAGS+=(--openblas-own-core); shift ;;
    *) sed -n '2,15p' "$0"; exit 2 ;;
  esac
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "output_layer.sh: --rounds $ROUNDS: give a whole number of at least 1" >&2; exit 2; }

FLOPS=build/native/bench/attnseq_train_flops
PY=/usr/bin/python3
if [ "$BUILD" = 1 ]; then
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j2 --target attnseq_train_flops >/dev/null
fi
[ -x "$FLOPS" ] || { echo "output_layer.sh: $FLOPS is missing (run without --no-build)" >&2; exit 1; }
$PY -c 'import numpy' 2>/dev/null || {
  echo "output_layer.sh: bench/sgemm.py needs Debian's python3-numpy (and libopenblas0-pthread): bash scripts/setup.sh --bench" >&2
  exit 1
}
# numpy's shapes: an int8 row is set beside the f32 product of the same shape.
NP_SHAPES=$(tr ',' '\n' <<<"$SHAPES" | sed 's/_int8$//' | awk '!seen[$0]++' | paste -sd, -)

mkdir -p build/bench-results
RAW=build/bench-results/output_layer.txt
echo "== uptime:$(uptime | sed 's/.*load/ load/')"
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), nproc=$(nproc), $(lscpu | sed -n 's/^Model name: *//p'), $ROUNDS round(s), $BUDGET s per shape and side"
attnseq() { "$FLOPS" --output-layer --H "$1" --V "$2" --shapes "$SHAPES" --seconds "$BUDGET" | sed "s/^RESULT /RESULT round=$3 /"; }
openblas() {
  # OPENBLAS_NUM_THREADS=1 is set inside sgemm.py too (before numpy loads); here for whatever it starts.
  OPENBLAS_NUM_THREADS=1 $PY bench/sgemm.py --H "$1" --V "$2" --shapes "$NP_SHAPES" --budget "$BUDGET" \
    ${SGEMM_FLAGS[@]+"${SGEMM_FLAGS[@]}"} | sed "s/^RESULT /RESULT round=$3 /"
}
for r in $(seq 1 "$ROUNDS"); do
  for H in ${HS//,/ }; do
    for V in ${VS//,/ }; do
      if [ $((r % 2)) = 1 ]; then attnseq "$H" "$V" "$r"; openblas "$H" "$V" "$r"; else openblas "$H" "$V" "$r"; attnseq "$H" "$V" "$r"; fi
    done
  done
done | tee "$RAW"
echo "== uptime:$(uptime | sed 's/.*load/ load/')"

# The table: per shape the highest of the rounds' median rates (other processes only ever take rate away)
# on each side, their ratio, and the paired ratio (the median over rounds of the ratio within a round,
# the figure least moved by load); the same from CPU time. The goal (at least half of OpenBLAS's rate) is
# judged on the paired wall-clock ratio, for the f32 products (int8 is set beside the f32 sgemm for scale).
awk '
function field(k,   i) {
  for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2)
  return ""
}
function median(list,   n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^# blas: / { blas = substr($0, 9) }
/^BLAS / { name = field("name"); choice = field("core_choice") }
/^RESULT .*what=output_layer/ {
  shape = field("shape"); key = field("H") SUBSEP field("V") SUBSEP shape; r = field("round")
  g = field("gflops") + 0; c = field("cpu_gflops") + 0
  if (field("engine") == "attnseq") {
    if (!(key in kernel)) { order[++n] = key; kernel[key] = field("kernel") " (" field("arch") ")"
      dims[key] = field("M") "x" field("K") " by " field("K") "x" field("N") }
    if (g > best_a[key]) best_a[key] = g
    if (c > cbest_a[key]) cbest_a[key] = c
    a[key, r] = g; ca[key, r] = c
  } else {
    if (g > best_b[key]) best_b[key] = g
    if (c > cbest_b[key]) cbest_b[key] = c
    b[key, r] = g; cb[key, r] = c; rounds[r] = 1
  }
}
END {
  if (!n) { print "no attnseq RESULT lines: nothing to tabulate"; exit }
  print ""
  print "OpenBLAS: " blas " (kernels chosen by: " choice ")"
  if (name != "OpenBLAS") print "WARNING: numpy does not run on OpenBLAS here (" name "): the OpenBLAS columns are that BLAS"
  print ""
  print "### Output-layer products, one thread: attnseq against OpenBLAS (numpy) on the same shape, GFLOP/s (2 M N K / time)"
  print ""
  print "| H | V | shape | M x K by K x N | attnseq kernel | attnseq GFLOP/s | OpenBLAS GFLOP/s | ratio (paired) | attnseq CPU GFLOP/s | OpenBLAS CPU GFLOP/s | CPU ratio (paired) | goal >= 0.5x |"
  print "|---|---|---|---|---|---|---|---|---|---|---|---|"
  met = 0; judged = 0
  for (i = 1; i <= n; i++) {
    key = order[i]; split(key, k, SUBSEP); base = k[3]; sub(/_int8$/, "", base)
    bk = k[1] SUBSEP k[2] SUBSEP base
    if (!(bk in best_b)) {
      printf "| %s | %s | %s | %s | %s | %.1f | - | - | %.1f | - | - | - |\n", k[1], k[2], k[3], dims[key], kernel[key], best_a[key], cbest_a[key]
      continue
    }
    pw = ""; pc = ""
    for (r in rounds) if (((key, r) in a) && b[bk, r] > 0) { pw = pw " " a[key, r] / b[bk, r]; pc = pc " " ca[key, r] / cb[bk, r] }
    pwm = median(pw); pcm = median(pc)
    goal = "(int8)"
    if (base == k[3]) { judged++; if (pwm >= 0.5) { met++; goal = "met" } else goal = "NOT met" }
    printf "| %s | %s | %s | %s | %s | %.1f | %.1f | %.2fx (%.2fx) | %.1f | %.1f | %.2fx (%.2fx) | %s |\n", k[1], k[2], k[3], dims[key], kernel[key],
      best_a[key], best_b[bk], best_a[key] / best_b[bk], pwm, cbest_a[key], cbest_b[bk], cbest_a[key] / cbest_b[bk], pcm, goal
  }
  print ""
  print "goal (attnseq at least 0.5x OpenBLAS, paired wall-clock ratio, f32 products): met on " met " of " judged
}' "$RAW"
