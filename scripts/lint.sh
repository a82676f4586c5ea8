#!/usr/bin/env bash
# The house style, checked (the first step of `npm test`): every C++ file of the repository against
# .clang-format with clang-format 14 (Debian's clang-format-14; other versions format differently),
# and every JavaScript file against eslint.config.js. A difference or a lint error fails it and
# names the file and line. A doctest name with a ';' fails too: ctest cuts the name there, and the
# test it registers runs no test case.
#   bash scripts/lint.sh          check
#   bash scripts/lint.sh --fix    rewrite the C++ files in the house style, apply ESLint's fixes
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CLANG_FORMAT="${CLANG_FORMAT:-clang-format-14}"
command -v "$CLANG_FORMAT" >/dev/null || { echo "lint: $CLANG_FORMAT not found (bash scripts/setup.sh installs it)" >&2; exit 1; }
mapfile -t CXX < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.inc')
if [ "${1:-}" = --fix ]; then
  "$CLANG_FORMAT" -i "${CXX[@]}"
  npx --no-install eslint --fix .
  exit 0
fi
status=0
"$CLANG_FORMAT" --dry-run --Werror "${CXX[@]}" || { echo "lint: C++ not in the house style; bash scripts/lint.sh --fix rewrites it" >&2; status=1; }
if grep -nE '(TEST_CASE|SUBCASE)\("[^"]*;' tests/cpp/*.cpp; then
  echo "lint: a ';' in a doctest name above: ctest would cut the name there" >&2; status=1
fi
npx --no-install eslint . || { echo "lint: ESLint errors above" >&2; status=1; }
[ "$status" = 0 ] && echo "lint: ${#CXX[@]} C++ files formatted, JavaScript lint-free"
exit "$status"
