# Sourced first by every training recipe (scripts/train-*.sh, scripts/distill-*.sh):
#   . "$(dirname "${BASH_SOURCE[0]}")/lib/recipe.sh"
# It sets strict mode, makes the repository's root the working folder (ROOT), and gives the settings
# every recipe shares their defaults: THREADS (every core) and SAVE_EVERY (steps between mid-epoch
# saves, 200). ensure_cli, called once the recipe has read its arguments, sets CLI, the attnseq
# binary the recipe runs (default build/native/attnseq; a copy keeps a long run safe from rebuilds),
# and builds it when it is missing (JOBS compile jobs, default 2).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
THREADS="${THREADS:-$(nproc)}"
SAVE_EVERY="${SAVE_EVERY:-200}"

ensure_cli() {
  CLI="${CLI:-build/native/attnseq}"
  if [ ! -x "$CLI" ]; then
    cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build/native -j"${JOBS:-2}" --target attnseq
  fi
}
