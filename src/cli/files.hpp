// Output files of the command line. check_writable() tells up front whether a path can be written,
// so a long training run does not fail at its end; OutputFile writes through a temporary file in the
// target's folder that only commit() renames over the target, so a failed or interrupted write never
// leaves a truncated file under the real name. Every failure throws naming the path and the reason.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attnseq::cli {

// Throws std::runtime_error when `path` cannot be written the way OutputFile writes it (it is a folder,
// its folder is missing or read-only, ...). Leaves nothing behind.
void check_writable(const std::string& path);

class OutputFile {
 public:
  // Writes all of `bytes` to a new temporary file next to `path` (flushed to disk); throws on failure.
  OutputFile(const std::string& path, const std::vector<std::uint8_t>& bytes);
  ~OutputFile();  // removes the temporary file unless commit() renamed it
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Renames the temporary file over `path`; throws on failure (the temporary file is then removed).
  void commit();

 private:
  std::string path_, tmp_;
};

}  // namespace attnseq::cli
