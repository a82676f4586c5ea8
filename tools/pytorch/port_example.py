"""The worked example of docs/porting.md: a seq2seq written in plain PyTorch, not attnseq's twin, in the
style of OpenNMT-py's RNN decoder with "mlp" attention and input feeding, trained for a minute to
reverse words, then exported to attnseq by tensor names (attnseq_export.py).

Its attention has every bias the PyTorch tutorials give theirs (query, key and v): the export adds the
key's into the query's and leaves v's out, which changes no output. The script writes the model and
the module's own greedy outputs (tokens, logits, attention weights, context vectors at every step) as
a parity fixture; tests/cpp/test_parity.cpp and tests/js/step-parity.test.mjs hold attnseq to them.

    /usr/bin/python3 tools/pytorch/port_example.py [--out tests/data/parity/ported_opennmt_mlp]

Deterministic: the same bytes on every run (PyTorch 1.13 on Debian 12, one thread).
"""
import argparse
import json
import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from attnseq_export import export_attnseq  # noqa: E402

PAD, BOS, EOS, UNK = 0, 1, 2, 3
LETTERS = list("abcdefghijkl")
VOCAB = ["<pad>", "<s>", "</s>", "<unk>"] + LETTERS  # both sides
EMB, HIDDEN = 16, 32
MAX_LEN = 10


# ---- the user's model: nothing here knows attnseq --------------------------------------------------

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = nn.Embedding(len(VOCAB), EMB, padding_idx=PAD)
        self.rnn = nn.GRU(EMB, HIDDEN // 2, bidirectional=True, batch_first=True)

    def forward(self, src):  # src (B, T) -> memory (B, T, H), s_0 (B, H): both directions' last states
        memory, h_n = self.rnn(self.embeddings(src))
        return memory, torch.cat([h_n[0], h_n[1]], dim=-1)


class MlpAttention(nn.Module):
    """OpenNMT-py's GlobalAttention(attn_type="mlp"), with the key and v biases of the PyTorch tutorial."""
    def __init__(self, dim):
        super().__init__()
        self.linear_query = nn.Linear(dim, dim, bias=True)
        self.linear_context = nn.Linear(dim, dim, bias=True)
        self.v = nn.Linear(dim, 1, bias=True)
        self.linear_out = nn.Linear(2 * dim, dim, bias=True)

    def forward(self, query, memory):  # query (B, H), memory (B, T, H)
        scores = self.v(torch.tanh(self.linear_query(query)[:, None] + self.linear_context(memory)))[..., 0]
        align = torch.softmax(scores, dim=-1)
        context = (align[:, :, None] * memory).sum(1)
        attn_h = torch.tanh(self.linear_out(torch.cat([context, query], dim=-1)))
        return attn_h, align, scores, context


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = nn.Embedding(len(VOCAB), EMB, padding_idx=PAD)
        self.cell = nn.GRUCell(EMB + HIDDEN, HIDDEN)  # input feeding: [embedding; previous attn_h]
        self.attn = MlpAttention(HIDDEN)

    def forward(self, prev, state, input_feed, memory):
        state = self.cell(torch.cat([self.embeddings(prev), input_feed], dim=-1), state)
        attn_h, align, scores, context = self.attn(state, memory)
        return state, attn_h, align, scores, context


class Translator(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder()
        self.generator = nn.Linear(HIDDEN, len(VOCAB))

    def loss(self, src, tgt):  # teacher forcing; src, tgt (B, T) of one length each, tgt ends with EOS
        memory, state = self.encoder(src)
        feed = torch.zeros(src.shape[0], HIDDEN)
        prev = torch.full((src.shape[0],), BOS)
        total = 0.0
        for k in range(tgt.shape[1]):
            state, feed, _, _, _ = self.decoder(prev, state, feed, memory)
            total = total + nn.functional.cross_entropy(self.generator(feed), tgt[:, k])
            prev = tgt[:, k]
        return total / tgt.shape[1]

    @torch.no_grad()
    def greedy(self, src_ids):
        memory, state = self.encoder(torch.tensor([src_ids]))
        feed, prev = torch.zeros(1, HIDDEN), torch.tensor([BOS])
        out = {"tokens": [], "logits": [], "attention": [], "scores": [], "context": []}
        for _ in range(MAX_LEN):
            state, feed, align, scores, context = self.decoder(prev, state, feed, memory)
            logits = self.generator(feed)[0]
            tok = int(logits.argmax())
            for key, v in (("logits", logits), ("attention", align[0]), ("scores", scores[0]), ("context", context[0])):
                out[key].append([float(x) for x in v])
            out["tokens"].append(tok)
            prev = torch.tensor([tok])
            if tok == EOS:
                break
        return out


def train(model, steps, seed):
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for step in range(steps):
        n = int(torch.randint(3, 9, (1,), generator=g))
        src = torch.randint(4, len(VOCAB), (32, n), generator=g)
        tgt = torch.cat([src.flip(1), torch.full((32, 1), EOS)], dim=1)
        loss = model.loss(src, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step}: loss {float(loss):.4f}", file=sys.stderr)


# ---- the port: one name per key ------------------------------------------------------------------

NAMES = {
    "encoder.embeddings.weight": "encoder.embedding.weight",
    **{f"encoder.rnn.{p}_l0{d}": f"encoder.rnn.{p}_l0{d}"
       for p in ("weight_ih", "weight_hh", "bias_ih", "bias_hh") for d in ("", "_reverse")},
    "decoder.embeddings.weight": "decoder.embedding.weight",
    "decoder.cell.weight_ih": "decoder.rnn.weight_ih_l0",  # a GRUCell is one layer of nn.GRU
    "decoder.cell.weight_hh": "decoder.rnn.weight_hh_l0",
    "decoder.cell.bias_ih": "decoder.rnn.bias_ih_l0",
    "decoder.cell.bias_hh": "decoder.rnn.bias_hh_l0",
    "decoder.attn.linear_query.weight": "decoder.attention.query.weight",
    "decoder.attn.linear_query.bias": "decoder.attention.query.bias",
    "decoder.attn.linear_context.weight": "decoder.attention.key.weight",
    "decoder.attn.linear_context.bias": "decoder.attention.key.bias",  # added into the query's
    "decoder.attn.v.weight": "decoder.attention.v.weight",
    "decoder.attn.v.bias": "decoder.attention.v.bias",  # left out: it moves every score alike
    "decoder.attn.linear_out.weight": "decoder.combine.weight",  # tanh(W [context; query] + b)
    "decoder.attn.linear_out.bias": "decoder.combine.bias",
    "generator.weight": "decoder.out.weight",
    "generator.bias": "decoder.out.bias",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="tests/data/parity/ported_opennmt_mlp",
                    help="path without extension: writes OUT.safetensors and OUT.json")
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    model = Translator()
    train(model, a.steps, a.seed)
    model.eval()
    export_attnseq(model.state_dict(), NAMES, a.out + ".safetensors", cell="gru", style="luong", score="additive",
                   input_feeding=True, src_vocab=VOCAB, tgt_vocab=VOCAB, name="ported",
                   task="reverse", description="port_example.py: an OpenNMT-py style model, exported by names")
    g = torch.Generator().manual_seed(a.seed + 1)
    cases = []
    for n in (1, 4, 7, 9):
        src = torch.randint(4, len(VOCAB), (n,), generator=g).tolist()
        out = model.greedy(src)
        for row in out["logits"]:  # a top-2 gap this small could flip in float32: pick other weights
            top = sorted(row, reverse=True)
            if top[0] - top[1] < 1e-3:
                raise SystemExit(f"greedy margin {top[0] - top[1]} below 1e-3 on {src}")
        cases.append({"src": src, **out})
        print(f"{' '.join(VOCAB[i] for i in src):20s} -> {' '.join(VOCAB[i] for i in out['tokens'])}", file=sys.stderr)
    doc = {"name": Path(a.out).name, "seed": a.seed, "max_len": MAX_LEN, "bos": BOS, "eos": EOS, "pad": PAD, "unk": UNK,
           "config": {"cell": "gru", "style": "luong", "score": "additive", "input_feeding": True,
                      "bidirectional": True, "layers": 1, "bridge": False, "tie_embeddings": False, "emb": EMB,
                      "enc_hidden": HIDDEN // 2, "dec_hidden": HIDDEN, "attn_dim": HIDDEN, "attn_query_bias": True},
           "source": "tools/pytorch/port_example.py (not the twin): scores are the module's own, higher than "
                     "attnseq's by score_offset, v's bias, which the export leaves out",
           "score_offset": float(model.decoder.attn.v.bias[0]),
           "cases": cases}
    Path(a.out + ".json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
