// The models a command decodes with: one checkpoint, or an ensemble of several (decode.hpp,
// Ensemble), each given by its own --model flag. The ensemble names each member by its path in
// errors (a member whose vocabularies differ from the first's is refused, named).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"

namespace attnseq::cli {

struct LoadedModels {
  std::vector<std::unique_ptr<Model>> models;  // stable addresses: the ensemble points at them
  std::unique_ptr<Ensemble> ensemble;
  const Model& first() const { return *models[0]; }
};

inline LoadedModels load_models(const std::vector<std::string>& paths) {
  LoadedModels r;
  std::vector<const Model*> ptrs;
  for (const auto& p : paths) {
    r.models.push_back(std::make_unique<Model>(load_checkpoint_file(p)));
    ptrs.push_back(r.models.back().get());
  }
  r.ensemble = std::make_unique<Ensemble>(ptrs, paths.size() > 1 ? paths : std::vector<std::string>{});
  return r;
}

}  // namespace attnseq::cli
