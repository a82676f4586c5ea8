// attnseq command line: `attnseq translate --model FILE [--beam K] [--max-length N] [--json]
// [--ids 5,17,42 | TEXT]` prints the output and its alignment as a text heatmap (or JSON).
// Training and evaluation commands join here as they land.
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace {
void usage(FILE* f) {
  std::fputs(
      "usage: attnseq translate --model FILE [--beam K] [--max-length N] [--length-penalty A]\n"
      "                         [--temperature T --seed S] [--prefix TEXT] [--json] (--ids 5,17,42 | TEXT)\n"
      "       attnseq info --model FILE\n",
      f);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (cmd == "translate") return attnseq::cli::translate(args);
    if (cmd == "info") return attnseq::cli::info(args);
    std::fprintf(stderr, "attnseq: unknown command '%s'\n", cmd.c_str());
    usage(stderr);
    return 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "attnseq: %s\n", e.what());
    return 1;
  }
}
