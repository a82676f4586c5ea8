#!/usr/bin/env bash
# A pronunciation model (or an ensemble of them) for one language of the SIGMORPHON 2021 G2P task
# (data/sigmorphon2021-g2p/), every choice made on the language's dev file:
#   1. candidates: the subtask's configurations (below), each trained on LANG_train.tsv in epochs with
#      the dev WER choosing its best epoch and ending its run, then scored on dev at beam 5; the one with
#      the lowest dev WER is chosen (the first listed on a tie);
#   2. more seeds of the chosen configuration (2 .. the subtask's SEEDS), each stored as int8 (the
#      seed-1 model's dev WER at int8 is checked to be no worse than at f32, else every member stays f32,
#      unless one f32 member alone is over the subtask's LIMIT: then int8 ships all the same);
#   3. the ensemble: the first k seeds decoding together, k from 1 to SEEDS chosen by dev WER at beam 5
#      (the smallest k on a tie) among those whose files fit the subtask's LIMIT (below);
#      OUT/LANG.ship lists its files, OUT/LANG.dev.txt has every figure of steps 1 to 3;
#   4. the test words, decoded once by what ships, at beam 5: OUT/LANG.test.json (every figure) and
#      OUT/LANG.test.txt (WER and PER); kept, so that a rerun never decodes them again.
# Each step is skipped when its output is there, and a killed training run resumes from its last
# checkpoint (same bytes: one thread). OUT/LANG.time has each run's wall time and the machine.
#   bash scripts/train-sigmorphon.sh LANG|all [OUT]     (default OUT build/sigmorphon)
#   LANG: a file stem of the task (kor, eng_us, jpn_hira, ...); all: the 21, Korean first, then the
#   low subtask, the medium one and English (the longest).
#   env: CLI (the attnseq binary, default build/native/attnseq; a copy keeps a long run safe from
#   rebuilds), STOP_AFTER_DEV=1 (stop after step 3: no test decode); for tests of the recipe itself,
#   DATA (another folder laid out as data/sigmorphon2021-g2p) and EPOCHS (fewer epochs per run);
#   ONLY=NAME trains that one candidate of step 1 (with seed 1) and stops, ONLY=NAME-sK the same with
#   seed K as step 2 names it: runs of one thread each, so two of them (ONLY=h192long and ONLY=h256long
#   on two cores) take the time of one; the recipe run afterwards finds them done.
# shellcheck source=scripts/lib/recipe.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/recipe.sh"
usage="usage: bash scripts/train-sigmorphon.sh LANG|all [OUT]"
WHICH="${1:?$usage}"
OUT="${2:-build/sigmorphon}"
D="${DATA:-data/sigmorphon2021-g2p}"
ALL=(kor ady gre ice ita khm lav mlt_latn rum slv wel_sw arm_e bul dut fre geo hbs_latn hun jpn_hira vie_hanoi eng_us)
if [ "$WHICH" = all ]; then
  for l in "${ALL[@]}"; do bash "$0" "$l" "$OUT"; done
  exit 0
fi
LANG_ID="$WHICH"
SUB=""
for s in high medium low; do [ -f "$D/$s/${LANG_ID}_train.tsv" ] && SUB=$s; done
[ -n "$SUB" ] || { echo "no language '$LANG_ID' in $D (one of: ${ALL[*]})" >&2; exit 2; }
ensure_cli
TRAIN="$D/$SUB/${LANG_ID}_train.tsv" DEV="$D/$SUB/${LANG_ID}_dev.tsv" TEST="$D/$SUB/${LANG_ID}_test.tsv"
mkdir -p "$OUT/$LANG_ID"
# shellcheck source=scripts/lib/resume.sh
. scripts/lib/resume.sh

# Every candidate: a bidirectional GRU encoder, Luong general attention with input feeding, Adam at the
# trainer's default rate, one thread (bytes that do not depend on the machine's cores).
COMMON=(--phones ipa --cell gru --bidirectional --style luong --score general --input-feeding --threads 1 --quiet)
[ "$LANG_ID" = kor ] && COMMON+=(--hangul jamo)  # as the task's baseline reads Korean (docs/training.md)
# The subtask's candidates, NAME:OPTIONS; how many seeds of the chosen one to try together; the most
# bytes the language's files may take (LIMIT: none over the 2 MB issue 25 allows; the 21 together may
# take 30 MB, which tools/ship_sigmorphon.mjs checks before it ships). An int8 member with hidden 128 takes about 0.26 MB, 192 about 0.55 MB,
# 256 about 0.95 MB, 320 about 1.45 MB (a bidirectional encoder).
# English's candidates include a peak rate of 0.001 (a third of the trainer's): on its dev words it
# gains 5 points over 0.003 (docs/sigmorphon.md, "English: a third of the trainer's rate").
# Rate decay 0.8 and label smoothing 0.1 for the low subtask: on the dev words of ady, slv and ita they
# beat the trainer's defaults (decay 0.5, no smoothing) by 1 to 11 points (docs/sigmorphon.md). The
# medium subtask takes them too, with 60 epochs and patience 10: the trainer's defaults ended its runs
# after 10-25 epochs, still learning (Bulgarian's hidden-192 seed 1: 14.2 -> 8.0 % dev WER; "The
# medium subtask's schedule" there).
case "$SUB" in
  high) SEEDS=2 LIMIT=2000000
        CANDIDATES=("h256:--hidden 256 --embedding 128 --dropout 0.3 --label-smoothing 0.1 --epochs ${EPOCHS:-40} --patience 6"
                    "h320:--hidden 320 --embedding 128 --dropout 0.3 --label-smoothing 0.1 --epochs ${EPOCHS:-40} --patience 6"
                    "h256d2:--hidden 256 --embedding 128 --dropout 0.2 --label-smoothing 0.1 --epochs ${EPOCHS:-40} --patience 6"
                    "h256lr:--hidden 256 --embedding 128 --dropout 0.3 --label-smoothing 0.1 --lr 0.001 --epochs ${EPOCHS:-40} --patience 6"
                    "h256lrd2:--hidden 256 --embedding 128 --dropout 0.2 --label-smoothing 0.1 --lr 0.001 --epochs ${EPOCHS:-40} --patience 6") ;;
  medium) SEEDS=3 LIMIT=2000000
          MEDIUM="--lr-decay 0.8 --label-smoothing 0.1 --epochs ${EPOCHS:-60} --patience 10"
          CANDIDATES=("h192long:--hidden 192 --embedding 96 --dropout 0.3 $MEDIUM"
                      "h256long:--hidden 256 --embedding 128 --dropout 0.3 $MEDIUM") ;;
  low) SEEDS=5 LIMIT=1310720
       LOW="--embedding 64 --lr-decay 0.8 --label-smoothing 0.1 --batch 16 --epochs ${EPOCHS:-100} --patience 15"
       CANDIDATES=("h128:--hidden 128 --dropout 0.3 $LOW" "h128d5:--hidden 128 --dropout 0.5 $LOW"
                   "h192d4:--hidden 192 --dropout 0.4 $LOW") ;;
esac

dev_wer() {  # MODEL... -> the dev WER at beam 5 of the model or ensemble, as a fraction
  local args=()
  for m in "$@"; do args+=(--model "$m"); done
  "$CLI" eval "${args[@]}" --pron "$DEV" --beam 5 --threads 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["wer"])'
}
lower() { python3 -c "import sys; sys.exit(0 if $1 < $2 else 1)"; }

train_one() {  # NAME SEED OPTIONS...: trains OUT/LANG/NAME.safetensors unless done; its dev WER and time in NAME.safetensors.done
  local name="$1" seed="$2"
  shift 2
  local M="$OUT/$LANG_ID/$name.safetensors"
  [ -f "$M.done" ] && return
  local start
  start=$(date +%s)
  echo "[sigmorphon] $LANG_ID ($SUB) $name, seed $seed: $*" >&2
  train_or_resume sigmorphon "$M" "$CLI" train --pron "$TRAIN" --pron-dev "$DEV" "${COMMON[@]}" "$@" \
    --seed "$seed" --name "g2p-$LANG_ID" --out "$M"
  echo "$name $(dev_wer "$M") $(( $(date +%s) - start ))" > "$M.done"
}

# 1. The configuration.
if [ -n "${ONLY:-}" ]; then
  only_name="${ONLY%-s[0-9]*}" only_seed=1
  [ "$only_name" != "$ONLY" ] && only_seed="${ONLY##*-s}"
  for c in "${CANDIDATES[@]}"; do
    if [ "${c%%:*}" = "$only_name" ]; then read -r -a opts <<< "${c#*:}"; train_one "$ONLY" "$only_seed" "${opts[@]}"; exit 0; fi
  done
  echo "no candidate '$only_name' for the $SUB subtask" >&2
  exit 2
fi
REPORT="$OUT/$LANG_ID.dev.txt.tmp"
: > "$REPORT"
best="" best_wer=2 best_opts=""
for c in "${CANDIDATES[@]}"; do
  name="${c%%:*}"
  read -r -a opts <<< "${c#*:}"
  train_one "$name" 1 "${opts[@]}"
  read -r _ wer secs < "$OUT/$LANG_ID/$name.safetensors.done"
  echo "$LANG_ID $name (seed 1): dev WER $wer at beam 5 (${opts[*]}; trained in ${secs} s)" | tee -a "$REPORT" >&2
  if lower "$wer" "$best_wer"; then best=$name best_wer=$wer best_opts="${c#*:}"; fi
done
echo "chosen configuration: $best" >> "$REPORT"

# 2. More seeds of it, and every member as int8 when that keeps seed 1's dev WER.
read -r -a opts <<< "$best_opts"
MEMBERS=("$OUT/$LANG_ID/$best.safetensors")
for s in $(seq 2 "$SEEDS"); do
  train_one "$best-s$s" "$s" "${opts[@]}"
  read -r _ wer secs < "$OUT/$LANG_ID/$best-s$s.safetensors.done"
  echo "$LANG_ID $best (seed $s): dev WER $wer at beam 5 (trained in ${secs} s)" | tee -a "$REPORT" >&2
  MEMBERS+=("$OUT/$LANG_ID/$best-s$s.safetensors")
done
INT8=()
for m in "${MEMBERS[@]}"; do
  "$CLI" quantize --in "$m" --out "${m%.safetensors}.int8.safetensors" >/dev/null
  INT8+=("${m%.safetensors}.int8.safetensors")
done
int8_wer=$(dev_wer "${INT8[0]}")
f32_bytes=$(wc -c < "${MEMBERS[0]}")
if lower "$best_wer" "$int8_wer" && [ "$f32_bytes" -le "$LIMIT" ]; then
  echo "int8: seed 1's dev WER $int8_wer against $best_wer at f32: every member ships as f32" >> "$REPORT"
  SHIPPABLE=("${MEMBERS[@]}")
elif lower "$best_wer" "$int8_wer"; then
  echo "int8: seed 1's dev WER $int8_wer against $best_wer at f32, but one f32 member ($f32_bytes bytes) is over the $LIMIT a language may take: members ship as int8" >> "$REPORT"
  SHIPPABLE=("${INT8[@]}")
else
  echo "int8: seed 1's dev WER $int8_wer (f32 $best_wer): members ship as int8" >> "$REPORT"
  SHIPPABLE=("${INT8[@]}")
fi

# 3. How many seeds decode together.
k_best=1 k_wer=2
for k in $(seq 1 "$SEEDS"); do
  bytes=$(cat "${SHIPPABLE[@]:0:$k}" | wc -c)
  if [ "$bytes" -gt "$LIMIT" ]; then
    echo "ensemble of $k: $bytes bytes, over the $LIMIT a language may take" >> "$REPORT"
    break
  fi
  wer=$(dev_wer "${SHIPPABLE[@]:0:$k}")
  echo "ensemble of $k: dev WER $wer at beam 5 ($bytes bytes)" | tee -a "$REPORT" >&2
  if lower "$wer" "$k_wer"; then k_best=$k k_wer=$wer; fi
done
echo "chosen: $k_best model(s), dev WER $k_wer" >> "$REPORT"
printf '%s\n' "${SHIPPABLE[@]:0:$k_best}" > "$OUT/$LANG_ID.ship"
mv "$REPORT" "$OUT/$LANG_ID.dev.txt"
{
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); one thread per run"
  for f in "$OUT/$LANG_ID"/*.safetensors.done; do read -r name _ secs < "$f"; echo "$name: ${secs} s"; done
} > "$OUT/$LANG_ID.time"
cat "$OUT/$LANG_ID.dev.txt" >&2
[ "${STOP_AFTER_DEV:-0}" = 1 ] && exit 0

# 4. The test words, once for what ships (OUT/LANG.test.ship names the files they were decoded with: a
# rerun whose step 3 chose other files, under another limit, decodes them once for those).
if [ ! -f "$OUT/$LANG_ID.test.json" ] || ! cmp -s "$OUT/$LANG_ID.ship" "$OUT/$LANG_ID.test.ship"; then
  SHIP=()
  while read -r m; do SHIP+=(--model "$m"); done < "$OUT/$LANG_ID.ship"
  "$CLI" eval "${SHIP[@]}" --pron "$TEST" --beam 5 --threads 1 --json > "$OUT/$LANG_ID.test.json.tmp"
  mv "$OUT/$LANG_ID.test.json.tmp" "$OUT/$LANG_ID.test.json"
  cp "$OUT/$LANG_ID.ship" "$OUT/$LANG_ID.test.ship"
fi
python3 - "$OUT/$LANG_ID.test.json" "$LANG_ID" <<'PY' | tee "$OUT/$LANG_ID.test.txt" >&2
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]} test: WER {100 * r['wer']:.2f}, PER {100 * r['per']:.2f} ({r['words']} words, beam 5)")
PY
