// Deterministic random numbers, identical on every platform (splitmix64): sampling's token draws,
// training's data order, initialisation and dropout masks, the tasks' generators.
#pragma once
#include <cstdint>

namespace attnseq {

struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next();
  float uniform();  // [0, 1)
};

}  // namespace attnseq
