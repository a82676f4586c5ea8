// splitmix64 (core/rng.hpp).
#include "core/rng.hpp"

namespace attnseq {

std::uint64_t Rng::next() {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float Rng::uniform() { return float(next() >> 40) * (1.0f / 16777216.0f); }

}  // namespace attnseq
