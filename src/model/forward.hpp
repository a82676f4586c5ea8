// The forward pass, written once, and beside each forward its backward (llm.c's *_forward and
// *_backward pairs): decoder_step and decoder_step_backward, encoder_forward and encoder_backward.
// Inference (Model::encode, Model::step) and training (train::forward_backward) both run the forwards;
// training passes a tape, which keeps every activation the backward reads, and a mask source for
// dropout. Without a tape nothing extra is kept and nothing is dropped: the inference semantics of
// docs/model.md. train::forward_backward runs the output layer and the loss between the two.
// Shapes (nn/layers.hpp's letters, and): cap rows a state holds, L layers, Hd decoder hidden,
// He encoder hidden per direction, Ho encoder output (He, or 2 He bidirectional), Ts a source's
// positions, Tm the longest source of a batch, E (Es, Et) source and target embeddings, D the decoder
// RNN's input (Et, plus Hd with input feeding, plus Ho for Bahdanau), R = D - Et (what the input
// projection multiplies beside the embedding), GH = G H the gates' rows (H: Hd in the decoder, He
// in the encoder), N sources of a batch, P = N Tm their padded positions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/config.hpp"
#include "nn/layers.hpp"

namespace attnseq {
struct DecoderState;
}

namespace attnseq::fwd {

using Linear = nn::Linear;  // one product Y = X W^T + b through whichever copy of W is present

// What the decoder multiplies by. Model::prepare fills it with the packed or int8 copies and the
// per-token table; training fills it with the plain weights and its own packed copies, no table.
struct DecoderWeights {
  std::vector<nn::RnnWeights> rnn;  // per layer
  nn::AttentionWeights attn;
  const float* emb = nullptr;  // (Vt, Et)
  Linear combine, out;
  // Layer 0's shortcut (inference): table (Vt, G Hd) = emb W_ih[:, :Et]^T + b_ih, and `rest` = the
  // columns of W_ih that multiply the fed vector (h~ or the context), (G Hd, D - Et). Null: none.
  const float* table = nullptr;
  Linear rest;
};

// The source one decoder row attends to: keys (T, Kd) (for dot, the memory itself) and the memory
// bank (T, Ho); positions [valid, T) are padding, given weight 0.
struct Source {
  const float* keys = nullptr;
  const float* memory = nullptr;
  std::size_t T = 0, valid = 0;
};

// Dropout masks for training: each draw fills m with n values, 0 or 1 / (1 - p).
class Masks {
 public:
  virtual ~Masks() = default;
  virtual void draw(std::vector<float>& m, std::size_t n) = 0;
};

// One recurrent layer at one step, B rows: what its backward pass reads.
struct CellTape {
  std::vector<float> gates;             // (B, G H): the gate activations the cell left in gi
  std::vector<float> gh;                // (B, G H): GRU's h W_hh^T + b_hh
  std::vector<float> h_prev, c_prev;    // (B, H) state before the step
  std::vector<float> c_new;             // (B, H) LSTM cell after the step
  std::vector<float> h;                 // (B, H) state after the step
  std::vector<float> in_mask, in_drop;  // layers above the first, with dropout: the mask and the dropped input
};

// One decoder step's activations (training), B rows, T source positions.
struct StepTape {
  std::vector<float> x;                        // (B, D) layer 0's input [emb(y_{k-1}) (dropped); fed vector]
  std::vector<float> emb_mask;                 // (B, Et) dropout on the target embeddings
  std::vector<CellTape> cell;                  // per layer
  std::size_t T = 0;                           // the state's source positions: the stride of weights and u
  std::vector<float> query, weights, context;  // (B, Hd), (B, T), (B, Ho)
  std::vector<float> u;                        // additive: (B, T, A) = tanh(W_q q + keys)
  std::vector<float> cat, htilde;              // (B, Ho + Hd) = [context; top state], (B, Hd) = tanh(W_c cat + b_c)
  std::vector<float> feat_mask, feat;          // dropout on the output features, and the dropped features
  // Training leaves the output product to its caller, which makes it once over every step's features
  // (train/backprop.cpp): a step then computes no logits. What the product reads is in the tape: feat
  // (with dropout), htilde (attention) or the top layer's h (style none).
  bool defer_logits = false;
};

// One decoder step for rows 0..B-1 of st (sized by Model::start or size_state), previous tokens
// prev (B, valid ids), row b attending to *rows[b] (rows of one source next to each other form one
// attention product). attn_override (B, st.T), if given, replaces the attention weights (each row
// renormalised; all rows must share one source). Training passes `record`: the step then also keeps
// what backward needs in record->tape (whose cell must have a CellTape per layer), and with
// record->masks applies dropout.
struct StepRecord {
  StepTape* tape = nullptr;  // required
  Masks* masks = nullptr;    // dropout masks, or none
};
void decoder_step(const ModelConfig& c, const DecoderWeights& w, DecoderState& st, const std::int32_t* prev,
                  std::size_t B, const Source* const* rows, const float* attn_override,
                  const StepRecord* record = nullptr);

// ---- Backward (training). Each adds into the gradients it is given, as nn/'s layer backwards do:
// Grads holds them at the weights' offsets (bind_tensors over the gradient buffer; null: not wanted).
using Grads = Tensors<float*>;

// W^T packed (kernels::pack) for backward's products dX += dY W: the trainer packs each once per call.
class Transposes {
 public:
  virtual ~Transposes() = default;
  virtual const float* packed_t(const float* w, std::size_t M, std::size_t N) = 0;  // w is (M, N)
};

// Where one decoder row's attention gradients add: d keys (T, Kd) (for dot, d memory itself) and
// d memory (T, Ho), the rows of its source's encoder run.
struct SourceGrad {
  float* keys = nullptr;
  float* memory = nullptr;
};

// What decoder_step_backward carries from step k back to step k-1, and its scratch. dh, dc [layer]
// (rows, Hd): on entry d objective / d (the state after step k), on exit / d (the state before it).
struct DecoderBackward {
  std::vector<std::vector<float>> dh, dc;
  std::vector<float> dhtilde_next;  // input feeding: d objective / d h~_k, through step k+1's input
  std::vector<float> dfeat, dtmp, dcat, dctx, dq, dx, dgi, dscratch, ascratch;
  // Zeroes the carry for `rows` rows over sources of T positions and sizes the scratch.
  void start(const ModelConfig& c, std::size_t rows, std::size_t T);
};

// decoder_step's backward for the B rows tape s recorded (rows 0..B-1; rows that ran at step k+1 are
// a prefix of them). dout (B, Hd): d objective / d the step's output features (what the output layer
// read: feat with dropout, else h~, or the top layer's h for style none). prev: the step's previous
// tokens. rows, grads: each row's source and where its attention gradients go. dropout: the forward
// drew masks (they are in the tape).
void decoder_step_backward(const ModelConfig& c, const DecoderWeights& w, const StepTape& s, const float* dout,
                           const std::int32_t* prev, std::size_t B, const Source* const* rows, const SourceGrad* grads,
                           bool dropout, const Grads& g, DecoderBackward& b, Transposes& tr);

// What the encoder (and what it derives for the decoder) multiplies by.
struct EncoderWeights {
  std::vector<nn::RnnWeights> rnn;  // [layer * dirs + direction]
  const float* emb = nullptr;       // (Vs, Es)
  // Layer 0's shortcut (inference): per direction (Vs, G He) = emb W_ih^T + b_ih. Null: none.
  const float* table[2] = {nullptr, nullptr};
  Linear att_general, att_key, bridge;
};

// One encoder run over n sources, processed longest first: row j of every buffer is source
// order[j], its position t at padded row j Tm + t. Buffers only grow (an Encoded keeps one).
struct EncoderRun {
  std::size_t Tm = 0;                             // the longest source's length
  std::vector<std::size_t> lens;                  // (n) length of row j, longest first
  std::vector<int> order;                         // (n) source index of row j
  std::vector<float> memory;                      // (n Tm, Ho) the top layer's outputs h_i; zero at padding
  std::vector<float> keys;                        // (n Tm, K) general W_a h_i, additive W_k h_i; empty for dot
  std::vector<float> final_h, final_c;            // (n, L, Ho) in source order: each direction's last state
  std::vector<float> init_h, init_c;              // (n, L, Hd) in source order: the decoder's s_0 (bridge applied)
  std::vector<float> layer_out, gi, gh, h, c, x;  // scratch
};

// The encoder's activations (training): per layer its input as multiplied (after dropout) and the
// dropout mask, both (n Tm, in); per layer, direction and step k the cells of the rows still running.
struct EncoderTape {
  std::vector<std::vector<float>> input, mask;  // [layer]
  std::vector<CellTape> cell;                   // [(layer * dirs + direction) * Tm + k]
};

// Runs the encoder over n valid sources (srcs[i]: lens[i] ids), then derives the attention keys and
// the decoder's initial state. Rows still running at step k are a prefix of the rows, so each step is
// one product over them; a row's results do not depend on the other rows. With a tape (and masks for
// dropout on the source embeddings and between layers), keeps what backward needs.
void encoder_forward(const ModelConfig& c, const EncoderWeights& w, const std::int32_t* const* srcs, const int* lens,
                     std::size_t n, EncoderRun& r, EncoderTape* tape, Masks* masks);

// What encoder_backward reads beside the tape, and its scratch. dmemory (n Tm, Ho) and dkeys (n Tm, K):
// the gradients the decoder steps' attention added, in the run's row order; dinit_h, dinit_c (n, L, Hd)
// in source order: d objective / d s_0.
struct EncoderBackward {
  std::vector<float> dmemory, dkeys, dinit_h, dinit_c;
  std::vector<float> dfinal_h, dfinal_c, dout, din, dcell, scratch, dh, dc, dgi;
  // Zeroes dmemory and dkeys for the run r, and sizes dinit_h and dinit_c.
  void start(const ModelConfig& c, const EncoderRun& r);
};

// encoder_forward's backward: the keys' products and the bridge back to the memory and the final
// states, then the layers top-down, each direction backwards over the steps the forward ran (the
// rows still running at step k a prefix; a finished row's state gradient passes through). srcs: the
// sources as encoder_forward read them (embedding gradients). dropout: the forward drew masks.
void encoder_backward(const ModelConfig& c, const EncoderWeights& w, const EncoderRun& r, const EncoderTape& tape,
                      const std::int32_t* const* srcs, bool dropout, const Grads& g, EncoderBackward& b,
                      Transposes& tr);

// Sizes st for `capacity` rows over sources of up to T positions (every buffer a step touches), with
// rows 0..capacity-1's states zeroed. Model::start does this, then fills in s_0.
void size_state(const ModelConfig& c, DecoderState& st, int capacity, int T);

}  // namespace attnseq::fwd
