#!/usr/bin/env python3
"""Generate the token-level distillation fixture in tests/data/distill/ (run: /usr/bin/python3
tools/pytorch/make_distill_fixture.py).

A tiny student and two teachers of other architectures (the same vocabularies), random weights from
torch.manual_seed, and one padded batch of three pairs. The PyTorch twin's training graph
(train.py's Trainable, teacher_probs) gives the batch's loss, its objective with label smoothing and
the teachers' mean distribution as soft targets, and the objective's gradient for every parameter.
tests/cpp/test_distill_parity.cpp loads the three checkpoints and holds attnseq's forward_backward to
these numbers. Deterministic: one thread, fixed seeds.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attnseq_twin import Config, Seq2Seq, default_vocab, save_attnseq  # noqa: E402
from train import Trainable, make_batch, teacher_probs  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(ROOT, "tests", "data", "distill")
VS, VT = 13, 11
SMOOTHING, WEIGHT = 0.1, 0.6
PAIRS = [([4, 5, 6, 7, 8], [4, 9, 5]), ([9, 4], [6, 7, 8, 10]), ([12], [5])]

MODELS = {
    "student": Config(cell="gru", style="luong", score="general", input_feeding=True, bidirectional=True, emb=8,
                      enc_hidden=6, dec_hidden=12, src_vocab_size=VS, tgt_vocab_size=VT),
    "teacher1": Config(cell="lstm", style="bahdanau", score="additive", emb=6, enc_hidden=10, dec_hidden=10,
                       attn_dim=7, src_vocab_size=VS, tgt_vocab_size=VT),
    "teacher2": Config(cell="gru", style="luong", score="dot", emb=9, enc_hidden=14, dec_hidden=14,
                       src_vocab_size=VS, tgt_vocab_size=VT),
}


def build(c: Config, seed: int) -> Seq2Seq:
    torch.manual_seed(seed)
    model = Seq2Seq(c)
    with torch.no_grad():
        for _, p in model.named_parameters():
            p.uniform_(-0.8, 0.8)
    return model


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT_DIR, exist_ok=True)
    models = {}
    for i, (name, c) in enumerate(MODELS.items()):
        models[name] = build(c, 7 + i)
        save_attnseq(models[name], os.path.join(OUT_DIR, name + ".safetensors"),
                     {"tokenizer": "word", "src_vocab": default_vocab(VS), "tgt_vocab": default_vocab(VT),
                      "name": name, "task": "distill-parity",
                      "description": "random weights for the token-level distillation parity test"})
    src, src_len, tgt_in, tgt_out = make_batch(PAIRS, torch.device("cpu"))
    teachers = [Trainable(models[n]).eval() for n in ("teacher1", "teacher2")]
    soft = teacher_probs(teachers, src, src_len, tgt_in)
    student = Trainable(models["student"], 0.0, SMOOTHING)
    loss, objective, _, tokens = student(src, src_len, tgt_in, tgt_out, soft, WEIGHT)
    objective.backward()
    doc = {
        "pairs": PAIRS, "label_smoothing": SMOOTHING, "distill_weight": WEIGHT,
        "tokens": int(tokens), "loss_sum": loss.item(), "objective_sum": objective.item(),
        # d objective_sum / d parameter, under the checkpoint's tensor names, row-major.
        "grad": {n: p.grad.reshape(-1).tolist() for n, p in models["student"].named_parameters()},
    }
    with open(os.path.join(OUT_DIR, "distill.json"), "w") as f:
        json.dump(doc, f)
        f.write("\n")
    print(f"tokens {doc['tokens']}, loss {doc['loss_sum']:.6f}, objective {doc['objective_sum']:.6f}")


if __name__ == "__main__":
    main()
