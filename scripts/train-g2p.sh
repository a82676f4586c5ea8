#!/usr/bin/env bash
# Reproduces the G2P model: trains on data/cmudict/g014b2b.train in epochs (3% of its words held out,
# seeded, pick the best epoch and stop), then reports the dev split and the 12,000 test words at beam 5.
# Run again after a kill, it resumes from OUT.last.trainer (same bytes given the same THREADS).
#   bash scripts/train-g2p.sh [OUT.safetensors]   (default build/g2p/g2p.safetensors; docs/training.md)
#   env: THREADS (default: every core), SAVE_EVERY (steps between mid-epoch saves, default 200),
#   CLI (the attnseq binary, default build/native/attnseq; a copy keeps a long run safe from rebuilds),
#   SEED (default 1: the shipped model's; other seeds make the members of an ensemble, teachers to
#   distil from), EPOCHS (default 40, the shipped model's; its dev WER was still falling there), and
#   TEACHERS (space-separated f32 or f16 checkpoints: a student distilled from them, token-level, with
#   DISTILL_WEIGHT, default 0.5: docs/training.md, "Distillation"), INIT (a checkpoint of this recipe's
#   architecture to start from instead of random weights: train --init), LR (default 0.001, the shipped
#   model's peak rate; a start from a trained model may want less), HIDDEN, EMBEDDING, DROPOUT,
#   PATIENCE (defaults 224, 64, 0.2, 6: the shipped model's; larger teachers change them: see
#   models/teachers/README.md), DATA (the dictionary, below). STOP_AFTER_TRAINING=1 ends after
#   training: a teacher, which is not shipped, so its test words are not decoded.
#   The shipped file is OUT stored as F16:
#   python3 tools/to_f16.py OUT models/g2p-en.safetensors
# shellcheck source=scripts/lib/recipe.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/recipe.sh"
OUT="${1:-build/g2p/g2p.safetensors}"
ensure_cli
mkdir -p "$(dirname "$OUT")"

# DATA: the dictionary trained on (default CMUdict's training words; scripts/distill-g2p.sh gives
# its teachers' pronunciations of them). Its dev split is held out as below.
DATA="${DATA:-data/cmudict/g014b2b.train}"
SPLIT=(--dev-fraction 0.03 --dev-seed 1)
# Two layers of 224 (2.4 M parameters: 4.8 MB as F16, under the 5 MB the page allows), rate 0.001
# (0.003 stalled the training loss near 0.41 within an epoch; docs/g2p.md, "How it was trained").
TRAIN=(train --pron "$DATA" "${SPLIT[@]}" --seed "${SEED:-1}"
  --cell gru --bidirectional --bridge --style luong --score general --input-feeding
  --hidden "${HIDDEN:-224}" --embedding "${EMBEDDING:-64}" --layers 2 --batch 64 --lr "${LR:-0.001}" --warmup 500
  --clip 1 --dropout "${DROPOUT:-0.2}" --label-smoothing 0.1 --epochs "${EPOCHS:-40}" --patience "${PATIENCE:-6}"
  --lr-decay 0.7 --bucket 50 --eval-beam 1 --name g2p-en
  --description "English pronunciation (CMUdict, 39 ARPAbet phonemes without stress)"
  --save-every "$SAVE_EVERY" --threads "$THREADS" --out "$OUT")
for t in ${TEACHERS:-}; do TRAIN+=(--teacher "$t"); done
if [ -n "${TEACHERS:-}" ]; then TRAIN+=(--distill-weight "${DISTILL_WEIGHT:-0.5}"); fi
if [ -n "${INIT:-}" ]; then TRAIN+=(--init "$INIT"); fi

echo "[g2p] $CLI ${TRAIN[*]}" >&2
# shellcheck source=scripts/lib/resume.sh
. scripts/lib/resume.sh
train_or_resume g2p "$OUT" "$CLI" "${TRAIN[@]}"
[ "${STOP_AFTER_TRAINING:-0}" = 1 ] && exit 0

echo "[g2p] the best epoch on the dev split, beam 5" >&2
"$CLI" eval --model "$OUT" --pron "$DATA" "${SPLIT[@]}" --beam 5 --threads "$THREADS"
echo "[g2p] the test words (data/cmudict/g014b2b.ref), beam 5" >&2
"$CLI" eval --model "$OUT" --pron data/cmudict/g014b2b.ref --beam 5 --threads "$THREADS" | tee "$OUT.test.txt"
"$CLI" eval --model "$OUT" --pron data/cmudict/g014b2b.ref --beam 5 --threads "$THREADS" --json > "$OUT.test.json"
