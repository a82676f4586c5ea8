#!/usr/bin/env python3
"""Writes reference.json next to this file: the PyTorch twin's greedy decodes of model.safetensors
(a checkpoint trained by tools/pytorch/train.py) for a few source TEXTS, in the parity fixtures'
format plus the text itself and the decoded output. The C++ test encodes the text with attnseq's own
tokenizer and vocabulary (read from the checkpoint) and compares everything.
Run: /usr/bin/python3 tests/data/pytorch_trained/make_reference.py"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools", "pytorch"))
from attnseq_twin import config_dict, load_attnseq  # noqa: E402
from make_fixtures import MIN_MARGIN, case_json, dumps_compact  # noqa: E402

# One training word, four unseen ones (lengths 3..6), one with a letter outside the vocabulary (unk).
SOURCES = ["ecflf", "abc", "kilja", "lkjihg", "bead", "gazed"]
MAX_LEN = 12


def main():
    torch.set_num_threads(1)
    model, meta = load_attnseq(os.path.join(HERE, "model.safetensors"))
    c = model.cfg
    src_vocab, tgt_vocab = json.loads(meta["src_vocab"]), json.loads(meta["tgt_vocab"])
    assert meta["tokenizer"] == "char"
    index = {t: i for i, t in enumerate(src_vocab)}
    training = {line.split("\t")[0] for line in open(os.path.join(HERE, "data.tsv"), encoding="utf-8")}
    cases = []
    for text in SOURCES:
        src = [index.get(ch, c.unk) for ch in text]
        r = model.greedy(src, MAX_LEN)
        for row in r.logits:  # a near-tie could flip under float32 rounding in another engine
            top = sorted(row, reverse=True)
            assert top[0] - top[1] >= MIN_MARGIN, (text, top[:2])
        output = "".join(tgt_vocab[t] for t in r.tokens if t not in (c.pad, c.bos, c.eos))
        print(f"{text:8s} -> {output:8s} {'(training pair)' if text in training else ''}")
        cases.append({"text": text, "output": output, **case_json(src, r)})
    doc = {"name": meta.get("name", ""), "max_len": MAX_LEN, "tokenizer": meta["tokenizer"],
           "bos": c.bos, "eos": c.eos, "pad": c.pad, "unk": c.unk, "config": config_dict(c), "cases": cases}
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        f.write(dumps_compact(doc) + "\n")


if __name__ == "__main__":
    main()
