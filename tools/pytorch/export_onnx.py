#!/usr/bin/env python3
"""Export the benchmarks' reference model as an attnseq checkpoint and as two ONNX graphs, from the same
weights, so that bench/ort.mjs can time attnseq against onnxruntime-web on identical work.

    /usr/bin/python3 tools/pytorch/export_onnx.py [--H 128,256,512] [--V 1000] [--out build/onnx] [--seed 20261201]

The reference model is the one of bench/bench_engine.cpp: GRU, luong decoder, dot score, no input
feeding, no bridge, 1 layer, unidirectional encoder, E = H, V = 1000 on both sides, source length
T = 32. --V sets another vocabulary (both sides), for the output layer at a real size (V = 10000:
bash bench/ort.sh --V 10000). Every weight is uniform in [-0.1, 0.1) from torch.manual_seed(seed + H)
(the same range as the C++ bench; not the same numbers). For each H it writes, under --out, files
named ref-H<H> (V = 1000, the names bench/ort.sh has always read) or ref-H<H>-V<V> (any other V):

  ref-H<H>.safetensors   the twin's state_dict, no __metadata__ (an ids-only model: pad 0, bos 1,
                         eos 2, unk 3), which attnseq's loadModel() reads as it is
  ref-H<H>-encode.onnx   src (T) int64 -> enc_out (T, H), state (1, 1, H)        = attnseq encode()
  ref-H<H>-step.onnx     prev (1) int64, state (1, 1, H), enc_out (T, H)
                         -> logits (V), new_state (1, 1, H), attention (T)       = one dec.step()
  ref-H<H>.json          the configuration, seed, the source and the forced target ids the bench uses,
                         and the twin's own logits and attention for the first CHECK_STEPS steps

Shapes are static (T = 32): the graph ORT runs is as simple as it can be. The two graphs call the twin's
own modules (attnseq_twin.Seq2Seq), so they compute what the twin computes, which is what attnseq
computes (tests/cpp parity fixtures). torch.onnx.export needs no `onnx` Python package. bench/ort.sh runs
this when the files are missing or older than this script or the twin.
"""
import argparse
import json
import os
import sys
import warnings

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attnseq_twin import Config, Seq2Seq, save_attnseq  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_V, T = 1000, 32
FORCED = 64          # forced target ids; the bench restarts the decoder every 64 steps
CHECK_STEPS = 4      # steps of twin logits/attention recorded in the JSON
OPSET = 13


class EncodeGraph(nn.Module):
    """src ids (T) -> encoder outputs (T, H) and the decoder's initial state (1, 1, H), as twin.encode()."""

    def __init__(self, twin: Seq2Seq):
        super().__init__()
        self.twin = twin

    def forward(self, src):
        x = self.twin.encoder.embedding(src).unsqueeze(0)  # (1, T, E)
        out, final = self.twin.encoder.rnn(x)                     # (1, T, H), (1, 1, H)
        return out[0], self.twin._init_state(self.twin._layer_finals(final))


class StepGraph(nn.Module):
    """One decoder step from y_{k-1}, as twin.step() for a luong decoder without input feeding."""

    def __init__(self, twin: Seq2Seq):
        super().__init__()
        self.twin = twin

    def forward(self, prev, state, enc_out):
        dec = self.twin.decoder
        emb = dec.embedding(prev)                 # (1, E)
        out, new_state = dec.rnn(emb.view(1, 1, -1), state)
        s = out[0, 0]
        _, w, c = self.twin._attend(s, enc_out)
        htilde = torch.tanh(dec.combine(torch.cat([c, s])))  # context first, as the twin
        return dec.out(htilde), new_state, w


def base_name(H: int, V: int) -> str:
    """The files' common stem: ref-H<H> at the reference vocabulary, so that files exported before --V
    existed keep their names, and ref-H<H>-V<V> otherwise (bench/ort.mjs reads the same names)."""
    return f"ref-H{H}" if V == DEFAULT_V else f"ref-H{H}-V{V}"


def reference_config(H: int, V: int) -> Config:
    return Config(cell="gru", style="luong", score="dot", input_feeding=False, bidirectional=False, layers=1,
                  bridge=False, emb=H, enc_hidden=H, dec_hidden=H, attn_dim=0, src_vocab_size=V, tgt_vocab_size=V)


def export(H: int, V: int, seed: int, out_dir: str) -> None:
    torch.manual_seed(seed + H)
    twin = Seq2Seq(reference_config(H, V))
    with torch.no_grad():
        for p in twin.parameters():
            p.uniform_(-0.1, 0.1)
    twin.eval()
    gen = torch.Generator().manual_seed(seed + H + 1)
    src = torch.randint(4, V, (T,), generator=gen, dtype=torch.int64)
    forced = torch.randint(4, V, (FORCED,), generator=gen, dtype=torch.int64)

    base = os.path.join(out_dir, base_name(H, V))
    save_attnseq(twin, base + ".safetensors", None)

    enc_graph, step_graph = EncodeGraph(twin).eval(), StepGraph(twin).eval()
    with torch.no_grad():
        enc_out, state = enc_graph(src)
        quiet = {"verbose": False, "opset_version": OPSET, "do_constant_folding": True}
        with warnings.catch_warnings():  # torch 1.13's notes on GRU batch sizes and shape inference
            warnings.simplefilter("ignore")
            torch.onnx.export(enc_graph, (src,), base + "-encode.onnx", input_names=["src"],
                              output_names=["enc_out", "state"], **quiet)
            torch.onnx.export(step_graph, (forced[:1], state, enc_out), base + "-step.onnx",
                              input_names=["prev", "state", "enc_out"],
                              output_names=["logits", "new_state", "attention"], **quiet)

        # The twin's own decode of the forced ids (its step() API), and the step graph's module on the
        # same inputs: they must agree before anything is written as a reference.
        st = twin.encode(src.tolist())
        if (st.enc_out - enc_out).abs().max() > 1e-6:
            raise SystemExit(f"H={H} V={V}: EncodeGraph differs from the twin's encode()")
        logits, attention = [], []
        s_graph = state
        for k in range(CHECK_STEPS):
            prev = int(forced[k - 1]) if k else twin.cfg.bos
            o = twin.step(st, prev)
            g_logits, s_graph, g_w = step_graph(torch.tensor([prev], dtype=torch.int64), s_graph, enc_out)
            if (g_logits - o.logits).abs().max() > 1e-5 or (g_w - o.attention).abs().max() > 1e-6:
                raise SystemExit(f"H={H} V={V}: StepGraph differs from the twin's step() at step {k}")
            logits.append(o.logits.tolist())
            attention.append(o.attention.tolist())

    meta = {
        "H": H, "V": V, "T": T, "seed": seed + H, "opset": OPSET, "torch": torch.__version__,
        "config": {"cell": "gru", "style": "luong", "score": "dot", "input_feeding": False,
                   "bidirectional": False, "layers": 1, "bridge": False, "emb": H, "hidden": H},
        "bos": twin.cfg.bos,
        "src": src.tolist(),
        # The decoder's first input is bos; step k > 0 is fed forced[k - 1].
        "forced": forced.tolist(),
        "twin": {"steps": CHECK_STEPS, "logits": logits, "attention": attention},
    }
    with open(base + ".json", "w") as f:
        json.dump(meta, f)
    sizes = ", ".join(f"{os.path.basename(base + s)} {os.path.getsize(base + s) / 1e6:.1f} MB"
                      for s in (".safetensors", "-encode.onnx", "-step.onnx"))
    print(f"[export] H={H} V={V}: {sizes}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--H", default="128,256,512", help="comma-separated hidden sizes")
    p.add_argument("--V", type=int, default=DEFAULT_V, help="vocabulary size, source and target (at least 5)")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "onnx"))
    p.add_argument("--seed", type=int, default=20261201)
    a = p.parse_args()
    if a.V < 5:  # ids 0-3 are the specials; the source and forced ids are drawn from [4, V)
        p.error(f"--V {a.V}: the vocabulary needs at least 5 ids (0-3 are pad, bos, eos, unk)")
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)
    for H in (int(h) for h in a.H.split(",")):
        export(H, a.V, a.seed, a.out)


if __name__ == "__main__":
    main()
