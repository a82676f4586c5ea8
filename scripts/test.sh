#!/usr/bin/env bash
# `npm test`: installs what is missing, checks the house style (scripts/lint.sh), then builds and runs
# every suite:
#   doctest natively (xsimd default arch), with the reference kernels, under ASan+UBSan,
#   as wasm SIMD and wasm scalar under Node (all through ctest), the fuzzers for a bounded time,
#   the numpy re-derivation of the PyTorch parity fixtures, then the JavaScript suites (Node, Chromium).
#   Stops at the first failure.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
export NODE_PATH=/usr/share/nodejs   # Emscripten 3.1.6 needs it for -O2 links (acorn)
JOBS="${JOBS:-2}"
FAILED=0

step() { printf '\n=== %s ===\n' "$*"; }

step "lint: clang-format and ESLint (scripts/lint.sh)"
bash scripts/lint.sh

native_suite() {  # name, extra cmake args...
  local dir="build/$1"; shift
  step "doctest: $dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
  # build/native also builds the CLI, which tests/js/native-cli.test.mjs runs.
  local targets=(attnseq_tests)
  if [ "$dir" = build/native ]; then targets+=(attnseq); fi
  cmake --build "$dir" -j"$JOBS" --target "${targets[@]}"
  ctest --test-dir "$dir" --no-tests=error --output-on-failure -j"$JOBS"
}

wasm_suite() {  # name, ON|OFF (SIMD)
  local dir="build/$1"
  step "doctest: $dir (wasm, Node)"
  emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DATTNSEQ_WASM_SIMD="$2" \
    -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
  cmake --build "$dir" -j"$JOBS" --target attnseq_tests
  ctest --test-dir "$dir" --no-tests=error --output-on-failure -j"$JOBS"
}

native_suite native
native_suite native-reference -DATTNSEQ_REFERENCE_KERNELS=ON
native_suite asan -DATTNSEQ_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
wasm_suite wasm-simd ON
wasm_suite wasm-scalar OFF

step "fuzzing (bounded: ${FUZZ_SECONDS:-30} s per target)"
bash tests/fuzz/run.sh

step "the parity fixtures against a float64 numpy re-derivation"
/usr/bin/python3 tools/pytorch/check_fixtures.py | tail -n 1

step "build the npm package's module (dist/)"
bash scripts/build.sh
step "node --test tests/js"
node --test tests/js/
step "node --test tests/browser (Chromium)"
node --test --test-concurrency=1 tests/browser/
step "all suites passed"
