// Batch translation natively: words per second of a loop that encodes and decodes each word alone
// (what a loop of translate() does) against translate_batch over the same words on 1 thread and on
// --threads threads, on the English pronunciation model and CMUdict's test words, greedy and beam 5.
// A benchmark, not a test: it measures and prints, never fails on time (it does fail if the three
// ever give different hypotheses). bench/batch.mjs is the same comparison through the npm package.
//
//   attnseq_batch_bench [--model models/g2p-en.safetensors] [--data data/cmudict/g014b2b.ref]
//                       [--words 2000] [--rounds 3] [--beams 1,5] [--threads 2]
//
// Every round runs, for each beam, the three variants in turn (the order reversed in even rounds, so
// that a burst of load from other processes falls on all alike). Wall clock per run; the ratios are
// medians over rounds of loop / variant in the same round. The load average is printed before and after.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "decode/decode.hpp"
#include "model/checkpoint.hpp"
#include "train/pron_data.hpp"
#include "train/wer.hpp"

using namespace attnseq;
using Clock = std::chrono::steady_clock;

namespace {

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  if (!(f >> a >> b >> c)) return "unknown";
  return a + " " + b + " " + c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool same(const std::vector<DecodeResult>& a, const std::vector<DecodeResult>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].hypotheses.size() != b[i].hypotheses.size()) return false;
    for (std::size_t h = 0; h < a[i].hypotheses.size(); ++h)
      if (a[i].hypotheses[h].tokens != b[i].hypotheses[h].tokens ||
          a[i].hypotheses[h].score != b[i].hypotheses[h].score)
        return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path = "models/g2p-en.safetensors", data_path = "data/cmudict/g014b2b.ref";
  int words = 2000, rounds = 3, threads = 2;
  std::vector<int> beams = {1, 5};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value (see the comment at the top of bench/batch_native.cpp)\n", a.c_str());
      return 2;
    }
    const std::string v = argv[++i];
    if (a == "--model")
      model_path = v;
    else if (a == "--data")
      data_path = v;
    else if (a == "--words")
      words = std::stoi(v);
    else if (a == "--rounds")
      rounds = std::stoi(v);
    else if (a == "--threads")
      threads = std::stoi(v);
    else if (a == "--beams") {
      beams.clear();
      for (std::size_t p = 0; p < v.size();) {
        const std::size_t q = std::min(v.find(',', p), v.size());
        beams.push_back(std::stoi(v.substr(p, q - p)));
        p = q + 1;
      }
    } else {
      std::fprintf(stderr, "unknown option %s (see the comment at the top of bench/batch_native.cpp)\n", a.c_str());
      return 2;
    }
  }
  try {
    const Model model = load_checkpoint_file(model_path);
    auto entries = train::read_pron_file(data_path).entries;
    if (int(entries.size()) > words) entries.resize(std::size_t(words));
    std::vector<std::vector<std::int32_t>> src;
    std::size_t letters = 0;
    for (const auto& it : train::pron_items(model.config(), entries, data_path)) {
      src.push_back(it.src);
      letters += it.src.size();
    }
    std::printf("# bench/batch_native.cpp: %s, %zu words (%.2f letters on average), %d rounds, threads %d\n",
                model_path.c_str(), src.size(), double(letters) / double(src.size()), rounds, threads);
    std::printf("# before: load average %s\n", loadavg().c_str());
    struct Variant {
      const char* name;
      int threads;  // 0: the loop
    };
    const Variant variants[] = {{"loop", 0}, {"batch_1_thread", 1}, {"batch_threads", threads}};
    auto run = [&](const Variant& v, const DecodeOptions& o) {
      if (v.threads > 0) return translate_batch(model, src, o, kDefaultBatchRows, v.threads);
      std::vector<DecodeResult> out;
      out.reserve(src.size());
      Encoded enc;
      for (const auto& s : src) {
        model.encode(s.data(), int(s.size()), enc);
        out.push_back(decode(model, enc, o));
      }
      return out;
    };
    for (int beam : beams) {  // the same hypotheses, or the figures mean nothing
      DecodeOptions o;
      o.beam = beam;
      const auto want = run(variants[0], o);
      for (int k = 1; k < 3; ++k)
        if (!same(want, run(variants[k], o))) {
          std::fprintf(stderr, "beam %d: %s differs from the loop\n", beam, variants[k].name);
          return 1;
        }
    }
    std::vector<std::vector<std::vector<double>>> ms(beams.size(), std::vector<std::vector<double>>(3));
    for (int r = 1; r <= rounds; ++r)
      for (std::size_t bi = 0; bi < beams.size(); ++bi) {
        DecodeOptions o;
        o.beam = beams[bi];
        for (int j = 0; j < 3; ++j) {
          const int k = r % 2 ? j : 2 - j;
          const auto t0 = Clock::now();
          const auto res = run(variants[k], o);
          const double t = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
          ms[bi][std::size_t(k)].push_back(t);
          std::printf("RUN round=%d beam=%d what=%s wall_ms=%.0f words_per_s=%.0f\n", r, beams[bi], variants[k].name, t,
                      double(res.size()) / t * 1000);
        }
      }
    std::printf("# after: load average %s\n\n", loadavg().c_str());
    std::printf(
        "| beam | loop, words/s | batch 1 thread, words/s | batch / loop | batch %d threads, words/s | batch / loop "
        "|\n",
        threads);
    std::printf("|---|---|---|---|---|---|\n");
    const double n = double(src.size()) * 1000;
    for (std::size_t bi = 0; bi < beams.size(); ++bi) {
      std::vector<double> r1, rt;
      for (int r = 0; r < rounds; ++r) {
        r1.push_back(ms[bi][0][std::size_t(r)] / ms[bi][1][std::size_t(r)]);
        rt.push_back(ms[bi][0][std::size_t(r)] / ms[bi][2][std::size_t(r)]);
      }
      std::printf("| %d | %.0f | %.0f | %.2fx | %.0f | %.2fx |\n", beams[bi], n / median(ms[bi][0]),
                  n / median(ms[bi][1]), median(r1), n / median(ms[bi][2]), median(rt));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnseq_batch_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
