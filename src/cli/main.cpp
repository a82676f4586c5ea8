// attnseq command line: `attnseq translate --model FILE [--beam K] [--max-length N] [--json]
// [--ids 5,17,42 | TEXT]` prints the output and its alignment as a text heatmap (or JSON).
// `attnseq train` / `attnseq eval` train on a task, a TSV or a pronunciation dictionary and evaluate
// (src/cli/train.cpp); `attnseq quantize` writes an int8 checkpoint (src/cli/quantize.cpp), `attnseq
// average` the mean of checkpoints (src/cli/average.cpp).
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "kernels/kernels.hpp"

namespace {
void usage(FILE* f) {
  std::fputs(
      "usage: attnseq translate --model FILE [--beam K] [--max-length N] [--length-penalty A]\n"
      "                         [--temperature T --seed S] [--prefix TEXT] [--json]\n"
      "                         (--ids 5,17,42 | --batch-file FILE [--threads N] | TEXT)\n"
      "       attnseq info --model FILE\n"
      "       attnseq train (--task dates|en-ko|reverse|copy | --data FILE.tsv [--tokenizer char|word]\n"
      "                     [--src-tokenizer char|word] [--tgt-tokenizer char|word])\n"
      "                     [--style luong|bahdanau|none] [--score dot|general|additive] [--cell gru|lstm]\n"
      "                     [--hidden N] [--embedding N] [--layers N] [--bidirectional] [--input-feeding] [--bridge]\n"
      "                     [--attn-dim N] [--steps N] [--batch N] [--lr X] [--warmup N] [--clip X] [--seed S]\n"
      "                     [--min-len N --max-len N] [--name NAME] [--threads N] [--resume FILE] --out "
      "FILE.safetensors\n"
      "       attnseq train --pron FILE [--dev-fraction X] [--dev-seed S] [--epochs N] [--patience N] [--lr-decay X]\n"
      "                     [--bucket N] [--eval-beam K] [--dropout X] [--label-smoothing X] [--save-every N]\n"
      "                     [--stop-after N] [--keep-epochs] [--teacher FILE [--distill-weight X]] [architecture and "
      "optimiser "
      "options\n"
      "                     as above] [--resume OUT.last] --out FILE\n"
      "       attnseq eval --model FILE (--task T | --data FILE.tsv) [--n N] [--seed S] [--beam K] [--json]\n"
      "       attnseq train --src FILE --tgt FILE --dev-src FILE --dev-tgt FILE --src-spm FILE.model --tgt-spm "
      "FILE.model\n"
      "                     [--tie-embeddings] [--sample-alpha A] [epoch, architecture and optimiser options as "
      "above]\n"
      "                     --out FILE\n"
      "       attnseq eval --model FILE --pron FILE [--dev-fraction X --dev-seed S] [--beam K] [--threads N] [--hyp "
      "FILE]\n"
      "                    [--json]\n"
      "       attnseq eval --model FILE --src FILE --tgt FILE [--beam K] [--length-penalty X] [--hyp FILE] [--json]\n"
      "       attnseq quantize --in FILE --out FILE\n"
      "       attnseq average --in FILE --in FILE [--in FILE...] --out FILE\n"
      "       attnseq tokenize (--model FILE [--side source|target] | --spm FILE.model) [--pieces] [--sample-alpha A\n"
      "                        [--seed S]] [TEXT]\n"
      "       attnseq --version\n"
      "\n"
      "attnseq COMMAND --help lists the command's options and their defaults.\n",
      f);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "-V")) {
    std::puts(ATTNSEQ_VERSION);  // package.json's version, read by CMakeLists.txt at configure time
    return 0;
  }
  // Past a file size limit (`ulimit -f`) a write must fail with EFBIG, which is reported, rather than
  // kill the process by SIGXFSZ without a word.
  std::signal(SIGXFSZ, SIG_IGN);
  // ATTNSEQ_INT8=7bit: int8 models multiply with 7-bit activations, as the package does in a browser
  // with relaxed SIMD (kernels.hpp, "int8 with 7-bit activations"), through the reference loops: the
  // same bits, so that path's outputs can be measured here. 16bit (or unset) is the native product.
  if (const char* e = std::getenv("ATTNSEQ_INT8"); e && *e) {
    if (!std::strcmp(e, "7bit")) {
      attnseq::kernels::set_q8r_product(&attnseq::ref::gemm_q8r);
    } else if (std::strcmp(e, "16bit") != 0) {
      std::fprintf(stderr, "attnseq: ATTNSEQ_INT8 is 7bit or 16bit, not '%s'\n", e);
      return 2;
    }
  }
  const std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  try {
    int rc = 2;
    if (cmd == "translate")
      rc = attnseq::cli::translate(args);
    else if (cmd == "info")
      rc = attnseq::cli::info(args);
    else if (cmd == "train")
      rc = attnseq::cli::train_cmd(args);
    else if (cmd == "eval")
      rc = attnseq::cli::eval_cmd(args);
    else if (cmd == "quantize")
      rc = attnseq::cli::quantize_cmd(args);
    else if (cmd == "average")
      rc = attnseq::cli::average_cmd(args);
    else if (cmd == "tokenize")
      rc = attnseq::cli::tokenize_cmd(args);
    else {
      std::fprintf(stderr, "attnseq: unknown command '%s'\n", cmd.c_str());
      usage(stderr);
      return 2;
    }
    // Output that could not be written (a full disk: `> /dev/full`) is a failure, not a success.
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::fprintf(stderr, "attnseq: cannot write standard output: %s\n", std::strerror(errno));
      return 1;
    }
    return rc;
  } catch (const attnseq::cli::UsageError& e) {  // a command line the command cannot take: exit 2
    std::fprintf(stderr, "attnseq: %s (attnseq %s --help lists its options)\n", e.what(), cmd.c_str());
    return 2;
  } catch (const std::exception& e) {  // bad values, unreadable or unwritable files, bad checkpoints
    std::fprintf(stderr, "attnseq: %s\n", e.what());
    return 1;
  }
}
