// Parallel text: a source file and a target file whose line i translate each other (Multi30K's
// raw/SPLIT.LANG, data/multi30k/README.md). Reading is all or nothing: files whose line counts differ,
// an empty line, invalid UTF-8 or a line over the text limit are refused naming the file and the line.
// Also the conversion of such lines into ids through a model's tokenizers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "train/dev_eval.hpp"
#include "train/trainer.hpp"

namespace attnseq::train {

// The lines of a text file: split at \n, a final \r dropped from each (CRLF files), a final newline
// ending the last line, a UTF-8 byte-order mark at the start dropped. Each must be non-empty valid
// UTF-8 of at most kMaxTextBytes; else std::invalid_argument "NAME:LINE: what is wrong".
std::vector<std::string> text_lines(const std::string& text, const std::string& name);

struct ParallelText {
  std::vector<std::string> src, tgt;  // line i of each file
  std::string src_hash, tgt_hash;     // content_hash of each file's bytes (a run's record of its data)
};
// Reads both files (errors name the path); their line counts must be equal.
ParallelText read_parallel(const std::string& src_path, const std::string& tgt_path);

// Training pairs: each side through the model's tokenizers (no BOS/EOS). A line with no token, or with
// more than kMaxSourceLength source / kMaxTargetLength - 1 target tokens, is refused naming the file
// and line (`src_name`, `tgt_name`). The model must have text tokenizers.
std::vector<Pair> parallel_pairs(const ModelConfig& c, const ParallelText& t, const std::string& src_name,
                                 const std::string& tgt_name);
// Training pairs with sampled segmentations (subword regularisation: SpmTokenizer::encode_sample at
// `alpha`), for one epoch: a pure function of (seed, epoch) and the text, each side drawn from its own
// stream seeded by them, line by line in order. A line whose draw is over the length limit keeps its
// segmentation in `best` (parallel_pairs' ids). Both sides must be SentencePiece unigram models.
std::vector<Pair> sampled_pairs(const ModelConfig& c, const ParallelText& t, const std::vector<Pair>& best,
                                double alpha, std::uint64_t seed, int epoch);
// Development items: the source through the model's tokenizer, the target kept as text (bleu_dev).
std::vector<TextRef> parallel_refs(const ModelConfig& c, const ParallelText& t, const std::string& src_name);

}  // namespace attnseq::train
