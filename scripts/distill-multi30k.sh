#!/usr/bin/env bash
# A Multi30K translation model distilled from an ensemble (sequence-level knowledge distillation, Kim &
# Rush 2016): the student is the recipe's own model (scripts/train-multi30k.sh), trained on what its
# teachers, decoding together, write for the training sources instead of the references.
#   1. the teachers' ensemble on val: its length penalty, chosen at beam 5 among 0.6 to 1.6 (best 13a
#      BLEU; OUT.teachers.txt has every figure);
#   2. the student's targets: the ensemble's translation (beam 5, that penalty) of every training
#      source, OUT.train.LANG (kept when complete: a rerun goes on to step 3), made in chunks that a
#      killed run resumes from (OUT.chunks/; CHUNK lines each, default 2000);
#   3. the student: scripts/train-multi30k.sh with TRAIN_TGT=OUT.train.LANG, the same configuration,
#      dev BLEU against val's real references choosing its best epoch and ending its run; then that
#      recipe's int8 file, length penalty and test sets (OUT.int8.safetensors, OUT.lp.txt, OUT.test.txt).
#   bash scripts/distill-multi30k.sh de|fr OUT.safetensors TEACHER.safetensors TEACHER.safetensors...
#   (the teachers: runs of scripts/train-multi30k.sh with different SEEDs, their f32 best checkpoints)
#   env: SEED (the student's, default 1), THREADS, CLI, EPOCHS, STOP_AFTER_TRAINING, HIDDEN, EMBEDDING as in
#   train-multi30k.sh; RAW (the folder of train, val and test files, default data/multi30k/raw: the tests
#   use five-line sets); TARGETS_ONLY=1 ends the run after step 2 (the targets, for students trained from
#   them with TRAIN_TGT=OUT.train.LANG bash scripts/train-multi30k.sh, as en-de's and en-fr's smaller
#   members are: models/README.md).
#   TEACHERS_LP=X: the teachers' length penalty for the targets, given instead of chosen by the
#   teachers' own val BLEU, so that students' val BLEU can choose it (docs/translation.md); a run that
#   goes on with another penalty in OUT.teachers.lp is refused.
# shellcheck source=scripts/lib/recipe.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/recipe.sh"
usage="usage: bash scripts/distill-multi30k.sh de|fr OUT.safetensors TEACHER.safetensors TEACHER.safetensors..."
LANG_T="${1:?$usage}"
OUT="${2:?$usage}"
shift 2
[ "$#" -ge 1 ] || { echo "$usage" >&2; exit 2; }
case "$LANG_T" in de|fr) ;; *) echo "target language is de or fr, not '$LANG_T'" >&2; exit 2 ;; esac
if [ -n "${TEACHERS_LP:-}" ] && ! [[ "$TEACHERS_LP" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
  echo "TEACHERS_LP is a length penalty (a number, 0 or more), not '$TEACHERS_LP'" >&2
  exit 2
fi
ensure_cli
RAW="${RAW:-data/multi30k/raw}"
if [ "$RAW" != data/multi30k/raw ] && [ "${TARGETS_ONLY:-0}" != 1 ]; then
  echo "RAW=$RAW needs TARGETS_ONLY=1: the student trains on data/multi30k/raw (scripts/train-multi30k.sh)" >&2
  exit 2
fi
MODELS=()
for t in "$@"; do MODELS+=(--model "$t"); done
mkdir -p "$(dirname "$OUT")"
TARGETS="${OUT%.safetensors}.train.$LANG_T"
LINES=$(wc -l < "$RAW/train.en")

if [ ! -f "$TARGETS" ] || [ "$(wc -l < "$TARGETS")" != "$LINES" ]; then
  # 1. The ensemble's length penalty, on val (kept in OUT.teachers.lp once chosen).
  if [ -s "$OUT.teachers.lp" ]; then
    best_lp=$(cat "$OUT.teachers.lp")
    if [ -n "${TEACHERS_LP:-}" ] && [ "$TEACHERS_LP" != "$best_lp" ]; then
      echo "TEACHERS_LP=$TEACHERS_LP, but $OUT.teachers.lp holds $best_lp from an earlier run: remove it (and its chunks) or give that penalty" >&2
      exit 2
    fi
  elif [ -n "${TEACHERS_LP:-}" ]; then
    # A penalty given: the targets' length is chosen by the student's val BLEU instead (docs/translation.md).
    best_lp=$TEACHERS_LP
    "$CLI" eval "${MODELS[@]}" --src "$RAW/val.en" --tgt "$RAW/val.$LANG_T" --beam 5 --length-penalty "$best_lp" \
      --threads "$THREADS" | tee "$OUT.teachers.txt"
    echo "$best_lp" > "$OUT.teachers.lp"
  else
    best_lp="" best_bleu=-1
    : > "$OUT.teachers.txt"
    for lp in 0.6 0.8 1.0 1.2 1.4 1.6; do
      bleu=$("$CLI" eval "${MODELS[@]}" --src "$RAW/val.en" --tgt "$RAW/val.$LANG_T" --beam 5 --length-penalty "$lp" \
        --threads "$THREADS" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["bleu_13a"])')
      echo "[distill] teachers ($#) on val, beam 5, length penalty $lp: BLEU (13a) $bleu" | tee -a "$OUT.teachers.txt" >&2
      if python3 -c "import sys; sys.exit(0 if $bleu > $best_bleu else 1)"; then best_lp=$lp best_bleu=$bleu; fi
    done
    "$CLI" eval "${MODELS[@]}" --src "$RAW/val.en" --tgt "$RAW/val.$LANG_T" --beam 5 --length-penalty "$best_lp" \
      --threads "$THREADS" | tee -a "$OUT.teachers.txt"
    echo "$best_lp" > "$OUT.teachers.lp"
  fi
  # 2. The student's targets: the ensemble's translations of the training sources, in chunks of
  # CHUNK lines (default 2000), each written whole and then renamed, so that a run killed mid-way
  # goes on from the chunks already done (a sentence's translation does not depend on its chunk).
  echo "[distill] the teachers translate $LINES training sources (beam 5, length penalty $best_lp)" >&2
  CH="$OUT.chunks"
  mkdir -p "$CH"
  CHUNK="${CHUNK:-2000}"
  n_chunks=$(( (LINES + CHUNK - 1) / CHUNK ))
  for ((k = 0; k < n_chunks; k++)); do
    c=$(printf '%s/%03d' "$CH" "$k")
    want=$(( k + 1 < n_chunks ? CHUNK : LINES - k * CHUNK ))
    [ -f "$c.hyp" ] && [ "$(wc -l < "$c.hyp")" = "$want" ] && continue
    sed -n "$((k * CHUNK + 1)),$(((k + 1) * CHUNK))p" "$RAW/train.en" > "$c.en"
    sed -n "$((k * CHUNK + 1)),$(((k + 1) * CHUNK))p" "$RAW/train.$LANG_T" > "$c.$LANG_T"
    echo "[distill] chunk $((k + 1)) of $n_chunks" >&2
    "$CLI" eval "${MODELS[@]}" --src "$c.en" --tgt "$c.$LANG_T" --beam 5 --length-penalty "$best_lp" \
      --threads "$THREADS" --hyp "$c.hyp.tmp" | tee -a "$OUT.teachers.txt"
    mv "$c.hyp.tmp" "$c.hyp"
  done
  for ((k = 0; k < n_chunks; k++)); do cat "$(printf '%s/%03d' "$CH" "$k").hyp"; done > "$TARGETS.hyp"
  # A translation that came out empty (the ensemble ended at once) cannot be a training line: the
  # reference stands in for it, and the count is recorded.
  paste -d '\t' "$TARGETS.hyp" "$RAW/train.$LANG_T" | awk -F '\t' '{ if ($1 ~ /^[[:space:]]*$/) { print $2; n++ } else print $1 }
    END { print n + 0 " empty translations replaced by their references" > "/dev/stderr" }' > "$TARGETS.tmp" \
    2> >(tee -a "$OUT.teachers.txt" >&2)
  [ "$(wc -l < "$TARGETS.tmp")" = "$LINES" ] || { echo "[distill] $TARGETS.tmp: not $LINES lines" >&2; exit 1; }
  rm -rf "$TARGETS.hyp" "$CH"
  mv "$TARGETS.tmp" "$TARGETS"
fi

if [ "${TARGETS_ONLY:-0}" = 1 ]; then
  echo "[distill] the student's targets are $TARGETS (TARGETS_ONLY=1: no student trained)" >&2
  exit 0
fi

# 3. The student.
TRAIN_TGT="$TARGETS" bash scripts/train-multi30k.sh "$LANG_T" "$OUT"
