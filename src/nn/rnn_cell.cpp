// GRU and LSTM cell forward passes with PyTorch's gate order and equations (docs/model.md).
// The matrix work is one product per step for the whole batch; the rest is elementwise.
#include <algorithm>

#include "kernels/kernels.hpp"
#include "nn/layers.hpp"

namespace attnseq::nn {

namespace {
// gh (B, G) = h W_hh^T + b_hh (H columns); from a zero h, just the bias.
void recurrent_product(const RnnWeights& w, const float* h, float* gh, std::size_t B, std::size_t G, bool h_zero) {
  const std::size_t H = w.hidden;
  if (!h_zero) return w.hh(h, H, gh, G, B, G, H);
  for (std::size_t r = 0; r < B; ++r) {
    if (w.hh.b)
      std::copy(w.hh.b, w.hh.b + G, gh + r * G);
    else
      std::fill(gh + r * G, gh + (r + 1) * G, 0.f);
  }
}
}  // namespace

void gru_cell_forward(const RnnWeights& w, float* gi, float* gh, float* h, std::size_t B, bool h_zero) {
  const std::size_t H = w.hidden, G = 3 * H;
  recurrent_product(w, h, gh, B, G, h_zero);  // gh (B, 3H) = h W_hh^T + b_hh
  for (std::size_t r = 0; r < B; ++r) {
    float* x = gi + r * G;  // [r; z; n] pre-activations from the input
    const float* g = gh + r * G;
    float* hr = h + r * H;
    kernels::add(g, x, 2 * H);   // r, z pre-activations
    kernels::sigmoid(x, 2 * H);  // r = σ(.), z = σ(.)
    float* n = x + 2 * H;
    const float* rr = x;
    for (std::size_t i = 0; i < H; ++i) n[i] += rr[i] * g[2 * H + i];  // W_in x + b_in + r ⊙ (W_hn h + b_hn)
    kernels::tanh(n, H);
    const float* z = x + H;
    for (std::size_t i = 0; i < H; ++i) hr[i] = n[i] + z[i] * (hr[i] - n[i]);  // (1-z) n + z h
  }
}

void lstm_cell_forward(const RnnWeights& w, float* gi, float* gh, float* h, float* c, std::size_t B, bool h_zero) {
  const std::size_t H = w.hidden, G = 4 * H;
  recurrent_product(w, h, gh, B, G, h_zero);
  for (std::size_t r = 0; r < B; ++r) {
    float* x = gi + r * G;  // [i; f; g; o]
    kernels::add(gh + r * G, x, G);
    kernels::sigmoid(x, 2 * H);      // i, f
    kernels::tanh(x + 2 * H, H);     // g
    kernels::sigmoid(x + 3 * H, H);  // o
    float* cr = c + r * H;
    float* hr = h + r * H;
    float* tc = gh + r * G;  // scratch: tanh(c')
    for (std::size_t i = 0; i < H; ++i) tc[i] = cr[i] = x[H + i] * cr[i] + x[i] * x[2 * H + i];
    kernels::tanh(tc, H);
    kernels::mul(x + 3 * H, tc, hr, H);
  }
}

}  // namespace attnseq::nn
