#!/usr/bin/env bash
# Builds attnseq_bench three ways (native, wasm SIMD, wasm scalar), runs all three in this one
# invocation, interleaved (round -> H -> variant) so that machine noise hits every variant alike,
# and prints the tables. It measures; it never fails on time (bench/README.md explains the output).
#
#   bash bench/run.sh [--rounds N] [--budget SECONDS] [--H 128,256,512] [--no-build] [--no-kernels]
#
# Every raw line is kept in build/bench-results/last.txt. Needs cmake, g++, emcmake/em++ 3.1.6,
# node and wasm-objdump (scripts/setup.sh installs them). The onnxruntime-web columns are read from
# the last bash bench/ort.sh (build/bench-results/ort.json); without it they say ORT was not measured.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=2 BUDGET=1.0 HS=128,256,512 BUILD=1 KERNELS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --H) HS=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --no-kernels) KERNELS=0; shift ;;
    *) sed -n '2,10p' "$0"; exit 2 ;;
  esac
done

NATIVE=build/bench-native/bench/attnseq_bench
SIMD=build/bench-wasm-simd/bench/attnseq_bench
SCALAR=build/bench-wasm-scalar/bench/attnseq_bench

if [ "$BUILD" = 1 ]; then
  echo "== building (attnseq_bench only, -j2)"
  bash bench/build.sh native simd scalar
fi

# SIMD really is (and is not) in the wasm builds: the whole bench binary (which also holds the
# bench's own lab kernels), and the engine alone (the objects of libattnseq_core.a).
simd_f32x4=$(wasm-objdump -d "$SIMD.wasm" | grep -c f32x4 || true)
simd_v128=$(wasm-objdump -d "$SIMD.wasm" | grep -c -E 'v128|f32x4|i32x4' || true)
scalar_v128=$(wasm-objdump -d "$SCALAR.wasm" | grep -c -E 'v128|f32x4|i32x4' || true)
lib_count() {  # lib_count LIB REGEX: matching disassembly lines over every object in the archive
  local t n=0 o
  t=$(mktemp -d)
  (cd "$t" && emar x "$OLDPWD/$1")
  for o in "$t"/*.o; do n=$((n + $(wasm-objdump -d "$o" | grep -c -E "$2" || true))); done
  rm -rf "$t"
  echo "$n"
}
core_simd_f32x4=$(lib_count build/bench-wasm-simd/libattnseq_core.a f32x4)
core_scalar_v128=$(lib_count build/bench-wasm-scalar/libattnseq_core.a 'v128|f32x4|i32x4')

mkdir -p build/bench-results
RAW=build/bench-results/last.txt
: >"$RAW"
run() {  # run VARIANT ROUND ARGS...: prefixes every line with its round
  local v=$1 r=$2; shift 2
  case "$v" in
    native) "$NATIVE" "$@" ;;
    simd) node "$SIMD.cjs" "$@" ;;
    scalar) node "$SCALAR.cjs" "$@" ;;
  esac | sed "s/^/round=$r /" | tee -a "$RAW" | { grep -E '^round=[^ ]+ (RESULT|KERNEL)' || true; } | cut -d' ' -f3-
}

echo "== $(date -u '+%Y-%m-%d %H:%M UTC')  nproc=$(nproc)  $(lscpu | grep 'Model name' | sed 's/  */ /g')"
echo "== node $(node --version), $(emcc --version | head -1 | sed 's/ (Emscripten.*replacement)//')"
echo "== uptime:$(uptime | sed 's/.*load/ load/')"
for r in $(seq 1 "$ROUNDS"); do
  for H in ${HS//,/ }; do
    for v in native simd scalar; do
      run "$v" "$r" --H="$H" --budget="$BUDGET"
    done
  done
done
if [ "$KERNELS" = 1 ]; then
  echo "== kernel micro-benchmark (the calls a step / encode makes, at their shapes; CPU time) and lab"
  for H in ${HS//,/ }; do
    for v in native simd scalar; do
      run "$v" k --H="$H" --what=kernels,lab --budget=0.3
    done
  done
fi
echo "== uptime:$(uptime | sed 's/.*load/ load/')"

# ---- tables ----------------------------------------------------------------------------------
# Per (build, H, what, B) the value is the lowest of the rounds' medians (noise from other
# processes only ever adds time). The onnxruntime-web columns come from the last `bash bench/ort.sh`
# (build/bench-results/ort.json, read by bench/ort_results.mjs: "# description", then per H
# "H step encode step_cpu encode_cpu"); without that file they stay empty and the tables say ORT was
# not measured. The wall-clock tables use ORT's wall-clock figures, the CPU-time tables its CPU time.
ORT=$(node bench/ort_results.mjs)
awk -v f32x4="$simd_f32x4" -v sv128="$simd_v128" -v cv128="$scalar_v128" \
    -v core_f32x4="$core_simd_f32x4" -v core_cv128="$core_scalar_v128" -v ort="$ORT" '
function kv(s,   n, i, a, p) { delete F; n = split(s, a, " "); for (i = 1; i <= n; i++) { p = index(a[i], "="); if (p) F[substr(a[i], 1, p - 1)] = substr(a[i], p + 1) } }
function best(k) { return (k in V) ? V[k] : -1 }
function main_table(title,   i, H, ns, ss, cs, ne, se, ce, os, oe) {
  print ""
  print title
  print ""
  print "| H | native step | wasm SIMD step | wasm scalar step | scalar/SIMD | ORT-web step | SIMD beats ORT | native encode | wasm SIMD encode | wasm scalar encode | scalar/SIMD | ORT-web encode | SIMD beats ORT |"
  print "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for (i = 1; i <= nH; i++) {
    H = Hs[i]
    ns = best("native" SUBSEP H SUBSEP "step" SUBSEP 1); ss = best("wasm-simd" SUBSEP H SUBSEP "step" SUBSEP 1); cs = best("wasm-scalar" SUBSEP H SUBSEP "step" SUBSEP 1)
    ne = best("native" SUBSEP H SUBSEP "encode" SUBSEP 1); se = best("wasm-simd" SUBSEP H SUBSEP "encode" SUBSEP 1); ce = best("wasm-scalar" SUBSEP H SUBSEP "encode" SUBSEP 1)
    os = (H in ort_step) ? ort_step[H] : -1; oe = (H in ort_enc) ? ort_enc[H] : -1
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", H, fmt(ns), fmt(ss), fmt(cs), ratio(cs, ss), fmt(os), os < 0 ? "-" : beats(ss, os), fmt(ne), fmt(se), fmt(ce), ratio(ce, se), fmt(oe), oe < 0 ? "-" : beats(se, oe)
  }
}
function beam_table(title,   i, H, n4, s4, c4, s1) {
  print ""
  print title
  print ""
  print "| H | native | wasm SIMD | wasm scalar | scalar/SIMD | SIMD B=4 / SIMD B=1 |"
  print "|---|---|---|---|---|---|"
  for (i = 1; i <= nH; i++) {
    H = Hs[i]
    n4 = best("native" SUBSEP H SUBSEP "step" SUBSEP 4); s4 = best("wasm-simd" SUBSEP H SUBSEP "step" SUBSEP 4); c4 = best("wasm-scalar" SUBSEP H SUBSEP "step" SUBSEP 4)
    s1 = best("wasm-simd" SUBSEP H SUBSEP "step" SUBSEP 1)
    printf "| %s | %s | %s | %s | %s | %s |\n", H, fmt(n4), fmt(s4), fmt(c4), ratio(c4, s4), ratio(s4, s1)
  }
}
function fmt(x) { return x < 0 ? "-" : (x >= 100 ? sprintf("%.0f", x) : sprintf("%.1f", x)) }
function ratio(a, b) { return (a < 0 || b <= 0) ? "-" : sprintf("%.2fx", a / b) }
function beats(x, ref) { return x < 0 ? "-" : (x < ref ? "yes" : "NO") }
/^round=[0-9]+ RESULT / {
  kv($0); k = F["build"] SUBSEP F["H"] SUBSEP F["what"] SUBSEP F["B"]
  if (!(k in V) || F["us"] + 0 < V[k]) V[k] = F["us"] + 0
  if (!(k in C) || F["cpu_us"] + 0 < C[k]) C[k] = F["cpu_us"] + 0
  if (!(F["H"] in seenH)) { seenH[F["H"]] = 1; Hs[++nH] = F["H"] }
}
/^round=k KERNEL / {
  kv($0); k = F["H"] SUBSEP F["kernel"]
  K[k SUBSEP F["build"]] = sprintf("%.2f (%s)", F["us"], F["gflops"] + 0 > 0 ? sprintf("%.1f GF/s", F["gflops"]) : (F["gbs"] + 0 > 0 ? sprintf("%.1f GB/s", F["gbs"]) : "-"))
  if (!(k in seenK)) { seenK[k] = 1; Kn[F["H"], ++nK[F["H"]]] = F["kernel"]; Ks[k] = F["shape"] }
}
END {
  n = split(ort, L, "\n"); ort_desc = "ORT: not measured (run bash bench/ort.sh)"
  for (i = 1; i <= n; i++) {
    if (substr(L[i], 1, 2) == "# ") { ort_desc = substr(L[i], 3); continue }
    if (split(L[i], w, " ") == 5) { ort_step[w[1]] = w[2] + 0; ort_enc[w[1]] = w[3] + 0; ort_step_cpu[w[1]] = w[4] + 0; ort_enc_cpu[w[1]] = w[5] + 0 }
  }
  print ""
  print ort_desc
  main_table("### Wall clock: per step (batch 1) and per encode (T = 32), µs, lower of the rounds\x27 medians")
  beam_table("### Wall clock: 4 hypotheses in one step() call (beam-sized batch), µs per step")
  for (k in C) V[k] = C[k]
  for (k in ort_step_cpu) { ort_step[k] = ort_step_cpu[k]; ort_enc[k] = ort_enc_cpu[k] }
  main_table("### CPU time (excludes time the scheduler gave to other processes): same measurements, µs")
  beam_table("### CPU time: 4 hypotheses in one step() call, µs per step")
  for (i = 1; i <= nH; i++) {
    H = Hs[i]
    if (!nK[H]) continue
    print ""
    print "### Kernels at H = " H ": CPU µs per call (GFLOP/s, or GB/s for read_*), median; lab_* are candidate layouts, not used by the engine"
    print ""
    print "| kernel | shape | native | wasm SIMD | wasm scalar |"
    print "|---|---|---|---|---|"
    for (j = 1; j <= nK[H]; j++) {
      kn = Kn[H, j]; k = H SUBSEP kn
      printf "| %s | %s | %s | %s | %s |\n", kn, Ks[k], K[k SUBSEP "native"], K[k SUBSEP "wasm-simd"], K[k SUBSEP "wasm-scalar"]
    }
  }
  print ""
  printf "wasm-objdump -d attnseq_bench.wasm: SIMD build f32x4 lines = %d (v128|f32x4|i32x4 lines = %d); scalar build v128|f32x4|i32x4 lines = %d\n", f32x4, sv128, cv128
  printf "wasm-objdump -d libattnseq_core.a objects (engine only): SIMD build f32x4 lines = %d; scalar build v128|f32x4|i32x4 lines = %d\n", core_f32x4, core_cv128
  printf "SIMD check: %s; scalar check: %s\n", (f32x4 > 0 && core_f32x4 > 0 ? "ok (f32x4 present)" : "FAILED (no f32x4)"), (cv128 == 0 && core_cv128 == 0 ? "ok (no v128)" : "FAILED (v128 present)")
}' "$RAW"

# Optional (JS_STEP=1 bash bench/run.sh ...): dec.step() through the public JS API beside the
# engine's raw step in the npm module (dist/, built by scripts/build.sh), bench/js_step.mjs.
if [ "${JS_STEP:-0}" = 1 ]; then
  echo "== JS API step vs raw engine step (bench/js_step.mjs)"
  [ "$BUILD" = 1 ] && bash scripts/build.sh
  node bench/js_step.mjs --rounds "$ROUNDS" --H "$HS" | tee build/bench-results/js_step.txt | grep -v '^round='
fi
