// The command line's output files (src/cli/files.hpp), native only: write_files replaces all of its
// files or none, putting back the ones already replaced when a later rename fails; the temporary files
// a killed save leaves are removed by remove_stale_temps, and nothing else is.
#if !defined(__EMSCRIPTEN__)
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/files.hpp"

using namespace attnseq::cli;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

bool exists(const std::string& p) {
  struct stat st;
  return ::lstat(p.c_str(), &st) == 0;
}

std::string temp_dir() {
  char name[] = "/tmp/attnseq-files-XXXXXX";
  REQUIRE(::mkdtemp(name) != nullptr);
  return name;
}

}  // namespace

TEST_CASE("files: a rename that fails after another succeeded puts the replaced file back") {
  const std::string dir = temp_dir(), a = dir + "/m.safetensors", b = dir + "/m.safetensors.trainer", c = dir + "/new";
  put(a, "old weights");
  put(b, "old state");
  {
    FileSet set({{c, bytes("new file")}, {a, bytes("new weights")}, {b, bytes("new state")}});
    // The state's target turns into a folder between the writes and the renames: its rename fails.
    REQUIRE(std::remove(b.c_str()) == 0);
    REQUIRE(::mkdir(b.c_str(), 0700) == 0);
    put(b + "/x", "");
    CHECK_THROWS_WITH_AS(set.commit(), doctest::Contains(("cannot write '" + b + "'").c_str()), std::runtime_error);
  }
  CHECK(slurp(a) == "old weights");
  CHECK_FALSE(exists(c));  // a file that did not exist before does not exist after
  // Nothing but the targets is left.
  CHECK(remove_stale_temps(a) + remove_stale_temps(b) + remove_stale_temps(c) == 0);
  std::remove((b + "/x").c_str());
  ::rmdir(b.c_str());
  write_files({{a, bytes("new weights")}, {b, bytes("new state")}});
  CHECK(slurp(a) == "new weights");
  CHECK(slurp(b) == "new state");
  CHECK(remove_stale_temps(a) + remove_stale_temps(b) == 0);
  std::remove(a.c_str());
  std::remove(b.c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("files: remove_stale_temps removes the target's own temporary names and nothing else") {
  const std::string dir = temp_dir(), out = dir + "/m.safetensors";
  const std::vector<std::string> stale = {out + ".tmp-a1B2c3", out + ".tmp-ZZZZZZ"};
  const std::vector<std::string> kept = {out,
                                         out + ".trainer",
                                         out + ".tmp-abc",
                                         out + ".tmp-abcdefg",
                                         out + ".tmp-ab.def",
                                         dir + "/other.tmp-a1B2c3",
                                         out + ".trainer.tmp-a1B2c3"};
  for (const auto& p : stale) put(p, "x");
  for (const auto& p : kept) put(p, "x");
  CHECK(remove_stale_temps(out) == 2);
  for (const auto& p : stale) CHECK_FALSE(exists(p));
  for (const auto& p : kept) {
    CHECK(exists(p));
    std::remove(p.c_str());
  }
  ::rmdir(dir.c_str());
}
#endif
