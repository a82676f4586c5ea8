// The seq2seq model: parameters (one flat buffer with named views), encode and step.
//   encode(source ids) runs the encoder once and precomputes everything that depends only on the
//   source (memory bank, attention keys, initial decoder state).
//   step(previous tokens) advances B decoder rows (B = 1, or the hypotheses of a beam) by one step
//   and leaves the step's query, scores, attention weights, context and logits in the state.
// Decoding strategies (greedy, beam, sampling, prefix) sit on top of step, in src/decode/.
#pragma once
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.hpp"
#include "model/forward.hpp"
#include "nn/layers.hpp"

namespace attnseq {

// Storage for the packed weight copies, on 64-byte boundaries: where malloc happened to place them
// (16-byte aligned) decided whether AVX-512's 64-byte loads split cache lines, which moved the f32
// encode by 4 % when other allocations changed (bench/RESULTS.md, "int8").
template <class T>
struct Align64 {
  using value_type = T;
  Align64() = default;
  template <class U>
  Align64(const Align64<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U>
  bool operator==(const Align64<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const Align64<U>&) const {
    return false;
  }
};

// A matrix held as int8 (kernels.hpp, the q8 section): q (M, N) row-major in [-127, 127], one
// scale per row; the matrix it stands for is q[m][n] * scale[m].
struct Q8Matrix {
  std::vector<std::int8_t> q;
  std::vector<float> scale;
};

// All parameters as named views into one flat buffer, in param_specs() order, so that zeroing,
// optimiser updates, saving and gradient checks are loops over one array.
struct Params {
  std::vector<ParamSpec> specs;
  std::vector<std::size_t> offsets;  // offsets[i] is where specs[i] starts in data
  std::vector<float> data;
  // A quantised model's int8 matrices, per spec (empty, or an empty q: the tensor is f32 only). data
  // then holds their dequantised values, q * scale, so that whatever reads the floats (the per-token
  // tables, the plain product) sees the matrix the int8 products multiply by.
  std::vector<Q8Matrix> q8;
  bool quantized() const;

  explicit Params(const ModelConfig& c);
  Params() = default;
  const float* find(std::string_view name) const;  // nullptr if absent
  float* find(std::string_view name);
  const float* get(std::string_view name) const;  // throws std::invalid_argument if absent
  float* get(std::string_view name);
};

// Everything that depends only on the source. Reused across encodes (buffers only grow).
struct Encoded {
  int T = 0;                      // source length
  std::uint64_t model_id = 0;     // Model::id() of the model that encoded it; no other model may decode it
  std::vector<std::int32_t> src;  // (T) source ids
  std::vector<float> memory;      // (T, Ho) encoder outputs h_1..h_T: the values (and dot keys)
  std::vector<float> keys;        // general (T, Hd) = W_a h_i; additive (T, A) = W_k h_i; dot: empty
  std::vector<float> init_h;      // (L, Hd) initial decoder state s_0 (after the bridge, if any)
  std::vector<float> init_c;      // (L, Hd) LSTM initial cell state
  std::vector<float> final_h;     // (L, Ho) encoder final states, before the bridge (h_T for vanilla)
  std::vector<float> final_c;     // (L, Ho) LSTM encoder final cells, before the bridge
  // the encoder's working buffers (Model::encode_batch uses the first source's for the whole batch)
  fwd::EncoderRun run;
};

// The decoder's state for up to `capacity` rows, plus the outputs of the last step.
// Sized once by Model::start(); step() allocates nothing.
struct DecoderState {
  int B = 0;                  // rows in use
  int capacity = 0;           // rows allocated
  int T = 0;                  // source length of the Encoded this state belongs to
  std::vector<float> h, c;    // (L, cap, Hd)
  std::vector<float> htilde;  // (cap, Hd) attentional hidden state h~_k (input feeding)
  // outputs of the last step
  std::vector<float> query;      // (cap, Hd) the query Q used for the scores
  std::vector<float> scores;     // (cap, T) raw attention scores
  std::vector<float> attention;  // (cap, T) attention weights (rows sum to 1)
  std::vector<float> context;    // (cap, Ho) context vector c_k
  std::vector<float> logits;     // (cap, Vt)
  // scratch
  std::vector<float> gi, gh, x, cat, attn_scratch, tmp;
  std::vector<fwd::Source> sources;      // (cap) what each row attends to
  std::vector<const fwd::Source*> rows;  // (cap) row b's entry in sources
};

class Model {
 public:
  explicit Model(ModelConfig config);  // parameters zeroed
  Model(ModelConfig config, Params params);
  // Views point into the parameter buffer, which a move keeps and a copy would not.
  Model(Model&&) = default;
  Model& operator=(Model&&) = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelConfig& config() const { return config_; }
  // Identity for the life of this model (a move keeps it): every Encoded records the model that made it,
  // and start()/step() refuse an Encoded from another model, whose sizes and keys need not fit this one.
  std::uint64_t id() const { return id_; }
  Params& params() { return params_; }
  const Params& params() const { return params_; }

  // Derives what inference reads from the parameters (layer views, per-token input tables, packed
  // weight copies). Call again after changing parameters. token_tables=false and packed=false force
  // the plain matrix path (what training uses).
  // A quantised model's int8 matrices replace its packed f32 copies; packed=false multiplies by the
  // dequantised floats instead.
  void prepare(bool token_tables = true, bool packed = true);
  bool uses_token_tables() const { return tables_; }
  bool uses_packed_weights() const { return !packs_.empty(); }
  bool uses_int8_weights() const { return !q8_packs_.empty(); }

  // Holds every matrix a ParamSpec marks int8 as int8 with a scale per row (kernels.hpp), replaces
  // its floats by the dequantised values and prepare()s: encode and step then multiply in int8 (the
  // embeddings, looked up rather than multiplied, are int8 only in a saved checkpoint).
  // Matrices already int8 (from an int8 checkpoint) are kept as they are. A row of zeros gets scale
  // 0; a matrix holding inf or NaN is refused (BadCheckpoint naming the tensor, row and column)
  // before anything changes. Returns how many matrices it quantised.
  int quantize();
  bool quantized() const { return params_.quantized(); }

  // Runs the encoder on src (T ids, each in [0, Vs)). Throws std::invalid_argument on bad input.
  // The checks encode() makes of a source, alone: throws std::invalid_argument (TooLong if too long).
  void check_source(const std::int32_t* src, int T) const;
  void encode(const std::int32_t* src, int T, Encoded& out) const;
  // The same, with the encoder's working buffers in `scratch` instead of out's: a caller that keeps
  // one scratch for many encodes (the npm package does, per model) allocates only their results.
  void encode(const std::int32_t* src, int T, Encoded& out, Encoded& scratch) const;
  // Runs the encoder on n sources at once (srcs[i]: lens[i] ids): one matrix product per layer and
  // direction over every position of every source, the recurrence over the sources still running.
  // out[i] ends exactly as encode(srcs[i], lens[i], out[i]) leaves it (every product is the same per
  // row). out is resized to at least n; out[0]'s scratch serves the whole batch. Validates every
  // source before any work: a bad one throws (std::invalid_argument or TooLong) naming its index.
  void encode_batch(const std::int32_t* const* srcs, const int* lens, int n, std::vector<Encoded>& out) const;
  // Sets state to one row holding s_0 for this source, with room for `capacity` rows.
  void start(const Encoded& enc, DecoderState& st, int capacity = 1) const;
  // Sets state to n rows, row r holding s_0 of encs[r], with room for `capacity` rows (<= kMaxRows);
  // its scores and weights are laid out at stride T = the longest source (st.T). Step it with the
  // per-row overload of step().
  void start(const Encoded* const* encs, int n, DecoderState& st, int capacity) const;
  // One decoder step for rows 0..B-1 with previous tokens prev (B). attn_override (B, T), if given,
  // replaces the computed attention weights (the "what if it had looked there" experiment).
  void step(const Encoded& enc, DecoderState& st, const std::int32_t* prev, int B,
            const float* attn_override = nullptr) const;
  // The same step for rows that attend to different sources: row b to encs[b] (rows of one source
  // are best kept next to each other: each run of them is one attention product). Row b's scores
  // and weights are its source's T values at stride st.T, zero beyond. Row b's output equals what
  // the single-source step gives it, bit for bit.
  void step(const Encoded* const* encs, DecoderState& st, const std::int32_t* prev, int B) const;
  // Beam bookkeeping: row r of the new state is row parents[r] of the old; B becomes n.
  void reorder(DecoderState& st, const std::int32_t* parents, int n) const;

 private:
  void bind();  // resolves the tensor table into params_: t_, the layers' and attention's views
  void encode_rows(const std::int32_t* const* srcs, const int* lens, int n, Encoded* const* outs, Encoded& s) const;
  void step_rows(const Encoded& shared, const Encoded* const* encs, DecoderState& st, const std::int32_t* prev, int B,
                 const float* attn_override) const;
  void build_tables();
  void build_packs();
  nn::Q8Weights pack_q8(const Q8Matrix& m, std::size_t M, std::size_t N);
  const Q8Matrix* q8_of(const float* W) const;  // the int8 copy of the parameter at W, if it has one

  ModelConfig config_;
  Params params_;
  std::uint64_t id_;
  Tensors<const float*> t_;  // every tensor's address in params_ (bind_tensors: the tensor table)
  // Inference-only derived data.
  bool tables_ = false;
  std::vector<std::vector<float>> enc_table_;              // per direction: (Vs, G He) = emb W_ih^T + b_ih
  std::vector<float> dec_table_;                           // (Vt, G Hd) = emb W_ih[:, :E]^T + b_ih
  std::vector<float> dec_w_rest_;                          // (G Hd, R) = W_ih[:, E:] (input feeding / bahdanau context)
  std::vector<std::vector<float, Align64<float>>> packs_;  // packed copies of the matrices a step or encode reads
  // int8 copies (q8_pack layout) of the matrices a quantised model holds as int8, in place of packs_.
  std::vector<std::vector<std::int8_t, Align64<std::int8_t>>> q8_packs_;
  std::vector<std::vector<std::int32_t>> q8_corrs_;  // the 7-bit layout's row corrections, where packed so
  Q8Matrix q8_rest_;                                 // dec_w_rest_ as int8: W_ih's rest columns, with W_ih's row scales
  std::size_t q8_cols_ = 0;                          // widest int8 matrix: the activation scratch a row needs
  // What the encoder and a decoder step multiply by, as values: each matrix a Linear holding the
  // weight, its bias, and its packed or int8 copy (build_packs), beside the per-token tables.
  fwd::EncoderWeights enc_;
  fwd::DecoderWeights dec_;
};

}  // namespace attnseq
