#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) in build/fuzz and runs each one for
# $FUZZ_SECONDS seconds (default 30) on a copy of its seed corpus, so the checked-in corpus is never
# modified. A crash, sanitizer report, timeout or OOM fails the target: its reproducer is left in
# build/fuzz/artifacts/<target>/ and the log in build/fuzz/logs/<target>.log.
# Ends with the summary line CI reads: "N passed, M failed"; exits non-zero if any target failed.
#   FUZZ_SECONDS=300 tests/fuzz/run.sh          # longer run
#   FUZZ_JOBS=1 tests/fuzz/run.sh               # build parallelism (default 2)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
FUZZ_JOBS="${FUZZ_JOBS:-2}"
BUILD=build/fuzz

CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DATTNSEQ_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$FUZZ_JOBS" --target fuzz_checkpoint fuzz_tokenizer

# target:max_len (bytes of the largest generated input)
TARGETS=("checkpoint:65536" "tokenizer:8192")

passed=0
failed=0
mkdir -p "$BUILD/logs"
for entry in "${TARGETS[@]}"; do
  name="${entry%%:*}"
  max_len="${entry##*:}"
  exe="$BUILD/fuzz_$name"
  corpus="$BUILD/corpus/$name"
  artifacts="$BUILD/artifacts/$name/"
  log="$BUILD/logs/$name.log"
  rm -rf "$corpus" "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  cp -R "tests/fuzz/corpus/$name/." "$corpus/"
  echo "== fuzz_$name: ${FUZZ_SECONDS}s on $(ls "$corpus" | wc -l) seeds (max_len $max_len)"
  set +e
  "$exe" "$corpus" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -timeout=10 -max_len="$max_len" \
    -artifact_prefix="$artifacts" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  # Only libFuzzer's own end-of-run line counts as a clean run (a crash ends the log otherwise).
  if [ "$rc" -eq 0 ] && grep -q "^Done [0-9]* runs" "$log"; then
    passed=$((passed + 1))
    grep -E "^Done [0-9]* runs|^stat::number_of_executed_units|^stat::peak_rss_mb" "$log" | sed 's/^/   /'
    echo "   corpus now $(ls "$corpus" | wc -l) files; new inputs can be merged with:"
    echo "   $exe -merge=1 -max_len=$max_len tests/fuzz/corpus/$name $corpus"
  else
    failed=$((failed + 1))
    echo "   FAILED (exit $rc); log: $log"
    grep -E "ERROR: |SUMMARY: |fuzz_$name: |^==[0-9]+==|deadly signal|Test unit written" "$log" | head -20 | sed 's/^/   /' || true
    ls "$artifacts" 2>/dev/null | sed "s|^|   reproducer: $artifacts|" || true
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
