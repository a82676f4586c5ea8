// Output files of the command line (src/cli/files.hpp): a temporary file next to the target, written
// in full and flushed to disk before it is renamed over the target, with POSIX calls so that every
// failure (a full disk, `ulimit -f`, a folder in the way) is seen and reported.
#include "cli/files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace attnseq::cli {
namespace {

constexpr char kTempInfix[] = ".tmp-";  // + mkstemp's six letters and digits

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw std::runtime_error("cannot write '" + path + "': " + why);
}

// Creates an empty temporary file in path's folder (where rename() can move it over path).
int make_temp(const std::string& path, std::string& tmp) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(path, "it is a directory");
  std::string name = path + kTempInfix + "XXXXXX";
  const int fd = ::mkstemp(&name[0]);
  if (fd < 0) fail(path, std::strerror(errno));
  tmp = name;
  // mkstemp makes the file 0600; the target gets the usual 0666 minus the umask.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  return fd;
}

// Writes all of bytes[0, n) to fd; returns 0 or the errno of the failure.
int write_all(int fd, const std::uint8_t* bytes, std::size_t n) {
  for (std::size_t done = 0; done < n;) {
    const ssize_t k = ::write(fd, bytes + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno;
    done += std::size_t(k);
  }
  return 0;
}

// A second name for the file at `path` (a temporary name next to it), so that it can be put back:
// a hard link, or where the file system has none a copy. Throws naming path.
std::string keep_copy(const std::string& path) {
  std::string tmp;
  ::close(make_temp(path, tmp));
  ::unlink(tmp.c_str());
  if (::link(path.c_str(), tmp.c_str()) == 0) return tmp;
  const int in = ::open(path.c_str(), O_RDONLY);
  const int out = in < 0 ? -1 : ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  int err = in < 0 || out < 0 ? errno : 0;
  std::uint8_t buf[1 << 16];
  while (!err) {
    const ssize_t k = ::read(in, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      err = k < 0 ? errno : 0;
      break;
    }
    err = write_all(out, buf, std::size_t(k));
  }
  if (in >= 0) ::close(in);
  if (out >= 0 && ::close(out) != 0 && !err) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    fail(path, std::string("cannot keep the previous file while replacing it: ") + std::strerror(err));
  }
  return tmp;
}

}  // namespace

std::string file_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int remove_stale_temps(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + kTempInfix;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  int removed = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0) continue;
    bool ours = true;
    for (std::size_t i = prefix.size(); i < name.size(); ++i) ours = ours && std::isalnum((unsigned char)name[i]);
    const std::string full = slash == std::string::npos ? name : dir + name;
    struct stat st;
    if (ours && ::lstat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::unlink(full.c_str()) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

void check_writable(const std::string& path) {
  std::string tmp;
  const int fd = make_temp(path, tmp);
  ::close(fd);
  ::unlink(tmp.c_str());
}

OutputFile::OutputFile(const std::string& path, const std::vector<std::uint8_t>& bytes) : path_(path) {
  const int fd = make_temp(path, tmp_);
  auto give_up = [&](int err) {
    ::close(fd);
    ::unlink(tmp_.c_str());
    tmp_.clear();
    fail(path_, std::strerror(err));
  };
  if (const int err = write_all(fd, bytes.data(), bytes.size())) give_up(err);
  if (::fsync(fd) != 0) give_up(errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    tmp_.clear();
    fail(path_, std::strerror(err));
  }
}

OutputFile::~OutputFile() {
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void OutputFile::commit() {
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    tmp_.clear();
    fail(path_, std::strerror(err));
  }
  tmp_.clear();
}

FileSet::FileSet(const std::vector<FileBytes>& files) {
  for (const auto& f : files) files_.push_back(std::make_unique<OutputFile>(f.first, f.second));
}

void FileSet::commit() {
  struct Replaced {
    std::string path, kept;  // kept: the previous file's second name ("" when there was none)
  };
  std::vector<Replaced> done;
  auto undo = [&]() {
    for (auto it = done.rbegin(); it != done.rend(); ++it)
      if (it->kept.empty())
        ::unlink(it->path.c_str());
      else
        ::rename(it->kept.c_str(), it->path.c_str());
  };
  for (auto& f : files_) {
    Replaced r{f->path(), ""};
    struct stat st;
    try {
      if (::lstat(r.path.c_str(), &st) == 0) r.kept = keep_copy(r.path);
      f->commit();
    } catch (...) {
      if (!r.kept.empty()) ::unlink(r.kept.c_str());
      undo();
      throw;
    }
    done.push_back(r);
  }
  for (const auto& r : done)
    if (!r.kept.empty()) ::unlink(r.kept.c_str());
}

void write_files(const std::vector<FileBytes>& files) { FileSet(files).commit(); }

}  // namespace attnseq::cli
