#!/usr/bin/env bash
# Regenerates the SentencePiece fixtures of tests/cpp/test_spm*.cpp with the Debian packages
# `sentencepiece` (spm_train) and `python3-sentencepiece` (the reference encoder): tiny models trained
# on train.en / train.de (the first 2,000 lines of Multi30K's raw/train.*; see README.md), and for each
# model the ids and decoded text the library gives for cases.txt.
#   bash tests/data/spm/make_fixtures.sh [MULTI30K_RAW_DIR]   (the dir is only needed for cases.txt)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
RAW="${1:-}"

# Every flag of every model; the common ones keep training single-threaded and reproducible.
COMMON=(--num_threads=1 --character_coverage=0.995 --input_sentence_size=0 --shuffle_input_sentence=false)
train() {  # name input type vocab normaliser byte_fallback [extra flags]
  local name=$1 input=$2 type=$3 vocab=$4 norm=$5 bf=$6
  shift 6
  spm_train --input="$input" --model_prefix="$name" --model_type="$type" --vocab_size="$vocab" \
    --normalization_rule_name="$norm" --byte_fallback="$bf" "${COMMON[@]}" "$@" >/dev/null 2>&1
  rm -f "$name.vocab"
}
train unigram_en train.en unigram 300 identity false --user_defined_symbols='<sep>,dog'
train unigram_de_bf train.de unigram 400 identity true
train bpe_en_bf train.en bpe 400 identity true --remove_extra_whitespaces=false
train bpe_de train.de bpe 300 identity false --user_defined_symbols='<sep>,Hund' --add_dummy_prefix=false
train nfkc_en train.en unigram 300 nmt_nfkc false

# cases.txt: one input a line, escaped (\\, \t, \n, \r, \xNN for other control bytes): the first 150
# training lines of each language, 150 lines of each after them (unseen by the trainer), odd text.
if [ -n "$RAW" ]; then
  /usr/bin/python3 - "$RAW" <<'PY'
import sys
raw = sys.argv[1]
def lines(lang, a, b):
    with open(f"{raw}/train.{lang}", encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f][a:b]
odd = [
    "", " ", "   ", "  two  spaces  inside  ", "A dog 🐕 runs 🏃‍♂️ fast 👍🏽.",
    "e\u0301te\u0301 cafe\u0301 n\u0303", "日本語のテキスト 中文 한국어", "Ｆｕｌｌｗｉｄｔｈ　ＡＢＣ　１２３",
    "tab\there\x01\x02\x7f and bell\x07", "\u2581 already escaped \u2581\u2581", "<sep> dog<sep>Hund <s> </s> <unk>",
    "Ärger über Öl, Straße", "\ufeffzero\u200bwidth", "x" * 10000 if False else "",
]
odd[-1] = ("A man in an orange hat 🐕 日本 " * 400)[:10000]
cases = lines("en", 0, 150) + lines("de", 0, 150) + lines("en", 2000, 2150) + lines("de", 2000, 2150) + odd
def esc(s):
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\\": out.append("\\\\")
        elif ch == "\t": out.append("\\t")
        elif ch == "\n": out.append("\\n")
        elif ch == "\r": out.append("\\r")
        elif o < 0x20 or o == 0x7f: out.append("\\x%02x" % o)
        else: out.append(ch)
    return "".join(out)
with open("cases.txt", "w", encoding="utf-8") as f:
    for c in cases: f.write(esc(c) + "\n")
PY
fi

# MODEL.expected: for each line of cases.txt, the library's ids (space-separated), a tab, and its
# decoding of those ids (escaped as cases.txt is).
/usr/bin/python3 - <<'PY'
import sentencepiece as spm, glob
def unesc(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\":
            c = s[i + 1]
            if c == "x": out.append(chr(int(s[i + 2:i + 4], 16))); i += 4; continue
            out.append({"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}[c]); i += 2; continue
        out.append(s[i]); i += 1
    return "".join(out)
def esc(s):
    return "".join("\\\\" if c == "\\" else "\\t" if c == "\t" else "\\n" if c == "\n" else "\\r" if c == "\r"
                   else "\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7f else c for c in s)
with open("cases.txt", encoding="utf-8") as f:
    cases = [unesc(l.rstrip("\n")) for l in f]
for m in sorted(glob.glob("*.model")):
    sp = spm.SentencePieceProcessor(model_file=m)
    with open(m[:-len(".model")] + ".expected", "w", encoding="utf-8") as f:
        for c in cases:
            ids = sp.encode(c)
            f.write(" ".join(map(str, ids)) + "\t" + esc(sp.decode(ids)) + "\n")
PY
