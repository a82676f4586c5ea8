#!/usr/bin/env bash
# An English pronunciation model distilled from an ensemble, sequence-level (Kim & Rush 2016): the
# student is scripts/train-g2p.sh's model, trained on what its teachers, decoding together at beam 5,
# say for the training words, and chosen on the dev split's real pronunciations.
#   1. the teachers' pronunciation of every word of the dictionary (`attnseq eval --hyp`), and their
#      WER on the dev split (OUT.teachers.txt);
#   2. the student's dictionary, OUT.train.dict (kept when complete: a rerun goes on to step 3): each
#      word of the dev split (--dev-fraction 0.03 --dev-seed 1, as train-g2p.sh holds out) with its own
#      pronunciations, so that the split and every dev figure are the real ones; every other word with
#      the teachers' pronunciation instead of its own (MIX=1: beside its own, as one more reference, all
#      of them trained on); a word whose output came out empty keeps its own (the count is recorded);
#   3. the student: scripts/train-g2p.sh OUT with DATA=OUT.train.dict and the rest of its settings from
#      the environment (SEED, EPOCHS, HIDDEN, THREADS, STOP_AFTER_TRAINING...; TEACHERS adds token-level
#      distillation on top: both at once).
#   bash scripts/distill-g2p.sh OUT.safetensors TEACHER.safetensors [TEACHER.safetensors...]
#   env: DATA (the dictionary, default data/cmudict/g014b2b.train), MIX, and train-g2p.sh's.
# shellcheck source=scripts/lib/recipe.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/recipe.sh"
usage="usage: bash scripts/distill-g2p.sh OUT.safetensors TEACHER.safetensors [TEACHER.safetensors...]"
OUT="${1:?$usage}"
shift
[ "$#" -ge 1 ] || { echo "$usage" >&2; exit 2; }
case "${MIX:-0}" in 0|1) ;; *) echo "MIX is 0 or 1, not '$MIX'" >&2; exit 2 ;; esac
ensure_cli
DATA="${DATA:-data/cmudict/g014b2b.train}"
SPLIT=(--dev-fraction 0.03 --dev-seed 1)
MODELS=()
for t in "$@"; do MODELS+=(--model "$t"); done
mkdir -p "$(dirname "$OUT")"
DICT="${OUT%.safetensors}.train.dict"

if [ ! -s "$DICT" ]; then
  # 1. What the teachers say for every word, and for the dev split's words (their list, and the
  # teachers' dev WER, which the student is measured against).
  echo "[distill-g2p] $# teachers decode every word of $DATA (beam 5)" >&2
  "$CLI" eval "${MODELS[@]}" --pron "$DATA" "${SPLIT[@]}" --beam 5 --threads "$THREADS" --hyp "$DICT.dev.hyp" \
    | tee "$OUT.teachers.txt"
  "$CLI" eval "${MODELS[@]}" --pron "$DATA" --beam 5 --threads "$THREADS" --hyp "$DICT.all.hyp" \
    | sed 's/^/every word: /' | tee -a "$OUT.teachers.txt"
  # 2. The student's dictionary, in the file's order of words.
  python3 - "$DATA" "$DICT.all.hyp" "$DICT.dev.hyp" "${MIX:-0}" > "$DICT.tmp" 2> >(tee -a "$OUT.teachers.txt" >&2) <<'PY'
import sys
data, all_hyp, dev_hyp, mix = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == '1'
def pairs(path):
    with open(path, encoding='utf-8') as f:
        return [l.rstrip('\n').split('\t', 1) for l in f if l.strip()]
own = {}
for w, p in pairs(data):
    own.setdefault(w, []).append(p)
teacher = dict(pairs(all_hyp))
dev = {w for w, _ in pairs(dev_hyp)}
if set(teacher) != set(own) or not dev <= set(own):
    sys.exit(f'{all_hyp} or {dev_hyp} does not hold the words of {data}')
empty = replaced = 0
for w, ps in own.items():
    t = teacher[w].strip()
    if w in dev:
        out = ps
    elif not t:
        empty += 1
        out = ps
    else:
        replaced += t not in ps
        out = [t] + [p for p in ps if p != t] if mix else [t]
    for p in out:
        print(f'{w}\t{p}')
print(f'{len(own)} words: {len(dev)} of the dev split keep their own pronunciations; of the rest, '
      f'{replaced} take the teachers\' where it differs from their own{" (beside it: MIX=1)" if mix else ""}, '
      f'{empty} keep their own (the teachers said nothing)', file=sys.stderr)
PY
  rm -f "$DICT.all.hyp" "$DICT.dev.hyp"
  mv "$DICT.tmp" "$DICT"
fi

# 3. The student.
DATA="$DICT" bash scripts/train-g2p.sh "$OUT"
