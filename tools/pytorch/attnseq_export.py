"""Export your own PyTorch seq2seq to an attnseq checkpoint, by tensor names (docs/porting.md).

    from attnseq_export import export_attnseq
    export_attnseq(model.state_dict(), NAMES, "mine.safetensors", cell="gru", style="luong",
                   score="additive", input_feeding=True, src_vocab=[...], tgt_vocab=[...])

NAMES maps each of your state_dict's keys to attnseq's name for it (docs/checkpoint-format.md), or to
None to leave it out on purpose. Every key must be named: a weight nobody mapped is an error, not a
silent drop. What this adds on top of a rename, each a rewrite that changes no output:
- an RNN made with bias=False, or a combine layer without a bias (OpenNMT-py's dot and general
  attention): zeros are written for the missing biases;
- a bias on the additive score's key projection (decoder.attention.key.bias) is added into the query's
  (decoder.attention.query.bias): both are added inside the same tanh;
- a bias on v (decoder.attention.v.bias) or on the general score's W_a (decoder.attention.bias) is left
  out: it adds the same number to every position's score, so no attention weight changes (the raw
  scores attnseq shows are then that constant lower than yours).
Then it checks every shape against what the configuration needs, and writes the file with the
metadata attnseq reads (style, score, cell, input feeding, vocabularies, special ids).
Needs torch (tensors in) and nothing else: the file is written by attnseq_twin.write_safetensors.
"""
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from attnseq_twin import write_safetensors  # noqa: E402

# Biases that add a constant to every score of a step (softmax-invariant).
CONSTANT_SCORE_BIASES = ("decoder.attention.v.bias", "decoder.attention.bias")


def export_attnseq(state_dict, names, path, *, cell, style, score="dot", input_feeding=False,
                   src_vocab, tgt_vocab, specials=None, tokenizer="word", name="", task="", description="",
                   tie_embeddings=False):
    """Writes `path`; returns the dict of attnseq tensors it wrote (name -> float32 tensor)."""
    specials = specials or {"pad": 0, "bos": 1, "eos": 2, "unk": 3}
    unnamed = sorted(k for k in state_dict if k not in names)
    if unnamed:
        raise ValueError(f"keys of the state_dict with no attnseq name (map each, or to None to leave it out): {unnamed}")
    t = {}
    for key, target in names.items():
        if key not in state_dict:
            raise ValueError(f"NAMES lists '{key}', which the state_dict does not have")
        if target is None:
            continue
        if target in t:
            raise ValueError(f"two keys map to '{target}'")
        t[target] = state_dict[key].detach().to(torch.float32).cpu()
    notes = []
    key_bias = t.pop("decoder.attention.key.bias", None)
    if key_bias is not None:
        q = t.get("decoder.attention.query.bias")
        t["decoder.attention.query.bias"] = key_bias.clone() if q is None else q + key_bias
        notes.append("decoder.attention.key.bias added into decoder.attention.query.bias")
    for b in CONSTANT_SCORE_BIASES:
        if t.pop(b, None) is not None:
            notes.append(f"{b} left out: it moves every score of a step alike and changes no attention weight")
    # Zero biases where the source model has none.
    for side in ("encoder.rnn.", "decoder.rnn."):
        for k in [n[len(side) + len("weight_ih_"):] for n in list(t) if n.startswith(side + "weight_ih_")]:
            rows = t[side + "weight_ih_" + k].shape[0]
            for b in ("bias_ih_", "bias_hh_"):
                if side + b + k not in t:
                    t[side + b + k] = torch.zeros(rows)
                    notes.append(f"{side}{b}{k}: zeros (the RNN had no bias)")
    if "decoder.combine.weight" in t and "decoder.combine.bias" not in t:
        t["decoder.combine.bias"] = torch.zeros(t["decoder.combine.weight"].shape[0])
        notes.append("decoder.combine.bias: zeros (the combine layer had no bias)")
    check_shapes(t, cell=cell, style=style, score=score, input_feeding=input_feeding, tie_embeddings=tie_embeddings,
                 src_vocab=len(src_vocab), tgt_vocab=len(tgt_vocab))
    meta = {"style": style, "score": score, "input_feeding": "true" if input_feeding else "false", "cell": cell,
            "tokenizer": tokenizer, "src_vocab": json.dumps(list(src_vocab)), "tgt_vocab": json.dumps(list(tgt_vocab)),
            **{k: str(v) for k, v in specials.items()}, "name": name, "task": task, "description": description}
    if tie_embeddings:
        meta["tie_embeddings"] = "true"
    write_safetensors(path, t, meta)
    for n in notes:
        print(f"[attnseq_export] {n}", file=sys.stderr)
    return t


def check_shapes(t, *, cell, style, score, input_feeding, tie_embeddings, src_vocab, tgt_vocab):
    """Raises ValueError naming the first tensor whose shape does not fit the configuration."""
    def shape(n):
        if n not in t:
            raise ValueError(f"missing tensor '{n}' (docs/checkpoint-format.md lists what each configuration needs)")
        return list(t[n].shape)

    G = {"gru": 3, "lstm": 4}[cell]
    Vs, E = shape("encoder.embedding.weight")
    Vt, Et = shape("decoder.embedding.weight")
    if Vs != src_vocab or Vt != tgt_vocab:
        raise ValueError(f"the embeddings have {Vs} and {Vt} rows, the vocabularies {src_vocab} and {tgt_vocab} tokens")
    He = shape("encoder.rnn.weight_hh_l0")[1]
    Hd = shape("decoder.rnn.weight_hh_l0")[1]
    Ho = He * (2 if "encoder.rnn.weight_hh_l0_reverse" in t else 1)
    din = {"luong": Et + (Hd if input_feeding else 0), "bahdanau": Et + Ho, "none": Et}[style]
    want = {"decoder.rnn.weight_ih_l0": [G * Hd, din], "encoder.rnn.weight_ih_l0": [G * He, E]}
    if style != "none":
        want.update({"decoder.combine.weight": [Hd, Ho + Hd], "decoder.combine.bias": [Hd]})
        if score == "general":
            want["decoder.attention.weight"] = [Hd, Ho]
        if score == "additive":
            A = shape("decoder.attention.v.weight")[1]
            want.update({"decoder.attention.query.weight": [A, Hd], "decoder.attention.key.weight": [A, Ho],
                         "decoder.attention.v.weight": [1, A]})
            if "decoder.attention.query.bias" in t:
                want["decoder.attention.query.bias"] = [A]
    if not tie_embeddings:
        want["decoder.out.weight"] = [Vt, Hd]
    want["decoder.out.bias"] = [Vt]
    for n, s in want.items():
        if shape(n) != s:
            raise ValueError(f"tensor '{n}' has shape {shape(n)}; this configuration needs {s}")
