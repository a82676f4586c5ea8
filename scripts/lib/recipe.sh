# Sourced by the recipes (scripts/train-*.sh, scripts/distill-*.sh): ensure_cli sets CLI, the attnseq
# binary they run (default build/native/attnseq; a copy keeps a long run safe from rebuilds), and
# builds it when it is missing (JOBS compile jobs, default 2).
ensure_cli() {
  CLI="${CLI:-build/native/attnseq}"
  if [ ! -x "$CLI" ]; then
    cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build/native -j"${JOBS:-2}" --target attnseq
  fi
}
