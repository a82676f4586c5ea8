#!/usr/bin/env python3
"""Re-derive every parity fixture from its .safetensors with plain float64 numpy, written straight
from docs/model.md's formulas (no torch.nn), and compare with the recorded numbers.

This checks the twin itself: a mistake in how attnseq_twin.py wires PyTorch's modules (h_n ordering,
[c; s] order, which state is the query) would show up here. Run: /usr/bin/python3 tools/pytorch/check_fixtures.py
"""
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_numpy import read_safetensors_numpy  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOLERANCE = 1e-4  # float32 (fixtures) against float64 (here); observed differences are about 5e-6


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def cell(kind, W, prefix, suffix, x, h, c):
    """One GRU ([r; z; n]) or LSTM ([i; f; g; o]) step exactly as docs/model.md states them."""
    w_ih, w_hh, b_ih, b_hh = (W[f"{prefix}.{n}{suffix}"] for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
    gi, gh, H = w_ih @ x + b_ih, w_hh @ h + b_hh, len(h)
    if kind == "gru":
        r = sigmoid(gi[:H] + gh[:H])
        z = sigmoid(gi[H:2 * H] + gh[H:2 * H])
        n = np.tanh(gi[2 * H:] + r * gh[2 * H:])
        return (1 - z) * n + z * h, c
    g = gi + gh
    i, f, gg, o = sigmoid(g[:H]), sigmoid(g[H:2 * H]), np.tanh(g[2 * H:3 * H]), sigmoid(g[3 * H:])
    c = f * c + i * gg
    return o * np.tanh(c), c


def encode(W, cfg, src):
    """Returns encoder outputs (Ts, He_out) and per-layer final h and c, each [fwd; bwd]."""
    xs, T, He = [W["encoder.embedding.weight"][t] for t in src], len(src), cfg["enc_hidden"]
    fin_h, fin_c = [], []
    for layer in range(cfg["layers"]):
        outs, fh, fc = [], [], []
        for suffix in (["", "_reverse"] if cfg["bidirectional"] else [""]):
            h, c, seq = np.zeros(He), np.zeros(He), [None] * T
            for t in (range(T - 1, -1, -1) if suffix else range(T)):
                h, c = cell(cfg["cell"], W, "encoder.rnn", f"_l{layer}{suffix}", xs[t], h, c)
                seq[t] = h
            outs.append(seq)
            fh.append(h)
            fc.append(c)
        xs = [np.concatenate([o[t] for o in outs]) for t in range(T)]
        fin_h.append(np.concatenate(fh))
        fin_c.append(np.concatenate(fc))
    return np.array(xs), fin_h, fin_c


def check_case(W, doc, case):
    """Replays the recorded greedy tokens; returns the largest absolute difference seen."""
    cfg, worst = doc["config"], 0.0
    style, score = cfg["style"], cfg["score"]
    Hs, fin_h, fin_c = encode(W, cfg, case["src"])
    bridge = ((lambda v: np.tanh(W["bridge.weight"] @ v + W["bridge.bias"])) if "bridge.weight" in W
              else (lambda v: v))
    s, cs = [bridge(v) for v in fin_h], [bridge(v) for v in fin_c]
    htilde, prev = np.zeros(cfg["dec_hidden"]), doc["bos"]

    def attend(q):
        if score == "dot":
            e = Hs @ q
        elif score == "general":
            e = Hs @ (W["decoder.attention.weight"].T @ q)
        else:
            qp = W["decoder.attention.query.weight"] @ q + W.get("decoder.attention.query.bias", 0.0)
            e = np.tanh(qp + Hs @ W["decoder.attention.key.weight"].T) @ W["decoder.attention.v.weight"][0]
        w = np.exp(e - e.max())
        w /= w.sum()
        return e, w, w @ Hs

    for k, tok in enumerate(case["tokens"]):
        emb = W["decoder.embedding.weight"][prev]
        if style == "bahdanau":
            e, w, ctx = attend(s[-1])  # query: top layer's s_{k-1} (h for LSTM)
            x = np.concatenate([emb, ctx])
        elif style == "luong" and cfg["input_feeding"]:
            x = np.concatenate([emb, htilde])
        else:
            x = emb
        for layer in range(cfg["layers"]):
            s[layer], cs[layer] = cell(cfg["cell"], W, "decoder.rnn", f"_l{layer}", x, s[layer], cs[layer])
            x = s[layer]
        if style == "none":
            logits = W["decoder.out.weight"] @ s[-1] + W["decoder.out.bias"]
        else:
            if style == "luong":
                e, w, ctx = attend(s[-1])
            htilde = np.tanh(W["decoder.combine.weight"] @ np.concatenate([ctx, s[-1]]) + W["decoder.combine.bias"])
            logits = W["decoder.out.weight"] @ htilde + W["decoder.out.bias"]
            # score_offset: a ported model's v bias (port_example.py), which attnseq's file leaves out
            e_rec = np.array(case["scores"][k]) - doc.get("score_offset", 0.0)
            for mine, recorded in ((e, e_rec), (w, case["attention"][k]), (ctx, case["context"][k])):
                worst = max(worst, float(np.abs(mine - np.array(recorded)).max()))
        worst = max(worst, float(np.abs(logits - np.array(case["logits"][k])).max()))
        assert int(np.argmax(logits)) == tok, f"step {k}: argmax {int(np.argmax(logits))}, recorded {tok}"
        prev = tok
    assert case["tokens"][-1] == doc["eos"] or len(case["tokens"]) == doc["max_len"], "stopped early"
    return worst


def main():
    worst = 0.0
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "data", "parity", "*.json"))):
        doc = json.load(open(path))
        tensors, _ = read_safetensors_numpy(path[:-len(".json")] + ".safetensors")
        W = {k: v.astype(np.float64) for k, v in tensors.items()}
        if doc["config"].get("tie_embeddings"):  # one matrix, read by the embedding and the output layer
            W["decoder.out.weight"] = W["decoder.embedding.weight"]
        diff = max(check_case(W, doc, case) for case in doc["cases"])
        assert diff < TOLERANCE, f"{doc['name']}: max difference {diff}"
        worst = max(worst, diff)
        print(f"ok {doc['name']:40s} max |diff| {diff:.1e}")
    print(f"all fixtures agree with the float64 re-derivation (max |diff| {worst:.1e})")


if __name__ == "__main__":
    main()
