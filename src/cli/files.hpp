// Output files of the command line. check_writable() tells up front whether a path can be written,
// so a long training run does not fail at its end; OutputFile writes through a temporary file in the
// target's folder that only commit() renames over the target, so a failed or interrupted write never
// leaves a truncated file under the real name; write_files() replaces several files all or none.
// Every failure throws naming the path and the reason.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attnseq::cli {

// Throws std::runtime_error when `path` cannot be written the way OutputFile writes it (it is a folder,
// its folder is missing or read-only, ...). Leaves nothing behind.
void check_writable(const std::string& path);

// The last component of a path: what follows its last '/' (the whole path when it has none).
std::string file_name(const std::string& path);

// Removes the temporary files (`path`.tmp-XXXXXX, the names OutputFile and write_files use) that a
// killed process left next to `path`; nothing else. Returns how many it removed.
int remove_stale_temps(const std::string& path);

class OutputFile {
 public:
  // Writes all of `bytes` to a new temporary file next to `path` (flushed to disk); throws on failure.
  OutputFile(const std::string& path, const std::vector<std::uint8_t>& bytes);
  ~OutputFile();  // removes the temporary file unless commit() renamed it
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  // Renames the temporary file over `path`; throws on failure (the temporary file is then removed).
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, tmp_;
};

using FileBytes = std::pair<std::string, std::vector<std::uint8_t>>;

// Replaces every file or none: all are written to temporary files first, then renamed over their
// targets in order. When a rename fails, the targets already replaced get their previous contents back
// (kept as hard links, or copies where links are not possible) and the error names the file. A kill
// between two renames can still leave a mix, so the last file should be the commit point (a trainer
// state that holds its own weights: docs/training.md).
void write_files(const std::vector<FileBytes>& files);

// The same in two halves, so a test can get between them: the constructor writes the temporary files,
// commit() renames them as write_files does.
class FileSet {
 public:
  explicit FileSet(const std::vector<FileBytes>& files);
  void commit();

 private:
  std::vector<std::unique_ptr<OutputFile>> files_;
};

}  // namespace attnseq::cli
