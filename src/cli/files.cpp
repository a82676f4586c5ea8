// Output files of the command line (src/cli/files.hpp): a temporary file next to the target, written
// in full and flushed to disk before it is renamed over the target, with POSIX calls so that every
// failure (a full disk, `ulimit -f`, a folder in the way) is seen and reported.
#include "cli/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace attnseq::cli {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw std::runtime_error("cannot write '" + path + "': " + why);
}

// Creates an empty temporary file in path's folder (where rename() can move it over path).
int make_temp(const std::string& path, std::string& tmp) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(path, "it is a directory");
  std::string name = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(&name[0]);
  if (fd < 0) fail(path, std::strerror(errno));
  tmp = name;
  // mkstemp makes the file 0600; the target gets the usual 0666 minus the umask.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  return fd;
}

}  // namespace

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
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) give_up(errno);
    done += std::size_t(n);
  }
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

}  // namespace attnseq::cli
