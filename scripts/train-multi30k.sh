#!/usr/bin/env bash
# Reproduces a Multi30K translation model (English to German or French; data/multi30k/README.md):
#   1. the tokenizers: one SentencePiece unigram model per language, trained by the Debian package's
#      spm_train on that language's training side, every flag below (data/multi30k/spm/ holds the
#      results; the script checks they are the files it makes);
#   2. the model: `attnseq train --src --tgt` in epochs, the val pair's BLEU (13a, beam 5) choosing the
#      best epoch and stopping the run; resumed from OUT.last.trainer when run again after a kill;
#   3. the shipped file: the best epoch stored as int8 (OUT.int8.safetensors, `attnseq quantize`),
#      set beside f32 on val (OUT.int8.txt);
#   4. its length penalty, chosen on val at beam 5 among 0.6 to 1.6 (best 13a BLEU; OUT.lp.txt);
#   5. the test sets, scored once at that penalty (OUT.test.txt, with the val figure first):
#      test_2016_flickr and test_2017_flickr.
#   bash scripts/train-multi30k.sh de|fr [OUT.safetensors]   (default build/multi30k/en-LANG.safetensors)
#   env: EPOCHS (default 30) the run's total: the schedule does not depend on it (the rate halves after
#   each epoch without a better dev BLEU), so a run given fewer epochs is the longer run's first ones,
#   and a smaller EPOCHS given to a run under way ends it at its last whole epoch and goes on to step 3;
#   STOP_AFTER_TRAINING=1 ends after step 2 (a run continued later, or in another session).
#   env: SEED (default 1) the run's seed (initial weights, batch order, dropout): an ensemble's
#   members are runs of this recipe that differ only in it (docs/translation.md, "Ensembles that ship");
#   TRAIN_TGT (default data/multi30k/raw/train.LANG) the training targets: another file of the same
#   lines in the target language (a distilled student learns its teachers' translations:
#   scripts/distill-multi30k.sh);
#   HIDDEN, EMBEDDING (default 512 and 512, the shipped models'; a smaller member of an ensemble takes
#   less: docs/translation.md);
#   SAMPLE_ALPHA (none by default): subword regularisation, each epoch on segmentations drawn with
#   probability ~ exp(SAMPLE_ALPHA * score) (train --sample-alpha, docs/translation.md);
#   KEEP_EPOCHS=1 keeps each epoch's final weights, OUT.epochN.safetensors, for checkpoint averaging
#   (`attnseq average`, docs/training.md);
#   THREADS (default: every core), SAVE_EVERY (steps between mid-epoch saves, default 200),
#   CLI (the attnseq binary, default build/native/attnseq; a copy keeps a long run safe from rebuilds).
# Every choice was made on val (docs/translation.md); the test sets are scored once per shipped model.
# shellcheck source=scripts/lib/recipe.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/recipe.sh"
LANG_T="${1:?usage: bash scripts/train-multi30k.sh de|fr [OUT.safetensors]}"
case "$LANG_T" in de|fr) ;; *) echo "target language is de or fr, not '$LANG_T'" >&2; exit 2 ;; esac
OUT="${2:-build/multi30k/en-$LANG_T.safetensors}"
ensure_cli
mkdir -p "$(dirname "$OUT")"
D=data/multi30k

# 1. Tokenizers: 8,000 pieces per language (unigram), the nmt_nfkc normaliser, byte fallback (so no
# character is unknown), every character of the training text kept (coverage 1.0), and the special ids
# attnseq's models use (pad 0, bos 1, eos 2, unk 3). One thread, no sampling: the same bytes each run.
SPM_FLAGS=(--model_type=unigram --vocab_size=8000 --normalization_rule_name=nmt_nfkc --byte_fallback=true
  --character_coverage=1.0 --pad_id=0 --bos_id=1 --eos_id=2 --unk_id=3 --num_threads=1
  --input_sentence_size=0 --shuffle_input_sentence=false)
TOK="$(mktemp -d)"
trap 'rm -rf "$TOK"' EXIT
for L in en "$LANG_T"; do
  (cd "$TOK" && spm_train --input="$ROOT/$D/raw/train.$L" --model_prefix="m30k_$L" "${SPM_FLAGS[@]}" >/dev/null 2>&1)
  if ! cmp -s "$TOK/m30k_$L.model" "$D/spm/m30k_$L.model"; then
    echo "[multi30k] spm_train made a different $D/spm/m30k_$L.model (another sentencepiece version?)" >&2
    echo "[multi30k] the model is trained with the committed one; the new one is in $TOK" >&2
  fi
done

# 2. The model: a bidirectional GRU encoder (256 per direction), a GRU decoder of 512 with Luong's
# general score and input feeding, embeddings of 512 with the output layer tied to the target's,
# dropout 0.3 and label smoothing 0.1, Adam at 0.001 after 1,000 warm-up steps, batches of 64 pairs
# bucketed by length; the rate halves after each epoch without a better dev BLEU, and 6 such epochs
# in a row end the run.
TRAIN=(train --src "$D/raw/train.en" --tgt "${TRAIN_TGT:-$D/raw/train.$LANG_T}" --dev-src "$D/raw/val.en" --dev-tgt "$D/raw/val.$LANG_T"
  --src-spm "$D/spm/m30k_en.model" --tgt-spm "$D/spm/m30k_$LANG_T.model" --seed "${SEED:-1}"
  --cell gru --bidirectional --style luong --score general --input-feeding --hidden "${HIDDEN:-512}" --embedding "${EMBEDDING:-512}"
  --tie-embeddings --batch 64 --lr 0.001 --warmup 1000 --clip 1 --dropout 0.3 --label-smoothing 0.1
  --epochs "${EPOCHS:-30}" --patience 6 --lr-decay 0.5 --bucket 50 --eval-beam 5 --name "en-$LANG_T"
  --description "English to $([ "$LANG_T" = de ] && echo German || echo French) (Multi30K image descriptions; non-commercial research and education only: data/multi30k/README.md)"
  --save-every "$SAVE_EVERY" --threads "$THREADS" --out "$OUT")
if [ "${KEEP_EPOCHS:-0}" = 1 ]; then TRAIN+=(--keep-epochs); fi
if [ -n "${SAMPLE_ALPHA:-}" ]; then TRAIN+=(--sample-alpha "$SAMPLE_ALPHA"); fi

echo "[multi30k] $CLI ${TRAIN[*]}" >&2
# shellcheck source=scripts/lib/resume.sh
. scripts/lib/resume.sh
train_or_resume multi30k "$OUT" "$CLI" "${TRAIN[@]}"
[ "${STOP_AFTER_TRAINING:-0}" = 1 ] && exit 0

# 3. The shipped file: int8 weights with a scale per row (docs/checkpoint-format.md).
"$CLI" quantize --in "$OUT" --out "${OUT%.safetensors}.int8.safetensors"
SHIP="${OUT%.safetensors}.int8.safetensors"
# What int8 changes, on val at beam 5: both scores, and how many outputs are the same text.
for m in "$OUT" "$SHIP"; do
  "$CLI" eval --model "$m" --src "$D/raw/val.en" --tgt "$D/raw/val.$LANG_T" --beam 5 --threads "$THREADS" --hyp "$m.val.hyp"
done | tee "$OUT.int8.txt"
same=$(paste -d '\t' "$OUT.val.hyp" "$SHIP.val.hyp" | awk -F '\t' '$1 == $2' | wc -l)
echo "int8 output = f32 output on $same of $(wc -l < "$OUT.val.hyp") val sentences (beam 5)" | tee -a "$OUT.int8.txt"

# 4. The length penalty, on val (the beam ranks by log p / length^penalty).
best_lp="" best_bleu=-1
for lp in 0.6 0.8 1.0 1.2 1.4 1.6; do
  bleu=$("$CLI" eval --model "$SHIP" --src "$D/raw/val.en" --tgt "$D/raw/val.$LANG_T" --beam 5 --length-penalty "$lp" \
    --threads "$THREADS" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["bleu_13a"])')
  echo "[multi30k] val, beam 5, length penalty $lp: BLEU (13a) $bleu" >&2
  if python3 -c "import sys; sys.exit(0 if $bleu > $best_bleu else 1)"; then best_lp=$lp best_bleu=$bleu; fi
done
echo "$best_lp" > "$OUT.lp.txt"
echo "[multi30k] length penalty $best_lp (val BLEU 13a $best_bleu)" >&2

# 5. The test sets, once.
: > "$OUT.test.txt"
for set in val test_2016_flickr test_2017_flickr; do
  "$CLI" eval --model "$SHIP" --src "$D/raw/$set.en" --tgt "$D/raw/$set.$LANG_T" --beam 5 --length-penalty "$best_lp" \
    --threads "$THREADS" --hyp "$OUT.$set.hyp" | tee -a "$OUT.test.txt"
done
