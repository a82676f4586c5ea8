// Subword regularisation (SpmTokenizer::encode_sample): the segmentations drawn from a unigram model's
// lattice follow exp(alpha * score) / Z, where the test enumerates every segmentation of a few words
// itself, from Multi30K's English model's pieces (no lattice code shared with the engine); a large alpha gives
// encode()'s ids and any alpha decodes to encode()'s text, on every case of tests/data/spm/cases.txt;
// a BPE model and a bad alpha are refused.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "model/spm.hpp"
#include "test_util.hpp"

using attnseq::Rng;
using attnseq::SpmPieceType;
using attnseq::SpmTokenizer;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

SpmTokenizer load(const std::string& name) {
  const std::string path = attnseq::test::data_path("spm/" + name + ".model");
  return SpmTokenizer::from_bytes(read_all(path), path);
}

// Every segmentation of s into the model's normal pieces (found by trying every substring: no trie),
// with the sum of its pieces' scores. The words below have no character that needs <unk>.
void segmentations(const SpmTokenizer& t, const std::string& s, std::size_t at, std::vector<int>& path, double score,
                   std::vector<std::pair<std::vector<int>, double>>& out) {
  if (at == s.size()) {
    out.push_back({path, score});
    return;
  }
  const auto& pieces = t.model().pieces;
  for (std::size_t len = 1; at + len <= s.size(); ++len) {
    const int id = t.piece_to_id(s.substr(at, len));
    if (pieces[std::size_t(id)].type != SpmPieceType::Normal) continue;
    path.push_back(id);
    segmentations(t, s, at + len, path, score + double(pieces[std::size_t(id)].score), out);
    path.pop_back();
  }
}

}  // namespace

TEST_CASE("spm sampling: each segmentation is drawn with probability exp(alpha * score) / Z") {
  // Multi30K's English tokenizer (8,000 pieces: many ways to cut a word).
  const std::string path = std::string(ATTNSEQ_DATA_DIR) + "/multi30k/spm/m30k_en.model";
  const SpmTokenizer t = SpmTokenizer::from_bytes(read_all(path), path);
  for (const std::string word : {"playhouse", "climbing", "wooden"}) {
    for (const double alpha : {0.0, 0.1, 0.5}) {
      CAPTURE(word);
      CAPTURE(alpha);
      std::vector<std::pair<std::vector<int>, double>> all;
      std::vector<int> path;
      segmentations(t, t.normalize(word), 0, path, 0, all);
      REQUIRE(all.size() >= 8);  // enough choices for the test to mean something
      double z = 0;
      for (const auto& [p, s] : all) z += std::exp(alpha * s);
      std::map<std::vector<int>, int> count;
      Rng rng(7);
      const int n = 20000;
      for (int i = 0; i < n; ++i) ++count[t.encode_sample(word, alpha, rng)];
      int seen = 0;
      for (const auto& [p, s] : all) {
        const double prob = std::exp(alpha * s) / z;
        const double freq = count.count(p) ? double(count[p]) / n : 0.0;
        seen += count.count(p) ? count[p] : 0;
        // Five standard deviations of a binomial frequency, and a floor for the rarest paths.
        CHECK(std::abs(freq - prob) <= 5 * std::sqrt(prob * (1 - prob) / n) + 2e-4);
      }
      CHECK(seen == n);  // nothing drawn that is not a segmentation
    }
  }
}

TEST_CASE("spm sampling: a large alpha gives encode()'s ids, and every alpha its text") {
  const std::string cases_path = attnseq::test::data_path("spm/cases.txt");
  std::istringstream in(read_all(cases_path));
  std::vector<std::string> cases;
  for (std::string l; std::getline(in, l);)
    if (l.find('\\') == std::string::npos) cases.push_back(l);  // the plain lines (no escapes to undo)
  REQUIRE(cases.size() > 500);
  for (const std::string name : {"unigram_en", "unigram_de_bf", "nfkc_en"}) {
    CAPTURE(name);
    const SpmTokenizer t = load(name);
    Rng rng(1);
    int differ = 0, changed = 0;
    for (const auto& c : cases) {
      const auto best = t.encode(c);
      if (t.encode_sample(c, 1e4, rng) != best && ++differ <= 3) CHECK(c == "(a large alpha gives encode()'s ids)");
      const auto drawn = t.encode_sample(c, 0.1, rng);
      changed += drawn != best;
      CHECK(t.decode(drawn) == t.decode(best));
    }
    CHECK(differ == 0);
    CHECK(changed > int(cases.size()) / 4);  // sampling does segment otherwise
  }
}

TEST_CASE("spm sampling: a BPE model and a bad alpha are refused") {
  Rng rng(1);
  const SpmTokenizer bpe = load("bpe_en_bf");
  CHECK_THROWS_WITH_AS(bpe.encode_sample("a dog", 0.1, rng),
                       doctest::Contains("needs a unigram model; this one is BPE"), std::invalid_argument);
  const SpmTokenizer t = load("unigram_en");
  for (const double bad : {-0.1, std::nan(""), std::numeric_limits<double>::infinity(), 1e7})
    CHECK_THROWS_WITH_AS(t.encode_sample("a dog", bad, rng), doctest::Contains("the sampling alpha must be a number"),
                         std::invalid_argument);
  CHECK(t.encode_sample("", 0.1, rng).empty());
}
