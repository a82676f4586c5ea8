#!/usr/bin/env bash
# Chooses, on val, what ships for a Multi30K language pair among candidates that decode together (an
# ensemble: docs/translation.md, "Ensembles that ship"), and scores the choice on the test sets once:
#   1. every member stored as int8 in OUTDIR (`attnseq quantize`; a file already int8 is copied);
#   2. each candidate whose int8 files fit LIMIT bytes together: its length penalty, chosen on val at
#      beam 5 among 0.6 to 1.6 (best 13a BLEU), one line per candidate in OUTDIR/val.tsv (a rerun
#      keeps the lines it finds there and scores only the candidates it has not);
#   3. the choice: the best val 13a BLEU, on a tie the fewer bytes (OUTDIR/choice.txt: the files, in
#      order, and the penalty);
#   4. the test sets, decoded once with the choice (OUTDIR/test.txt, val's figures first), unless
#      OUTDIR/test.txt already holds the same choice's, or the choice is one file that is already in
#      models/ (it shipped: its test figures are in models/README.md), or SKIP_TEST=1.
#   bash scripts/ensemble-multi30k.sh de|fr OUTDIR CANDIDATE...
#   CANDIDATE: the checkpoints of one candidate, space-separated in one argument, the first the
#   ensemble's own; one file is a single model ('models/en-fr.safetensors' 'a.safetensors b.safetensors')
#   env: LIMIT (bytes a candidate may take, default 20000000: issue 24's 20 MB for a pair), RAW (the
#   folder of the val and test files, default data/multi30k/raw), THREADS, CLI as in train-multi30k.sh.
# shellcheck source=scripts/lib/recipe.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/recipe.sh"
usage="usage: bash scripts/ensemble-multi30k.sh de|fr OUTDIR CANDIDATE... (CANDIDATE: 'a.safetensors [b.safetensors...]')"
LANG_T="${1:?$usage}"
OUTDIR="${2:?$usage}"
shift 2
[ "$#" -ge 1 ] || { echo "$usage" >&2; exit 2; }
case "$LANG_T" in de|fr) ;; *) echo "target language is de or fr, not '$LANG_T'" >&2; exit 2 ;; esac
ensure_cli
RAW="${RAW:-data/multi30k/raw}"
LIMIT="${LIMIT:-20000000}"
mkdir -p "$OUTDIR"
VAL="$OUTDIR/val.tsv"
touch "$VAL"

# 1. int8 members: OUTDIR/<name>.int8.safetensors, made once per member.
int8_of() { local b; b="$(basename "$1" .safetensors)"; echo "$OUTDIR/${b%.int8}.int8.safetensors"; }
# files_of CANDIDATE: its files into the array FILES; key_of: them joined by one space (val.tsv's key).
files_of() { read -ra FILES <<< "$1"; }
key_of() { local FILES; files_of "$1"; echo "${FILES[*]}"; }
declare -A SOURCE_OF  # int8 file -> the checkpoint it was made from: two members may not share a name
for cand in "$@"; do
  files_of "$cand"
  for m in "${FILES[@]}"; do
    [ -f "$m" ] || { echo "[ensemble] no such checkpoint: $m" >&2; exit 2; }
    q="$(int8_of "$m")"
    if [ -n "${SOURCE_OF[$q]:-}" ] && [ "$(realpath "${SOURCE_OF[$q]}")" != "$(realpath "$m")" ]; then
      echo "[ensemble] $m and ${SOURCE_OF[$q]} would both be stored as $q: rename one" >&2
      exit 2
    fi
    SOURCE_OF[$q]="$m"
    [ -f "$q" ] || "$CLI" quantize --in "$m" --out "$q" >&2
  done
done

# 2. Each candidate on val: its length penalty and 13a BLEU at beam 5.
bleu13a() { python3 -c 'import json,sys; print(json.load(sys.stdin)["bleu_13a"])'; }
greater() { python3 -c "import sys; sys.exit(0 if $1 > $2 else 1)"; }
for cand in "$@"; do
  key="$(key_of "$cand")"
  if awk -F '\t' -v k="$key" '$1 == k { found = 1 } END { exit !found }' "$VAL"; then continue; fi
  models=() bytes=0
  files_of "$key"
  for m in "${FILES[@]}"; do
    q="$(int8_of "$m")"
    models+=(--model "$q")
    bytes=$((bytes + $(stat -c %s "$q")))
  done
  if [ "$bytes" -gt "$LIMIT" ]; then
    echo "[ensemble] $key: $bytes bytes as int8, over the limit of $LIMIT: not a candidate" >&2
    continue
  fi
  best_lp="" best_bleu=-1
  for lp in 0.6 0.8 1.0 1.2 1.4 1.6; do
    bleu=$("$CLI" eval "${models[@]}" --src "$RAW/val.en" --tgt "$RAW/val.$LANG_T" --beam 5 --length-penalty "$lp" \
      --threads "$THREADS" --json | bleu13a)
    echo "[ensemble] $key on val, beam 5, length penalty $lp: BLEU (13a) $bleu" >&2
    if greater "$bleu" "$best_bleu"; then best_lp=$lp best_bleu=$bleu; fi
  done
  printf '%s\t%s\t%s\t%s\n' "$key" "$best_lp" "$best_bleu" "$bytes" >> "$VAL"
done

# 3. The choice, among the candidates given this run (val.tsv may hold others from earlier runs).
choice="" choice_lp="" choice_bleu=-1 choice_bytes=0
for cand in "$@"; do
  key="$(key_of "$cand")"
  line="$(awk -F '\t' -v k="$key" '$1 == k' "$VAL" | tail -1)"
  [ -n "$line" ] || continue
  IFS=$'\t' read -r _ lp bleu bytes <<< "$line"
  if greater "$bleu" "$choice_bleu" || { [ "$bleu" = "$choice_bleu" ] && [ "$bytes" -lt "$choice_bytes" ]; }; then
    choice="$key" choice_lp=$lp choice_bleu=$bleu choice_bytes=$bytes
  fi
done
[ -n "$choice" ] || { echo "[ensemble] no candidate fits the limit of $LIMIT bytes" >&2; exit 1; }
printf '%s\nlength penalty %s\nval BLEU (13a, beam 5) %s\nbytes (int8) %s\n' \
  "$choice" "$choice_lp" "$choice_bleu" "$choice_bytes" | tee "$OUTDIR/choice.txt"

# 4. The test sets, once.
[ "${SKIP_TEST:-0}" = 1 ] && exit 0
files_of "$choice"
if [ "${#FILES[@]}" = 1 ] && [ "$(dirname "$(realpath "$choice")")" = "$ROOT/models" ]; then
  echo "[ensemble] the choice is $choice, already shipped: its test figures are in models/README.md" >&2
  exit 0
fi
header="test sets for: $choice (length penalty $choice_lp)"
if [ -f "$OUTDIR/test.txt" ] && [ "$(head -1 "$OUTDIR/test.txt")" = "$header" ]; then
  echo "[ensemble] $OUTDIR/test.txt already holds the test sets for this choice" >&2
  exit 0
fi
models=()
for m in "${FILES[@]}"; do models+=(--model "$(int8_of "$m")"); done
echo "$header" > "$OUTDIR/test.tmp"
for set in val test_2016_flickr test_2017_flickr; do
  "$CLI" eval "${models[@]}" --src "$RAW/$set.en" --tgt "$RAW/$set.$LANG_T" --beam 5 --length-penalty "$choice_lp" \
    --threads "$THREADS" --hyp "$OUTDIR/$set.hyp" | tee -a "$OUTDIR/test.tmp"
done
mv "$OUTDIR/test.tmp" "$OUTDIR/test.txt"
