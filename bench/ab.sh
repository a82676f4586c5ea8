#!/usr/bin/env bash
# An A/B of a change, side by side in one run: this work tree against an older commit (REV), the two
# builds run in turn, round by round, so that load from other processes hits both alike. It measures
# and prints; it never fails on time. What it times (all native, one thread unless said):
#   - attnseq_bench's encode, step B=1 and the beam's step B=4 at H = 256 (bench/README.md), median
#     CPU µs;
#   - `attnseq train` on CMUdict (the G2P configuration of bench/train.sh), 60 steps, 1 and every
#     thread, target tokens/s;
#   - `attnseq translate --batch-file` of 200 Multi30K val sentences with the shipped en-fr at beam 5,
#     and of 2,000 CMUdict words with the shipped g2p-en at beam 5, one thread, wall seconds.
# With --wasm, also the wasm SIMD build of attnseq_bench (Node), encode and steps at H = 256.
#
#   bash bench/ab.sh REV [--rounds N] [--wasm]
#
# REV is built in build/ab-<short hash>/ from a `git worktree` there; this tree in build/ab-head/
# (uncommitted changes included). The shipped models of THIS tree are used by both.
set -euo pipefail
cd "$(dirname "$0")/.."

REV="" ROUNDS=3 WASM=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --wasm) WASM=1; shift ;;
    -*) sed -n '2,15p' "$0"; exit 2 ;;
    *) REV=$1; shift ;;
  esac
done
[ -n "$REV" ] || { sed -n '2,15p' "$0"; exit 2; }
OLD_HASH=$(git rev-parse --short "$REV^{commit}")
ROOT=$PWD
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The old sources stay in build/ab-<hash>/src (a detached worktree), so that a second A/B against the
# same commit rebuilds only what changed here; `git worktree prune` forgets it once build/ is cleaned.
OLD_SRC="$ROOT/build/ab-$OLD_HASH/src"
if [ ! -d "$OLD_SRC" ]; then
  git worktree prune
  git worktree add --detach -q "$OLD_SRC" "$OLD_HASH"
fi

# Both builds use this tree's xsimd (scripts/setup.sh puts it in third_party/, which git ignores).
XSIMD=(-DATTNSEQ_XSIMD_INCLUDE="$ROOT/third_party/xsimd/usr/include")
build() {  # src_dir build_dir
  cmake -S "$1" -B "$2/native" -DCMAKE_BUILD_TYPE=Release -DATTNSEQ_TESTS=OFF "${XSIMD[@]}" >/dev/null
  cmake --build "$2/native" -j2 --target attnseq attnseq_bench >/dev/null
  if [ "$WASM" = 1 ]; then
    NODE_PATH=/usr/share/nodejs emcmake cmake -S "$1" -B "$2/wasm-simd" -DCMAKE_BUILD_TYPE=Release \
      -DATTNSEQ_TESTS=OFF "${XSIMD[@]}" -DATTNSEQ_WASM_SIMD=ON -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
    NODE_PATH=/usr/share/nodejs cmake --build "$2/wasm-simd" -j2 --target attnseq_bench >/dev/null
  fi
}
echo "building $OLD_HASH (build/ab-$OLD_HASH) and this tree (build/ab-head)" >&2
build "$OLD_SRC" "$ROOT/build/ab-$OLD_HASH"
build "$ROOT" "$ROOT/build/ab-head"

# The inputs: 200 val sentences for en-fr, 2,000 CMUdict words (every 50th of the training list).
sed -n '1,200p' data/multi30k/raw/val.en > "$TMP/enfr.txt"
awk 'NR % 50 == 0 { print $1 }' data/cmudict/g014b2b.train | head -2000 > "$TMP/g2p.txt"
G2P_FLAGS="--src-tokenizer char --tgt-tokenizer word --bidirectional --bridge --input-feeding --score general --hidden 256 --embedding 64"

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); old = $OLD_HASH ($(git log -1 --format=%s "$OLD_HASH" | cut -c1-70)...)"
echo "new = this tree at $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' with uncommitted changes')"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
one() {  # label build_dir round
  local b=$2 r=$3 out threads
  "$b/native/bench/attnseq_bench" --H=256 --what=encode,step,beam --budget=0.5 |
    awk -v l="$1" -v r="$r" '/^RESULT/ { w = ""; bb = ""; c = "";
      for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "what") w = kv[2]; if (kv[1] == "B") bb = kv[2]; if (kv[1] == "cpu_us") c = kv[2] }
      printf "AB %s round=%d what=native_%s%s cpu_us=%s\n", l, r, w, (bb == "" ? "" : "_B" bb), c }'
  if [ "$WASM" = 1 ]; then
    node "$b/wasm-simd/bench/attnseq_bench.cjs" --H=256 --what=encode,step,beam --budget=0.5 |
      awk -v l="$1" -v r="$r" '/^RESULT/ { w = ""; bb = ""; c = "";
        for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "what") w = kv[2]; if (kv[1] == "B") bb = kv[2]; if (kv[1] == "cpu_us") c = kv[2] }
        printf "AB %s round=%d what=wasm_%s%s cpu_us=%s\n", l, r, w, (bb == "" ? "" : "_B" bb), c }'
  fi
  for threads in 1 2; do
    out=$("$b/native/attnseq" train --data data/cmudict/g014b2b.train $G2P_FLAGS --batch 64 --steps 60 --warmup 4 \
      --seed 1 --quiet --threads "$threads" --out "$TMP/$1.safetensors" | tail -1)
    echo "AB $1 round=$r what=train_g2p_${threads}t tok_s=$(sed -E 's/.*\(([0-9.]+) target tokens\/s\).*/\1/' <<<"$out")"
  done
  echo "AB $1 round=$r what=enfr_beam5 s=$(secs "$b/native/attnseq" translate --model models/en-fr.safetensors --beam 5 \
    --threads 1 --batch-file "$TMP/enfr.txt")"
  echo "AB $1 round=$r what=g2p_beam5 s=$(secs "$b/native/attnseq" translate --model models/g2p-en.safetensors --beam 5 \
    --threads 1 --batch-file "$TMP/g2p.txt")"
}
for r in $(seq 1 "$ROUNDS"); do
  one old "$ROOT/build/ab-$OLD_HASH" "$r"
  one new "$ROOT/build/ab-head" "$r"
done | tee "$TMP/ab.txt"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# The table: per measurement, the best round of each (other processes only ever add time), and the
# ratio new/old of time (µs, s: below 1 is faster) or of throughput (tok/s: above 1 is faster).
awk '{ split($5, kv, "="); k = $4; sub("what=", "", k); v = kv[2] + 0; u[k] = kv[1]
       if ($2 == "old") { if (!(k in o) || (kv[1] == "tok_s" ? v > o[k] : v < o[k])) o[k] = v }
       else { if (!(k in n) || (kv[1] == "tok_s" ? v > n[k] : v < n[k])) n[k] = v }
       if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
     END { printf "\n| measurement | unit | old (best of rounds) | new | new/old |\n|---|---|---|---|---|\n"
           for (i = 1; i <= m; i++) { k = order[i]
             printf "| %s | %s | %.4g | %.4g | %.3f |\n", k, u[k], o[k], n[k], n[k] / o[k] } }' "$TMP/ab.txt"
