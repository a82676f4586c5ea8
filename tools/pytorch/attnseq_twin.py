#!/usr/bin/env python3
"""PyTorch twin of the attnseq model (see docs/model.md and docs/checkpoint-format.md).

One `Seq2Seq` module covers every configuration attnseq supports: GRU/LSTM cells, L layers, an
optionally bidirectional encoder, an optional bridge, decoder styles luong/bahdanau/none and scores
dot/general/additive. Its `state_dict()` names are exactly the checkpoint's tensor names, so a file
written by `save_attnseq` loads in attnseq unchanged and `load_attnseq` reads one back.
Training, batching and beam search are left to others: this file is the reference for one sentence
at a time (batch of 1), which is what the parity fixtures need.

Dimension legend: Ts source length, Vs/Vt vocab sizes, E embedding, He encoder hidden per direction,
He_out = He * directions, Hd decoder hidden, A additive attention size, L layers.
"""
import json
import struct
from dataclasses import dataclass, asdict, field
from typing import List, Optional

import numpy as np
import torch
import torch.nn as nn

from safetensors_numpy import read_safetensors_numpy

DEFAULT_SPECIALS = {"pad": 0, "bos": 1, "eos": 2, "unk": 3}
STYLES = ("luong", "bahdanau", "none")
SCORES = ("dot", "general", "additive")
CELLS = ("gru", "lstm")


@dataclass
class Config:
    cell: str = "gru"            # "gru" or "lstm" (same cell in encoder and decoder)
    style: str = "luong"         # "luong", "bahdanau" or "none"
    score: str = "dot"           # "dot", "general" or "additive"; ignored by style "none"
    input_feeding: bool = False  # luong only: feed h~_{k-1} next to the embedding
    bidirectional: bool = False  # encoder only; the decoder is always unidirectional
    layers: int = 1              # encoder layers == decoder layers
    bridge: bool = False         # s_0 = tanh(bridge(enc_final)) per layer
    tie_embeddings: bool = False # the output layer's weight is decoder.embedding.weight (emb == dec_hidden)
    emb: int = 8                 # E, shared size of source and target embeddings
    enc_hidden: int = 12         # He, per direction
    dec_hidden: int = 12         # Hd
    attn_dim: int = 0            # A, additive only (0 otherwise)
    attn_query_bias: bool = False  # additive only: W_q s + b_q (decoder.attention.query.bias)
    src_vocab_size: int = 13     # Vs
    tgt_vocab_size: int = 11     # Vt
    bos: int = 1
    eos: int = 2
    pad: int = 0
    unk: int = 3

    @property
    def enc_out(self) -> int:
        """He_out: size of one encoder output h_i and of one layer's final state."""
        return self.enc_hidden * (2 if self.bidirectional else 1)

    def validate(self) -> None:
        if self.cell not in CELLS or self.style not in STYLES or self.score not in SCORES:
            raise ValueError(f"bad cell/style/score: {self.cell}/{self.style}/{self.score}")
        if self.input_feeding and self.style != "luong":
            raise ValueError(f"input_feeding only exists for style luong, got style {self.style}")
        if not self.bridge and self.enc_out != self.dec_hidden:
            raise ValueError(f"without a bridge He_out ({self.enc_out}) must equal Hd ({self.dec_hidden})")
        if self.style != "none" and self.score == "dot" and self.enc_out != self.dec_hidden:
            raise ValueError(f"dot score needs He_out ({self.enc_out}) == Hd ({self.dec_hidden})")
        if self.tie_embeddings and self.emb != self.dec_hidden:
            raise ValueError(f"tied embeddings need emb ({self.emb}) == dec_hidden ({self.dec_hidden})")
        if self.style != "none" and self.score == "additive" and self.attn_dim <= 0:
            raise ValueError("additive score needs attn_dim > 0")
        if self.attn_query_bias and (self.style == "none" or self.score != "additive"):
            raise ValueError("a query bias needs the additive score")

    def decoder_input_size(self) -> int:
        if self.style == "luong":
            return self.emb + (self.dec_hidden if self.input_feeding else 0)
        if self.style == "bahdanau":
            return self.emb + self.enc_out
        return self.emb


def make_rnn(cell: str, input_size: int, hidden: int, layers: int, bidirectional: bool) -> nn.Module:
    cls = nn.GRU if cell == "gru" else nn.LSTM
    return cls(input_size, hidden, num_layers=layers, batch_first=True, bidirectional=bidirectional)


# ---- attention scores: each maps query s (Hd) and keys h (Ts, He_out) to scores (Ts) ----------------

class DotScore(nn.Module):
    """score_i = <s, h_i>; no parameters."""
    def forward(self, s, h):
        return h @ s


class GeneralScore(nn.Module):
    """score_i = s^T W_a h_i; the parameter is named `weight` so the checkpoint says decoder.attention.weight."""
    def __init__(self, dec_hidden: int, enc_out: int):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(dec_hidden, enc_out))  # W_a (Hd, He_out)
        nn.init.uniform_(self.weight, -0.1, 0.1)

    def forward(self, s, h):
        return (h @ self.weight.t()) @ s  # (Ts, Hd) @ (Hd) -> (Ts)


class AdditiveScore(nn.Module):
    """score_i = v^T tanh(W_q s + b_q + W_k h_i); b_q only with query_bias (no other biases: a key
    bias adds into b_q, and one on v changes no weight; docs/porting.md)."""
    def __init__(self, dec_hidden: int, enc_out: int, attn_dim: int, query_bias: bool = False):
        super().__init__()
        self.query = nn.Linear(dec_hidden, attn_dim, bias=query_bias)  # W_q (A, Hd), b_q (A)
        self.key = nn.Linear(enc_out, attn_dim, bias=False)       # W_k (A, He_out)
        self.v = nn.Linear(attn_dim, 1, bias=False)               # v   (1, A)

    def forward(self, s, h):
        return self.v(torch.tanh(self.query(s).unsqueeze(0) + self.key(h))).squeeze(-1)


# ---- model -------------------------------------------------------------------------------------------

class Encoder(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.embedding = nn.Embedding(cfg.src_vocab_size, cfg.emb)
        self.rnn = make_rnn(cfg.cell, cfg.emb, cfg.enc_hidden, cfg.layers, cfg.bidirectional)


class Decoder(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.embedding = nn.Embedding(cfg.tgt_vocab_size, cfg.emb)
        self.rnn = make_rnn(cfg.cell, cfg.decoder_input_size(), cfg.dec_hidden, cfg.layers, False)
        if cfg.style != "none":
            if cfg.score == "dot":
                self.attention = DotScore()
            elif cfg.score == "general":
                self.attention = GeneralScore(cfg.dec_hidden, cfg.enc_out)
            else:
                self.attention = AdditiveScore(cfg.dec_hidden, cfg.enc_out, cfg.attn_dim, cfg.attn_query_bias)
            self.combine = nn.Linear(cfg.enc_out + cfg.dec_hidden, cfg.dec_hidden)  # W_c on [c; s]
        self.out = nn.Linear(cfg.dec_hidden, cfg.tgt_vocab_size)
        if cfg.tie_embeddings:  # one Parameter: both uses add into its gradient, as in attnseq
            self.out.weight = self.embedding.weight


@dataclass
class State:
    """Everything one sentence's decoding carries between steps."""
    enc_out: torch.Tensor                 # h_1..h_Ts (Ts, He_out)
    hidden: object                        # GRU: (L, 1, Hd); LSTM: tuple of two (L, 1, Hd)
    htilde: Optional[torch.Tensor] = None  # h~_{k-1} (Hd), input feeding only


@dataclass
class StepOut:
    logits: torch.Tensor                  # (Vt)
    attention: Optional[torch.Tensor]     # w_k (Ts), None for style none
    scores: Optional[torch.Tensor]        # raw scores before softmax (Ts)
    context: Optional[torch.Tensor]       # c_k (He_out)


@dataclass
class GreedyOut:
    tokens: List[int]                     # excluding bos, including eos if emitted
    logits: List[List[float]] = field(default_factory=list)
    attention: List[List[float]] = field(default_factory=list)
    scores: List[List[float]] = field(default_factory=list)
    context: List[List[float]] = field(default_factory=list)


class Seq2Seq(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        cfg.validate()
        self.cfg = cfg
        self.encoder = Encoder(cfg)
        if cfg.bridge:
            self.bridge = nn.Linear(cfg.enc_out, cfg.dec_hidden)  # (Hd, He_out)
        self.decoder = Decoder(cfg)

    def _layer_finals(self, h_n: torch.Tensor) -> torch.Tensor:
        """PyTorch h_n (L*dirs, 1, He) -> per-layer final state (L, 1, He_out), [fwd; bwd] per layer."""
        cfg = self.cfg
        dirs = 2 if cfg.bidirectional else 1
        h = h_n.view(cfg.layers, dirs, 1, cfg.enc_hidden)
        return torch.cat([h[:, d] for d in range(dirs)], dim=-1)

    def _init_state(self, finals: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.bridge(finals)) if self.cfg.bridge else finals

    @torch.no_grad()
    def encode(self, src_ids: List[int]) -> State:
        """Run the encoder over the source ids exactly as given (no BOS/EOS added)."""
        if len(src_ids) == 0:
            raise ValueError("empty source")
        x = self.encoder.embedding(torch.tensor([src_ids], dtype=torch.long))  # (1, Ts, E)
        out, final = self.encoder.rnn(x)
        if self.cfg.cell == "lstm":
            # the same bridge maps h_T and c_T
            hidden = tuple(self._init_state(self._layer_finals(t)).contiguous() for t in final)
        else:
            hidden = self._init_state(self._layer_finals(final)).contiguous()
        htilde = torch.zeros(self.cfg.dec_hidden) if self.cfg.input_feeding else None
        return State(enc_out=out[0], hidden=hidden, htilde=htilde)

    def _top_h(self, hidden) -> torch.Tensor:
        """Query vector: the top layer's h (for LSTM the h part, never c)."""
        h = hidden[0] if self.cfg.cell == "lstm" else hidden
        return h[-1, 0]

    def _attend(self, query: torch.Tensor, enc_out: torch.Tensor):
        scores = self.decoder.attention(query, enc_out)  # (Ts)
        w = torch.softmax(scores, dim=0)
        return scores, w, w @ enc_out                    # c = sum_i w_i h_i (He_out)

    @torch.no_grad()
    def step(self, state: State, prev_token: int) -> StepOut:
        """One decoder step from y_{k-1} = prev_token; updates `state` in place."""
        cfg, dec = self.cfg, self.decoder
        emb = dec.embedding(torch.tensor([prev_token], dtype=torch.long))[0]  # (E)
        if cfg.style == "bahdanau":
            scores, w, c = self._attend(self._top_h(state.hidden), state.enc_out)
            x = torch.cat([emb, c])
        elif cfg.style == "luong" and cfg.input_feeding:
            x = torch.cat([emb, state.htilde])
        else:
            x = emb
        out, state.hidden = dec.rnn(x.view(1, 1, -1), state.hidden)
        s = out[0, 0]  # top layer output == top layer new h (Hd)
        if cfg.style == "none":
            return StepOut(dec.out(s), None, None, None)
        if cfg.style == "luong":
            scores, w, c = self._attend(s, state.enc_out)
        htilde = torch.tanh(dec.combine(torch.cat([c, s])))  # context FIRST
        if cfg.input_feeding:
            state.htilde = htilde
        return StepOut(dec.out(htilde), w, scores, c)

    @torch.no_grad()
    def greedy(self, src_ids: List[int], max_len: int) -> GreedyOut:
        """Start from bos; argmax each step (first index on ties); stop after eos or max_len steps."""
        state = self.encode(src_ids)
        prev, res = self.cfg.bos, GreedyOut(tokens=[])
        for _ in range(max_len):
            o = self.step(state, prev)
            logits = o.logits.tolist()
            prev = max(range(len(logits)), key=lambda j: (logits[j], -j))
            res.tokens.append(prev)
            res.logits.append(logits)
            if o.attention is not None:
                res.attention.append(o.attention.tolist())
                res.scores.append(o.scores.tolist())
                res.context.append(o.context.tolist())
            if prev == self.cfg.eos:
                break
        return res


# ---- safetensors I/O (no `safetensors` package needed) ------------------------------------------------

def write_safetensors(path: str, tensors: dict, metadata: Optional[dict]) -> None:
    """8-byte LE header length, JSON header padded with spaces to a multiple of 8, raw LE F32 data
    (bytes objects, a tokenizer's .model file, are written as U8 of one dimension)."""
    header, blobs, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name in sorted(tensors):
        if isinstance(tensors[name], (bytes, bytearray)):
            data, dtype, shape = bytes(tensors[name]), "U8", [len(tensors[name])]
        else:
            arr = tensors[name].detach().cpu().contiguous().numpy().astype("<f4")
            data, dtype, shape = arr.tobytes(), "F32", list(arr.shape)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    hjson = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hjson += b" " * (-len(hjson) % 8)  # keeps the data start 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hjson)))
        f.write(hjson)
        for b in blobs:
            f.write(b)


def read_safetensors(path: str):
    """Returns (tensors {name: float32 tensor}, metadata dict or None); checks sizes and offsets."""
    arrays, metadata = read_safetensors_numpy(path)
    return {name: torch.from_numpy(a) for name, a in arrays.items()}, metadata


def default_vocab(size: int) -> List[str]:
    """Word vocabulary whose ids 0..3 are pad, bos, eos, unk and the rest are w4, w5, ..."""
    return ["<pad>", "<s>", "</s>", "<unk>"] + [f"w{i}" for i in range(4, size)]


def save_attnseq(model: Seq2Seq, path: str, metadata: Optional[dict], spm: Optional[dict] = None) -> None:
    """Write the model; `metadata` (may be None for a tensors-only file) adds free-form fields and
    vocabularies on top of the configuration fields derived from the model. `spm` ({"src": bytes,
    "tgt": bytes}) makes both sides SentencePiece tokenizers carried in the file (tokenizer.src/tgt)."""
    cfg = model.cfg
    tensors = model.state_dict()
    if cfg.tie_embeddings:  # stored once, as decoder.embedding.weight (docs/checkpoint-format.md)
        tensors = {k: v for k, v in tensors.items() if k != "decoder.out.weight"}
        if metadata is None:
            raise ValueError("a model with tied embeddings needs metadata (tie_embeddings) to be read back")
    if metadata is None:
        write_safetensors(path, tensors, None)
        return
    meta = {
        "style": cfg.style,
        "score": cfg.score,
        "input_feeding": "true" if cfg.input_feeding else "false",
        "cell": cfg.cell,
        "tokenizer": metadata.get("tokenizer", "word"),
        # per-side kinds (docs/checkpoint-format.md); "tokenizer" then says "mixed" when they differ
        **({"src_tokenizer": metadata["src_tokenizer"], "tgt_tokenizer": metadata["tgt_tokenizer"]}
           if "src_tokenizer" in metadata else {}),
        **({} if spm else {
            "src_vocab": json.dumps(list(metadata.get("src_vocab", default_vocab(cfg.src_vocab_size)))),
            "tgt_vocab": json.dumps(list(metadata.get("tgt_vocab", default_vocab(cfg.tgt_vocab_size))))}),
        "bos": str(cfg.bos), "eos": str(cfg.eos), "pad": str(cfg.pad), "unk": str(cfg.unk),
        **({"tie_embeddings": "true"} if cfg.tie_embeddings else {}),
        "name": metadata.get("name", ""),
        "task": metadata.get("task", ""),
        "description": metadata.get("description", ""),
    }
    # Any other string field (src_tokenizer, tgt_tokenizer, src_case, data, ...) passes through.
    for k, v in metadata.items():
        if k not in meta and k not in ("src_vocab", "tgt_vocab") and isinstance(v, str):
            meta[k] = v
    if spm:
        meta.update({"tokenizer": "spm", "src_tokenizer": "spm", "tgt_tokenizer": "spm"})
        tensors = {**tensors, "tokenizer.src": spm["src"], "tokenizer.tgt": spm["tgt"]}
    elif len(json.loads(meta["src_vocab"])) != cfg.src_vocab_size or \
            len(json.loads(meta["tgt_vocab"])) != cfg.tgt_vocab_size:
        raise ValueError("vocabulary lengths do not match the embedding tables")
    write_safetensors(path, tensors, meta)


def _shape(t: dict, name: str):
    if name not in t:
        raise ValueError(f"missing tensor {name}")
    return list(t[name].shape)


def load_attnseq(path: str):
    """Rebuild a Seq2Seq from a checkpoint. Sizes, cell, layers, directions, bridge and score are read
    off the shapes; style and input feeding too where the shapes decide them, else from metadata
    (a file without metadata is luong/dot/no input feeding). Returns (model, metadata or {})."""
    t, meta = read_safetensors(path)
    meta = meta or {}
    # A side's SentencePiece model rides along as bytes (U8); it is the tokenizer's, not a weight.
    t = {k: v for k, v in t.items() if k not in ("tokenizer.src", "tokenizer.tgt")}
    tie = meta.get("tie_embeddings") == "true"
    if tie:
        if "decoder.out.weight" in t:
            raise ValueError("metadata says tie_embeddings but the file holds decoder.out.weight")
        t["decoder.out.weight"] = t["decoder.embedding.weight"]
    Vs, E = _shape(t, "encoder.embedding.weight")
    Vt, Et = _shape(t, "decoder.embedding.weight")
    if Et != E:
        raise ValueError(f"decoder.embedding.weight E={Et} differs from encoder's E={E}")
    gates_x_he, _ = _shape(t, "encoder.rnn.weight_ih_l0")
    _, He = _shape(t, "encoder.rnn.weight_hh_l0")
    cell = {3: "gru", 4: "lstm"}.get(gates_x_he // He)
    if cell is None or gates_x_he % He:
        raise ValueError(f"encoder.rnn.weight_ih_l0 has {gates_x_he} rows, not 3 or 4 x He={He}")
    layers = 0
    while f"encoder.rnn.weight_ih_l{layers}" in t:
        layers += 1
    bidirectional = "encoder.rnn.weight_ih_l0_reverse" in t
    _, Hd = _shape(t, "decoder.rnn.weight_hh_l0")
    _, dec_in = _shape(t, "decoder.rnn.weight_ih_l0")
    enc_out = He * (2 if bidirectional else 1)
    if "decoder.attention.weight" in t:
        score = "general"
    elif "decoder.attention.query.weight" in t:
        score = "additive"
    else:
        score = meta.get("score", "dot")
    attn_dim = _shape(t, "decoder.attention.query.weight")[0] if score == "additive" else 0
    if "decoder.combine.weight" not in t:
        style = "none"
    elif dec_in == E:
        style = "luong"
    elif dec_in == E + Hd and dec_in != E + enc_out:
        style = "luong"
    elif dec_in == E + enc_out and dec_in != E + Hd:
        style = "bahdanau"
    else:  # E + Hd == E + He_out: the shapes cannot tell luong-with-feeding from bahdanau
        style = meta.get("style", "luong")
    if "style" in meta and meta["style"] != style:
        raise ValueError(f"metadata style {meta['style']} contradicts the shapes (style {style})")
    input_feeding = style == "luong" and dec_in == E + Hd
    if "cell" in meta and meta["cell"] != cell:
        raise ValueError(f"metadata cell {meta['cell']} contradicts the shapes (cell {cell})")
    cfg = Config(cell=cell, style=style, score=score if style != "none" else meta.get("score", "dot"),
                 input_feeding=input_feeding, bidirectional=bidirectional, layers=layers,
                 bridge="bridge.weight" in t, tie_embeddings=tie, emb=E, enc_hidden=He, dec_hidden=Hd, attn_dim=attn_dim,
                 attn_query_bias=score == "additive" and "decoder.attention.query.bias" in t,
                 src_vocab_size=Vs, tgt_vocab_size=Vt,
                 **{k: int(meta.get(k, v)) for k, v in DEFAULT_SPECIALS.items()})
    model = Seq2Seq(cfg)
    expected = model.state_dict()
    if set(expected) != set(t):
        raise ValueError(f"tensor names differ: missing {sorted(set(expected) - set(t))}, "
                         f"unexpected {sorted(set(t) - set(expected))}")
    for name, ref in expected.items():
        if list(ref.shape) != list(t[name].shape):
            raise ValueError(f"{name}: shape {list(t[name].shape)}, expected {list(ref.shape)}")
    model.load_state_dict(t)
    model.eval()
    return model, meta


def config_dict(cfg: Config) -> dict:
    """The fixture JSON's "config" object."""
    d = asdict(cfg)
    return {k: d[k] for k in ("cell", "style", "score", "input_feeding", "bidirectional", "layers",
                              "bridge", "tie_embeddings", "emb", "enc_hidden", "dec_hidden", "attn_dim",
                              "attn_query_bias")}
