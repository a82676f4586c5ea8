#!/usr/bin/env python3
"""Train the attnseq architecture with PyTorch on a TSV file and save a checkpoint attnseq loads as is.

    /usr/bin/python3 tools/pytorch/train.py --data pairs.tsv --tokenizer char --out model.safetensors
    /usr/bin/python3 tools/pytorch/train.py --pron data/cmudict/g014b2b.train --dropout 0.3 \
        --label-smoothing 0.1 --out g2p.safetensors
    torchrun --nproc_per_node=8 tools/pytorch/train.py --data pairs.tsv ... --out model.safetensors

The model is the twin's `Seq2Seq` (attnseq_twin.py), so the semantics are docs/model.md's and the saved
names are the checkpoint's. What this file adds is the batched, padded training graph: teacher forcing,
a packed encoder (the final state of each direction is the state at the sentence's real ends, as in
attnseq), attention masked to the real source positions, cross-entropy over real target tokens (EOS
included), Adam, global gradient-norm clipping and attnseq's learning-rate schedule (linear warm-up,
then linear decay to 0.1 * lr). Flags mirror `attnseq train --data`.

With --pron (a pronunciation dictionary, data/cmudict/README.md) it reads the words as attnseq does,
holds out the same seeded development split (--dev-fraction, --dev-seed: attnseq's split_dev), trains
on one pair per pronunciation of the other words with attnseq's vocabularies (apostrophe and A-Z in,
the 39 phonemes out, src_case upper) and reports the dev WER and PER at the end (greedy). --dropout
and --label-smoothing are attnseq's (train::ForwardOptions, src/train/backprop.hpp): dropout on the
source and target embeddings, between stacked RNN layers, and on the output features (h~, whose
dropped value is what input feeding feeds back); the smoothed objective is PyTorch's label_smoothing.
It trains by steps over reshuffled epochs; attnseq's bucketing, plateau schedule and early stopping
(docs/training.md) are not reproduced here.

Under torchrun (or any launcher that sets RANK/WORLD_SIZE/MASTER_ADDR) it joins the process group
(nccl on CUDA, gloo otherwise), wraps the model in DistributedDataParallel and shards every epoch with
a DistributedSampler. --batch is the GLOBAL batch, split evenly over the processes, and the loss is
normalised by the global token count, so N processes take the same optimizer steps as one process
with the same flags (up to float summation order). Only rank 0 prints and saves.
Dimension legend: B batch, Ts/Tt source/target steps, E, He, He_out, Hd, A, V as in attnseq_twin.py.
"""
import argparse
import math
import os
import re
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from torch.utils.data.distributed import DistributedSampler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attnseq_twin import Config, Seq2Seq, load_attnseq, save_attnseq  # noqa: E402

SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]  # ids 0..3 = pad, bos, eos, unk, as attnseq's tasks
PAD, BOS, EOS, UNK = 0, 1, 2, 3
MAX_SOURCE, MAX_TARGET = 1024, 1024          # attnseq's kMaxSourceLength / kMaxTargetLength
MAX_LINES = 1_000_000                        # attnseq's kMaxTsvLines
_ASCII_SPACE = re.compile(r"[ \t\n\r\f\v]+")  # attnseq's word tokenizer splits on ASCII whitespace only


# ---- data: the same reading, tokenizing and vocabulary as attnseq's make_tsv_task ---------------------

def tokenize(text: str, kind: str):
    if kind == "char":
        return list(text)  # code points
    return [w for w in _ASCII_SPACE.split(text) if w]


def make_vocab(tokens) -> list:
    """Specials, then the distinct tokens sorted bytewise (code point order = UTF-8 byte order)."""
    return SPECIALS + sorted(set(tokens) - set(SPECIALS))


def read_tsv(path: str, kind: str, tgt_kind: str = None):
    """[(src_tokens, tgt_tokens)]; refuses what attnseq's TSV task refuses, naming the line.
    `kind` tokenizes the source, `tgt_kind` (default: `kind`) the target."""
    kinds = {"source": kind, "target": tgt_kind or kind}
    with open(path, "rb") as f:
        raw = f.read()
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if len(lines) > MAX_LINES:
        raise ValueError(f"tsv task: {len(lines)} lines; the maximum is {MAX_LINES}")
    pairs = []
    for no, line in enumerate(lines, 1):
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            continue  # blank lines carry no example
        cols = line.split(b"\t")
        if len(cols) < 2:
            raise ValueError(f"tsv line {no}: no tab (expected source<TAB>target)")
        sides = []
        # columns after the second are ignored (Tatoeba files carry an attribution there)
        for which, col, limit in (("source", cols[0], MAX_SOURCE), ("target", cols[1], MAX_TARGET - 1)):
            try:
                text = col.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ValueError(f"tsv line {no}: {which}: invalid UTF-8 at byte {e.start}") from None
            toks = tokenize(text, kinds[which])
            if not toks:
                raise ValueError(f"tsv line {no}: empty {which}")
            if len(toks) > limit:
                raise ValueError(f"tsv line {no}: {which} has {len(toks)} tokens; the maximum is {limit}")
            sides.append(toks)
        pairs.append((sides[0], sides[1]))
    if not pairs:
        raise ValueError("tsv task: no examples (the text has no non-blank line)")
    return pairs


# ---- pronunciation dictionaries: attnseq's parse_pron and split_dev (src/train/pron_data.hpp) ---------

ARPABET = ("AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W "
           "Y Z ZH").split()
LETTERS = ["'"] + [chr(c) for c in range(ord("A"), ord("Z") + 1)]
_M64 = (1 << 64) - 1


def read_pron(path: str):
    """[(word, [pronunciation, ...])] in order of first appearance; refuses what attnseq refuses."""
    with open(path, "rb") as f:
        text = f.read().decode("latin-1")  # bytes as characters: a non-ASCII byte is refused below
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    words, order = {}, []
    phonemes = set(ARPABET)
    for no, line in enumerate(lines, 1):
        line = line[:-1] if line.endswith("\r") else line
        fail = lambda what: ValueError(f"{path}:{no}: {what}")  # noqa: E731
        if not line:
            raise fail("empty line")
        if "\t" not in line:
            raise fail("no tab between the word and its pronunciation")
        word, *sides = line.split("\t")
        if not word:
            raise fail("empty word before the tab")
        bad = [c for c in word if c not in LETTERS]
        if bad:
            raise fail(f"character {bad[0]!r} of the word is outside A-Z and the apostrophe")
        refs = []
        for k, side in enumerate(sides, 1):
            ph = side.split()
            if not ph:
                raise fail(f"empty pronunciation (reference {k})")
            for p in ph:
                if p not in phonemes:
                    raise fail(f'phoneme "{p}" (reference {k}) is not one of the 39 ARPAbet phonemes without stress')
            refs.append(" ".join(ph))
        if word not in words:
            words[word] = []
            order.append(word)
        for r in refs:
            if r not in words[word]:
                words[word].append(r)
    return [(w, words[w]) for w in order]


def word_hash(word: str, seed: int) -> int:
    """attnseq's word_hash: FNV-1a of the spelling, mixed with the seed by splitmix64's finaliser."""
    h = 0xcbf29ce484222325
    for b in word.encode("latin-1"):
        h = ((h ^ b) * 0x100000001b3) & _M64
    z = (h + (seed + 1) * 0x9e3779b97f4a7c15) & _M64
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & _M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & _M64
    return z ^ (z >> 31)


def split_dev(entries, fraction: float, seed: int):
    """(train, dev) as attnseq's split_dev: the round(fraction * words) words of smallest (hash, word)."""
    if not 0.0 <= fraction < 1.0:
        raise ValueError(f"--dev-fraction {fraction} is outside [0, 1)")
    k = int(math.floor(fraction * len(entries) + 0.5))  # llround: halves away from zero
    ranked = sorted(range(len(entries)), key=lambda i: (word_hash(entries[i][0], seed), entries[i][0]))
    dev = set(ranked[:k])
    return ([e for i, e in enumerate(entries) if i not in dev], [e for i, e in enumerate(entries) if i in dev])


def edit_distance(a, b) -> int:
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        diag, row[0] = row[0], i
        for j in range(1, len(b) + 1):
            up = row[j]
            row[j] = min(up + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1]))
            diag = up
    return row[-1]


def make_batch(examples, device):
    """examples: [(src_ids, tgt_ids)] without BOS/EOS. Returns batch-first tensors:
    src (B, Ts) padded with pad, src_len (B) on the CPU (pack_padded_sequence wants it there),
    tgt_in (B, Tt) = BOS y_1..y_n padded with pad, tgt_out (B, Tt) = y_1..y_n EOS padded with -1."""
    B = len(examples)
    Ts = max(len(s) for s, _ in examples)
    Tt = max(len(t) for _, t in examples) + 1
    src = torch.full((B, Ts), PAD, dtype=torch.long)
    tgt_in = torch.full((B, Tt), PAD, dtype=torch.long)
    tgt_out = torch.full((B, Tt), -1, dtype=torch.long)
    for b, (s, t) in enumerate(examples):
        src[b, :len(s)] = torch.tensor(s)
        tgt_in[b, 0] = BOS
        tgt_in[b, 1:len(t) + 1] = torch.tensor(t)
        tgt_out[b, :len(t)] = torch.tensor(t)
        tgt_out[b, len(t)] = EOS
    src_len = torch.tensor([len(s) for s, _ in examples], dtype=torch.long)
    return src.to(device), src_len, tgt_in.to(device), tgt_out.to(device)


# ---- the batched training graph over the twin's parameters --------------------------------------------

class Trainable(nn.Module):
    """Wraps a twin Seq2Seq; forward returns (sum of token losses, correct argmaxes, tokens) for a padded
    batch. Kept as a module so DistributedDataParallel can wrap it; the twin is `self.model`."""

    def __init__(self, model: Seq2Seq, dropout: float = 0.0, label_smoothing: float = 0.0):
        super().__init__()
        self.model = model
        self.p = dropout
        self.smoothing = label_smoothing
        # Between stacked layers, as nn.GRU(dropout=p) does (only in training mode).
        for rnn in (model.encoder.rnn, model.decoder.rnn):
            rnn.dropout = dropout if model.cfg.layers > 1 else 0.0

    def drop(self, x):
        return F.dropout(x, self.p, self.training) if self.p > 0 else x

    def encode(self, src, src_len):
        """memory (B, Ts, He_out) (zeros past each length), initial decoder hidden, mask (B, Ts)."""
        m, cfg = self.model, self.model.cfg
        x = self.drop(m.encoder.embedding(src))                                # (B, Ts, E)
        packed = pack_padded_sequence(x, src_len, batch_first=True, enforce_sorted=False)
        out, final = m.encoder.rnn(packed)  # per direction: forward ends at len-1, backward at 0
        memory, _ = pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        dirs = 2 if cfg.bidirectional else 1

        def init(h_n):  # (L*dirs, B, He) -> (L, B, He_out) = [fwd; bwd] per layer, then the bridge
            h = h_n.view(cfg.layers, dirs, h_n.shape[1], cfg.enc_hidden)
            h = torch.cat([h[:, d] for d in range(dirs)], dim=-1)
            return torch.tanh(m.bridge(h)) if cfg.bridge else h

        hidden = tuple(init(t) for t in final) if cfg.cell == "lstm" else init(final)
        mask = torch.arange(src.shape[1], device=src.device)[None, :] < src_len.to(src.device)[:, None]
        return memory, hidden, mask

    def attend(self, q, memory, keys, mask):
        """q (B, Tq, Hd) queries -> weights (B, Tq, Ts), context (B, Tq, He_out). keys: precomputed
        W_a h (general, (B, Ts, Hd)) or W_k h (additive, (B, Ts, A)); softmax over real positions only."""
        cfg, att = self.model.cfg, self.model.decoder.attention
        if cfg.score == "dot":
            scores = q @ memory.transpose(1, 2)
        elif cfg.score == "general":
            scores = q @ keys.transpose(1, 2)
        else:  # v^T tanh(W_q s + b_q + W_k h_i) (b_q when the model has it: att.query's own bias)
            scores = att.v(torch.tanh(att.query(q).unsqueeze(2) + keys.unsqueeze(1))).squeeze(-1)
        scores = scores.masked_fill(~mask[:, None, :], float("-inf"))
        w = torch.softmax(scores, dim=-1)
        return w, w @ memory

    def forward(self, src, src_len, tgt_in, tgt_out, soft=None, soft_weight=0.0):
        """(sum of token losses, sum of the trained objective, correct argmaxes, tokens). The objective is
        the loss unless label smoothing: (1 - e) (-log p_y) + e * mean over the vocabulary of -log p_v;
        with soft targets q (B, Tt, V) (teacher_probs) and weight a, (1 - a) times that plus
        a * (-sum_v q_v log p_v): token-level distillation, as attnseq's train::ForwardOptions."""
        logits = self.logits(src, src_len, tgt_in)                             # (B, Tt, V)
        V = logits.shape[-1]
        flat, gold = logits.reshape(-1, V), tgt_out.reshape(-1)
        loss = F.cross_entropy(flat, gold, ignore_index=-1, reduction="sum")
        objective = loss if self.smoothing == 0 else \
            F.cross_entropy(flat, gold, ignore_index=-1, reduction="sum", label_smoothing=self.smoothing)
        real = tgt_out >= 0
        if soft_weight > 0:
            soft_ce = -(soft.reshape(-1, V)[real.reshape(-1)] * F.log_softmax(flat[real.reshape(-1)], -1)).sum()
            objective = (1 - soft_weight) * objective + soft_weight * soft_ce
        correct = ((logits.argmax(-1) == tgt_out) & real).sum()
        return loss, objective, correct, real.sum()

    def logits(self, src, src_len, tgt_in):
        """Teacher-forced logits (B, Tt, V); rows past a target's end are garbage, never scored."""
        m, cfg = self.model, self.model.cfg
        dec = m.decoder
        memory, hidden, mask = self.encode(src, src_len)
        keys = None
        if cfg.style != "none" and cfg.score == "general":
            keys = memory @ dec.attention.weight.t()                            # W_a h_i (B, Ts, Hd)
        elif cfg.style != "none" and cfg.score == "additive":
            keys = dec.attention.key(memory)                                    # (B, Ts, A)
        emb = self.drop(dec.embedding(tgt_in))                                  # (B, Tt, E)
        if cfg.style == "none":
            s, _ = dec.rnn(emb, hidden)
            logits = dec.out(self.drop(s))
        elif cfg.style == "luong" and not cfg.input_feeding:
            # no feedback into the RNN: run all target steps at once, then attend with every s_k
            s, _ = dec.rnn(emb, hidden)                                         # (B, Tt, Hd)
            _, c = self.attend(s, memory, keys, mask)
            logits = dec.out(self.drop(torch.tanh(dec.combine(torch.cat([c, s], dim=-1)))))  # context FIRST
        else:
            B, Tt = tgt_in.shape
            htilde = emb.new_zeros(B, cfg.dec_hidden)                           # h~_0 = 0
            outs = []
            for k in range(Tt):
                e = emb[:, k]
                if cfg.style == "bahdanau":  # query s_{k-1}: the top layer's h (never the LSTM c)
                    top = (hidden[0] if cfg.cell == "lstm" else hidden)[-1]
                    _, c = self.attend(top[:, None], memory, keys, mask)
                    c = c[:, 0]
                    x = torch.cat([e, c], dim=-1)
                else:
                    x = torch.cat([e, htilde], dim=-1)
                s, hidden = dec.rnn(x[:, None], hidden)
                s = s[:, 0]
                if cfg.style == "luong":
                    _, c = self.attend(s[:, None], memory, keys, mask)
                    c = c[:, 0]
                # dropped before the output layer; input feeding feeds the dropped h~ (as attnseq)
                htilde = self.drop(torch.tanh(dec.combine(torch.cat([c, s], dim=-1))))
                outs.append(htilde)
            logits = dec.out(torch.stack(outs, dim=1))
        return logits


def teacher_probs(teachers, src, src_len, tgt_in):
    """The teachers' mean next-token distribution (B, Tt, V), teacher-forced, without dropout or
    gradient: the soft targets of token-level distillation (attnseq train --teacher)."""
    with torch.no_grad():
        return sum(torch.softmax(t.logits(src, src_len, tgt_in), -1) for t in teachers) / len(teachers)


def initialize(model: Seq2Seq, seed: int) -> None:
    """attnseq's train::initialize scheme (embeddings U(+-0.5), matrices U(+-1/sqrt(fan_in)), vectors
    U(+-1/sqrt(Hd))), drawn from torch's generator: same distribution, not the same numbers."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "embedding" in name:
                k = 0.5
            elif p.dim() == 2:
                k = 1.0 / math.sqrt(p.shape[1])
            else:
                k = 1.0 / math.sqrt(model.cfg.dec_hidden)
            p.copy_((torch.rand(p.shape, generator=g) * 2 - 1) * k)


def learning_rate(step: int, a) -> float:
    """attnseq's Trainer::learning_rate: linear warm-up from 0, then linear decay to lr * final_lr."""
    if a.warmup > 0 and step < a.warmup:
        return a.lr * (step + 1) / a.warmup
    span = max(1, a.steps - a.warmup)
    f = min(1.0, (step - a.warmup) / span)
    return a.lr * (1.0 - f * (1.0 - a.final_lr))


# ---- command line ----------------------------------------------------------------------------------------

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--data", help="TSV file, one source<TAB>target pair per line")
    src.add_argument("--pron", help="pronunciation dictionary, WORD<TAB>PHONEMES lines (data/cmudict/README.md)")
    src.add_argument("--src", help="parallel text: source sentences, one a line (with --tgt, --src-spm, --tgt-spm)")
    p.add_argument("--tgt", help="parallel text: the target sentences, line i translating --src's line i")
    p.add_argument("--src-spm", help="--src: the source side's SentencePiece model (read by python3-sentencepiece)")
    p.add_argument("--tgt-spm", help="--src: the target side's SentencePiece model")
    p.add_argument("--sample-alpha", type=float, default=None,
                   help="--src: subword regularisation, each batch's pieces drawn with probability ~ exp(A * score) "
                        "(python3-sentencepiece's sampler; attnseq's draws the same distribution)")
    p.add_argument("--tie-embeddings", action="store_true",
                   help="the output layer shares the target embedding matrix (--embedding must equal --hidden)")
    p.add_argument("--dev-fraction", type=float, default=0.03, help="--pron: share of the words held out (by word, seeded)")
    p.add_argument("--dev-seed", type=int, default=1, help="--pron: seed of the development split")
    p.add_argument("--dropout", type=float, default=0.0, help="attnseq's dropout (embeddings, between layers, output features)")
    p.add_argument("--label-smoothing", type=float, default=0.0, help="label smoothing of the trained objective")
    p.add_argument("--teacher", action="append", default=[],
                   help="a teacher for token-level distillation (attnseq's --teacher; again for more)")
    p.add_argument("--distill-weight", type=float, default=0.5,
                   help="--teacher: the soft target's share of the objective, in (0, 1]")
    p.add_argument("--tokenizer", choices=("char", "word"), default="word")
    p.add_argument("--src-tokenizer", choices=("char", "word"), default=None,
                   help="the source side's tokenizer (default: --tokenizer)")
    p.add_argument("--tgt-tokenizer", choices=("char", "word"), default=None,
                   help="the target side's tokenizer (default: --tokenizer)")
    p.add_argument("--out", required=True, help="checkpoint to write (.safetensors)")
    p.add_argument("--style", choices=("luong", "bahdanau", "none"), default="luong")
    p.add_argument("--score", choices=("dot", "general", "additive"), default="dot")
    p.add_argument("--cell", choices=("gru", "lstm"), default="gru")
    p.add_argument("--hidden", type=int, default=64,
                   help="Hd; the encoder has Hd per direction, or Hd/2 when bidirectional without --bridge")
    p.add_argument("--embedding", type=int, default=None, help="E (default: --hidden)")
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--bidirectional", action="store_true")
    p.add_argument("--input-feeding", action="store_true")
    p.add_argument("--bridge", action="store_true")
    p.add_argument("--attn-dim", type=int, default=None, help="A for --score additive (default: --hidden)")
    p.add_argument("--attn-query-bias", action="store_true", help="a bias on the additive score's query projection")
    p.add_argument("--steps", type=int, default=3000, help="optimizer steps")
    p.add_argument("--batch", type=int, default=32, help="examples per step, over all processes")
    p.add_argument("--lr", type=float, default=0.003, help="peak Adam learning rate")
    p.add_argument("--warmup", type=int, default=100, help="steps of linear warm-up")
    p.add_argument("--final-lr", type=float, default=0.1, help="fraction of --lr reached at the last step")
    p.add_argument("--clip", type=float, default=1.0, help="global gradient-norm clip (0: none)")
    p.add_argument("--seed", type=int, default=1, help="initialisation and data order")
    p.add_argument("--name", default=None, help="metadata name (default: tsv-STYLE-SCORE)")
    p.add_argument("--description", default="", help="metadata description")
    p.add_argument("--device", default=None, help="cpu, cuda, cuda:1, ... (default: cuda if available)")
    p.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: PyTorch's default)")
    p.add_argument("--log-every", type=int, default=25, help="progress line every N steps")
    p.add_argument("--save-every", type=int, default=0, help="also save every N steps (0: only at the end)")
    p.add_argument("--eval", type=int, default=200, help="greedy exact match on the first N pairs at the end")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    if a.embedding is None:
        a.embedding = a.hidden
    if a.attn_dim is None:
        a.attn_dim = a.hidden
    if a.bidirectional and not a.bridge and a.hidden % 2:
        p.error("--hidden must be even for a bidirectional encoder without --bridge")
    for k in ("hidden", "embedding", "layers", "attn_dim", "steps", "batch"):
        if getattr(a, k) < 1:
            p.error(f"--{k.replace('_', '-')} must be >= 1")
    if a.input_feeding and a.style != "luong":
        p.error("--input-feeding needs --style luong")
    if not 0.0 <= a.dropout < 1.0:
        p.error("--dropout must be in [0, 1)")
    if not 0.0 <= a.label_smoothing < 1.0:
        p.error("--label-smoothing must be in [0, 1)")
    if a.teacher and not 0.0 < a.distill_weight <= 1.0:
        p.error("--distill-weight must be in (0, 1]")
    if a.pron is not None and not 0.0 < a.dev_fraction <= 0.5:
        p.error("--dev-fraction must be in (0, 0.5]")
    if (a.src is not None) != all(x is not None for x in (a.tgt, a.src_spm, a.tgt_spm)) or \
            (a.src is None and any(x is not None for x in (a.tgt, a.src_spm, a.tgt_spm))):
        p.error("--src, --tgt, --src-spm and --tgt-spm go together")
    if a.sample_alpha is not None and (a.src is None or not 0 <= a.sample_alpha <= 1e6):
        p.error("--sample-alpha takes --src/--tgt and a number in [0, 1e6]")
    if a.tie_embeddings and a.embedding != a.hidden:
        p.error("--tie-embeddings needs --embedding equal to --hidden")
    return a


# ---- parallel text through SentencePiece models (attnseq's train --src/--tgt) ---------------------------

def read_lines(path: str):
    """The lines of a text file as attnseq's text_lines reads them (src/train/parallel_data.hpp)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = []
    for no, line in enumerate(lines, 1):
        line = line[:-1] if line.endswith(b"\r") else line
        if not line:
            raise ValueError(f"{path}:{no}: empty line (every line is a sentence of the pair)")
        try:
            out.append(line.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}:{no}: invalid UTF-8 at byte {e.start}") from None
    return out


def read_parallel(a):
    """(pairs of ids, source pieces, target pieces, the two .model files' bytes)."""
    import sentencepiece  # python3-sentencepiece; only this path needs it
    models = {}
    for side, path in (("src", a.src_spm), ("tgt", a.tgt_spm)):
        with open(path, "rb") as f:
            models[side] = f.read()
    sp = {side: sentencepiece.SentencePieceProcessor(model_proto=b) for side, b in models.items()}
    for side, proc in sp.items():  # attnseq's special ids
        ids = (proc.pad_id(), proc.bos_id(), proc.eos_id(), proc.unk_id())
        if ids != (PAD, BOS, EOS, UNK):
            raise ValueError(f"--{side}-spm has pad, bos, eos, unk ids {ids}; train it with --pad_id=0 --bos_id=1 "
                             "--eos_id=2 --unk_id=3")
    src, tgt = read_lines(a.src), read_lines(a.tgt)
    if len(src) != len(tgt):
        raise ValueError(f"'{a.src}' has {len(src)} lines and '{a.tgt}' {len(tgt)}")
    pairs = []
    for no, (s, t) in enumerate(zip(src, tgt), 1):
        si, ti = sp["src"].encode(s), sp["tgt"].encode(t)
        for which, ids, limit in (("source", si, MAX_SOURCE), ("target", ti, MAX_TARGET - 1)):
            if not ids or len(ids) > limit:
                raise ValueError(f"line {no}: the {which} has {len(ids)} pieces (1 to {limit} fit)")
        pairs.append((si, ti))
    vocab = {side: [proc.id_to_piece(i) for i in range(proc.get_piece_size())] for side, proc in sp.items()}
    if a.sample_alpha is not None:  # subword regularisation: the library's own sampler, seeded (unigram
        sentencepiece.set_random_generator_seed(a.seed)  # models: on BPE ones the library drops merges instead)
        a.sampler = (sp, src, tgt, pairs)
    return pairs, vocab["src"], vocab["tgt"], models


def sampled(a, i):
    """Pair i with both sides' segmentations drawn by the library (attnseq's --sample-alpha: a draw over
    the length limit keeps the best segmentation, as attnseq's sampled_pairs does)."""
    sp, src, tgt, pairs = a.sampler
    out = []
    for side, line, best, limit in (("src", src[i], pairs[i][0], MAX_SOURCE), ("tgt", tgt[i], pairs[i][1], MAX_TARGET - 1)):
        ids = sp[side].encode(line, enable_sampling=True, alpha=a.sample_alpha, nbest_size=-1)
        out.append(ids if ids and len(ids) <= limit else best)
    return tuple(out)


def model_config(a, src_vocab, tgt_vocab) -> Config:
    """The same sizes `attnseq train` derives from the same flags."""
    enc_hidden = (a.hidden if a.bridge else a.hidden // 2) if a.bidirectional else a.hidden
    return Config(cell=a.cell, style=a.style, score=a.score, input_feeding=a.input_feeding,
                  bidirectional=a.bidirectional, layers=a.layers, bridge=a.bridge,
                  tie_embeddings=a.tie_embeddings, emb=a.embedding,
                  enc_hidden=enc_hidden, dec_hidden=a.hidden,
                  attn_dim=a.attn_dim if a.style != "none" and a.score == "additive" else 0,
                  attn_query_bias=a.attn_query_bias,
                  src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab),
                  bos=BOS, eos=EOS, pad=PAD, unk=UNK)


def setup_distributed(a):
    """(rank, world, device). Joins the process group when a launcher set WORLD_SIZE > 1."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1:
        local = int(os.environ.get("LOCAL_RANK", "0"))
        if torch.cuda.is_available() and (a.device is None or a.device.startswith("cuda")):
            torch.cuda.set_device(local)
            dist.init_process_group(backend="nccl")
            device = torch.device("cuda", local)
        else:
            dist.init_process_group(backend="gloo")
            device = torch.device("cpu")
        return dist.get_rank(), dist.get_world_size(), device
    device = torch.device(a.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    return 0, 1, device


def batches(n_examples, per_rank, rank, world, seed):
    """Endless stream of index lists. Every epoch a DistributedSampler shuffles all indices with
    (seed, epoch) and gives this rank every world-th one; consecutive slices of per_rank are its
    batches. The ranks' i-th batches together are slice i of the one-process permutation."""
    sampler = DistributedSampler(range(n_examples), num_replicas=world, rank=rank, shuffle=True,
                                 seed=seed, drop_last=False)
    epoch = 0
    while True:
        sampler.set_epoch(epoch)
        idx = list(sampler)
        for i in range(0, len(idx), per_rank):
            yield idx[i:i + per_rank]
        epoch += 1


def save(model: Seq2Seq, a, src_vocab, tgt_vocab, spm=None) -> None:
    task = "pron" if a.pron else "translate" if a.src else "tsv"
    name = a.name or (task + "-" + a.style + ("" if a.style == "none" else "-" + a.score))
    tmp = a.out + ".tmp"
    src_kind, tgt_kind = a.src_tokenizer or a.tokenizer, a.tgt_tokenizer or a.tokenizer
    kinds = {} if src_kind == tgt_kind else {"src_tokenizer": src_kind, "tgt_tokenizer": tgt_kind}
    meta = {"tokenizer": src_kind if src_kind == tgt_kind else "mixed", **kinds, "src_vocab": src_vocab,
            "tgt_vocab": tgt_vocab, "name": name, "task": task, "description": a.description}
    if a.pron:  # letters in (folded to upper case), phonemes out, as `attnseq train --pron` writes
        meta.update({"tokenizer": "mixed", "src_tokenizer": "char", "tgt_tokenizer": "word", "src_case": "upper",
                     "data": os.path.basename(a.pron), "dev_fraction": f"{a.dev_fraction:g}",
                     "dev_seed": str(a.dev_seed)})
    if a.src:  # both sides SentencePiece, their .model files inside the checkpoint
        meta = {"name": name, "task": task, "description": a.description,
                "data": os.path.basename(a.src) + " -> " + os.path.basename(a.tgt)}
    save_attnseq(model, tmp, meta, spm)
    os.replace(tmp, a.out)  # a reader never sees a half-written file


def main(argv=None):
    a = parse_args(argv)
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    rank, world, device = setup_distributed(a)
    log = (lambda *x, **k: print(*x, **k, flush=True)) if rank == 0 and not a.quiet else (lambda *x, **k: None)
    if a.batch % world:
        raise SystemExit(f"--batch {a.batch} must be a multiple of the {world} processes")
    per_rank = a.batch // world

    dev = []
    if a.pron:
        train_words, dev_words = split_dev(read_pron(a.pron), a.dev_fraction, a.dev_seed)
        src_vocab, tgt_vocab = make_vocab(LETTERS), make_vocab(ARPABET)
        pairs = [(list(w), r.split()) for w, refs in train_words for r in refs]  # one pair per pronunciation
    elif a.src:
        data, src_vocab, tgt_vocab, spm = read_parallel(a)
    else:
        pairs = read_tsv(a.data, a.src_tokenizer or a.tokenizer, a.tgt_tokenizer or a.tokenizer)
        src_vocab = make_vocab(t for s, _ in pairs for t in s)
        tgt_vocab = make_vocab(t for _, tg in pairs for t in tg)
    if not a.src:
        spm = None
        s_index = {t: i for i, t in enumerate(src_vocab)}
        t_index = {t: i for i, t in enumerate(tgt_vocab)}
        data = [([s_index[t] for t in s], [t_index[t] for t in tg]) for s, tg in pairs]
    if a.pron:
        dev = [([s_index[c] for c in w], [[t_index[p] for p in r.split()] for r in refs]) for w, refs in dev_words]

    cfg = model_config(a, src_vocab, tgt_vocab)
    model = Seq2Seq(cfg)
    initialize(model, a.seed)
    net = Trainable(model, a.dropout, a.label_smoothing).to(device)
    teachers = []
    for path in a.teacher:  # the student's vocabularies, any architecture; eval mode: no dropout
        t, _ = load_attnseq(path)
        if (t.cfg.src_vocab_size, t.cfg.tgt_vocab_size) != (cfg.src_vocab_size, cfg.tgt_vocab_size):
            raise SystemExit(f"--teacher {path}: vocabularies of {t.cfg.src_vocab_size} and {t.cfg.tgt_vocab_size} "
                             f"tokens; the student's have {cfg.src_vocab_size} and {cfg.tgt_vocab_size}")
        teachers.append(Trainable(t).to(device).eval())
    if world > 1:
        net = nn.parallel.DistributedDataParallel(net, device_ids=[device.index] if device.type == "cuda" else None)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr, betas=(0.9, 0.999), eps=1e-8)
    n_params = sum(p.numel() for p in model.parameters())
    log(f"{len(data)} pairs, vocab {len(src_vocab)}/{len(tgt_vocab)}, {n_params} parameters, "
        f"{world} process(es) on {device}, batch {a.batch} ({per_rank} per process)")

    stream = batches(len(data), per_rank, rank, world, a.seed)
    t0, tokens_seen, loss_avg, acc_avg = time.time(), 0, None, None
    net.train()
    for step in range(a.steps):
        ex = [sampled(a, i) if a.sample_alpha is not None else data[i] for i in next(stream)]
        src, src_len, tgt_in, tgt_out = make_batch(ex, device)
        soft = teacher_probs(teachers, src, src_len, tgt_in) if teachers else None
        loss_sum, objective, correct, tokens = net(src, src_len, tgt_in, tgt_out, soft,
                                                   a.distill_weight if teachers else 0.0)
        stats = torch.stack([loss_sum.detach(), correct.to(loss_sum.dtype), tokens.to(loss_sum.dtype)])
        if world > 1:
            dist.all_reduce(stats)  # global loss, correct and token counts
        n_tok = stats[2].item()
        # DDP averages gradients over the processes; scaling by world makes the result the gradient
        # of (global loss sum / global tokens), the per-token mean of the whole batch, as in attnseq.
        opt.zero_grad(set_to_none=True)
        (objective * (world / n_tok)).backward()
        grad_norm = nn.utils.clip_grad_norm_(net.parameters(), a.clip) if a.clip > 0 else None
        for g in opt.param_groups:
            g["lr"] = learning_rate(step, a)
        opt.step()

        loss, acc = stats[0].item() / n_tok, stats[1].item() / n_tok
        loss_avg = loss if loss_avg is None else 0.98 * loss_avg + 0.02 * loss
        acc_avg = acc if acc_avg is None else 0.98 * acc_avg + 0.02 * acc
        tokens_seen += n_tok
        done = step + 1
        if done % a.log_every == 0 or done == a.steps:
            el = time.time() - t0
            gn = f"  |g| {grad_norm.item():.3f}" if grad_norm is not None else ""
            log(f"step {done}/{a.steps}  loss {loss_avg:.4f} (batch {loss:.4f})  acc {acc_avg:.3f}{gn}  "
                f"lr {learning_rate(step, a):.2e}  {tokens_seen / el:.0f} tok/s  elapsed {el:.1f}s")
        if rank == 0 and a.save_every and done % a.save_every == 0 and done != a.steps:
            save(model, a, src_vocab, tgt_vocab, spm)

    el = time.time() - t0
    if rank == 0:
        model.to("cpu").eval()
        save(model, a, src_vocab, tgt_vocab, spm)
        log(f"trained {a.steps} steps in {el:.1f} s ({tokens_seen / el:.0f} target tokens/s); saved {a.out}")
        if a.eval > 0:
            n = min(a.eval, len(data))
            exact = sum(model.greedy(s, len(t) + 10).tokens == t + [EOS] for s, t in data[:n])
            log(f"greedy exact match on the first {n} training pairs: {exact}/{n} = {exact / n:.3f}")
        if dev:  # attnseq's scoring (src/train/wer.hpp): right = equal to any reference; PER to the closest
            wrong = edits = ref_len = 0
            for s, refs in dev:
                out = [t for t in model.greedy(s, 2 * len(s) + 10).tokens if t not in (PAD, BOS, EOS)]
                e, r = min(((edit_distance(out, ref), len(ref)) for ref in refs), key=lambda x: x[0])
                wrong, edits, ref_len = wrong + (e > 0), edits + e, ref_len + r
            log(f"dev split ({len(dev)} words, greedy): WER {wrong / len(dev):.4f}, PER {edits / ref_len:.4f}")
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
