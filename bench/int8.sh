#!/usr/bin/env bash
# int8 against f32 (Model::quantize): builds attnseq_bench natively and as wasm SIMD, then runs both
# in this one invocation, interleaved (round -> H -> native, wasm SIMD), each measuring the reference
# model and its int8 copy in alternating repetitions (bench_engine.cpp, --what=encode,step,int8), and
# prints one table per clock. It measures; it never fails on time (bench/README.md).
#
#   bash bench/int8.sh [--rounds N] [--budget SECONDS] [--H 128,256,512] [--no-build]
#
# Raw lines go to build/bench-results/int8.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=2 BUDGET=1.0 HS=128,256,512 BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --H) HS=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    *) sed -n '2,9p' "$0"; exit 2 ;;
  esac
done

NATIVE=build/bench-native/bench/attnseq_bench
SIMD=build/bench-wasm-simd/bench/attnseq_bench
if [ "$BUILD" = 1 ]; then
  echo "== building attnseq_bench (native, wasm SIMD; -j2)"
  bash bench/build.sh native simd
fi

mkdir -p build/bench-results
RAW=build/bench-results/int8.txt
: >"$RAW"
echo "== $(date -u '+%Y-%m-%d %H:%M UTC')  nproc=$(nproc)  $(lscpu | grep 'Model name' | sed 's/  */ /g')"
echo "== node $(node --version), $(emcc --version | head -1 | sed 's/ (Emscripten.*replacement)//')"
echo "== uptime:$(uptime | sed 's/.*load/ load/')"
for r in $(seq 1 "$ROUNDS"); do
  for H in ${HS//,/ }; do
    "$NATIVE" --H="$H" --what=encode,step,int8 --budget="$BUDGET" | sed "s/^/round=$r /" >>"$RAW"
    node "$SIMD.cjs" --H="$H" --what=encode,step,int8 --budget="$BUDGET" | sed "s/^/round=$r /" >>"$RAW"
  done
done
echo "== uptime:$(uptime | sed 's/.*load/ load/')"
grep -h ' FILESIZE ' "$RAW" | sort -u -k3,3 | cut -d' ' -f2-

# Per (build, H, what): the lowest of the rounds' medians (noise only ever adds time), the ratio of
# those, and the median over rounds of the paired ratio (int8 / f32 of repetitions run back to back).
awk '
function kv(s,   n, i, a, p) { delete F; n = split(s, a, " "); for (i = 1; i <= n; i++) { p = index(a[i], "="); if (p) F[substr(a[i], 1, p - 1)] = substr(a[i], p + 1) } }
function low(k, x) { if (!(k in V) || x < V[k]) V[k] = x }
/ RESULT / { kv($0); low(F["build"] SUBSEP F["H"] SUBSEP F["what"] SUBSEP "wall", F["us"] + 0); low(F["build"] SUBSEP F["H"] SUBSEP F["what"] SUBSEP "cpu", F["cpu_us"] + 0)
             if (!(F["H"] in seenH)) { seenH[F["H"]] = 1; Hs[++nH] = F["H"] } }
/ INT8 / { kv($0); k = F["build"] SUBSEP F["H"] SUBSEP F["what"]; P[k, "wall"] = P[k, "wall"] " " F["paired"]; P[k, "cpu"] = P[k, "cpu"] " " F["cpu_paired"]; Q[F["build"]] = F["q8"]; A[F["build"]] = F["arch"] }
function med(s,   n, a, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function f(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.1f", x) }
function table(clock, title,   i, H, b, w, a, q) {
  print ""; print title; print ""
  print "| H | what | native f32 | native int8 | int8 / f32 (paired) | wasm SIMD f32 | wasm SIMD int8 | int8 / f32 (paired) |"
  print "|---|---|---|---|---|---|---|---|"
  for (i = 1; i <= nH; i++) for (w = 1; w <= 2; w++) {
    H = Hs[i]; what = w == 1 ? "step" : "encode"
    printf "| %s | %s", H, what
    split("native wasm-simd", bs, " ")
    for (b = 1; b <= 2; b++) {
      a = V[bs[b] SUBSEP H SUBSEP what SUBSEP clock]; q = V[bs[b] SUBSEP H SUBSEP what "-int8" SUBSEP clock]
      printf " | %s | %s | %.2fx (%.2fx)", f(a), f(q), q / a, med(P[bs[b] SUBSEP H SUBSEP what, clock])
    }
    print " |"
  }
}
END {
  printf "kernels: native %s (int8 %s), wasm SIMD %s (int8 %s)\n", A["native"], Q["native"], A["wasm-simd"], Q["wasm-simd"]
  table("wall", "### Wall clock, µs (lower of the rounds\x27 medians; paired: median of int8/f32 over back-to-back repetitions)")
  table("cpu", "### CPU time, µs (same runs)")
}' "$RAW"
