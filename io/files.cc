#include "io/files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace atenaot {
namespace {

std::atomic<int64_t> max_file_bytes{kDefaultMaxFileBytes};

const char* KindOf(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

int64_t MaxFileBytes() { return max_file_bytes.load(); }
void SetMaxFileBytes(int64_t bytes) { max_file_bytes.store(bytes); }

StatusOr<std::string> ReadFileBytes(const std::string& path, const std::string& what) {
  // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
  Fd fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return IoError("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return IoError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    return IoError("cannot read " + what + " '" + path + "': it is " + KindOf(st.st_mode) +
                   ", not a regular file or a pipe");
  const int64_t limit = MaxFileBytes();
  auto too_big = [&] {
    return IoError(what + " '" + path + "' is larger than " + std::to_string(limit) +
                   " bytes (the limit; raise it with --max-file-size)");
  };
  if (S_ISREG(st.st_mode) && st.st_size > limit) return too_big();
  // A pipe is read blocking from here on: a writer that is there writes on.
  if (S_ISFIFO(st.st_mode)) fcntl(fd.get(), F_SETFL, fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  std::string out;
  if (S_ISREG(st.st_mode)) out.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
    if (n == 0) break;
    if (static_cast<int64_t>(out.size()) + n > limit) return too_big();
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Status WriteFile(const std::string& path, const std::string& bytes, const std::string& what) {
  const std::string named = (what.empty() ? "" : what + " ") + "'" + path + "'";
  Fd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return IoError("cannot write " + named + ": " + std::strerror(errno));
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("failed writing " + named + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status MakeDirs(const std::string& dir) {
  std::string cur;
  size_t i = 0;
  while (i <= dir.size()) {
    size_t slash = dir.find('/', i);
    if (slash == std::string::npos) slash = dir.size();
    cur = dir.substr(0, slash);
    i = slash + 1;
    if (cur.empty() || cur == "." || cur == "..") continue;
    if (mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
      return IoError("cannot create directory '" + cur + "': " + std::strerror(errno));
  }
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return IoError("'" + dir + "' is not a directory");
  return Status::Ok();
}

StatusOr<std::unique_ptr<StagedDir>> StagedDir::Begin(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  if (d.empty()) return InvalidArgument("the output directory is empty");
  const size_t slash = d.rfind('/');
  const std::string parent = slash == std::string::npos ? "." : slash == 0 ? "/" : d.substr(0, slash);
  const std::string base = slash == std::string::npos ? d : d.substr(slash + 1);
  AOT_RETURN_IF_ERROR(MakeDirs(parent));
  std::string tmpl = parent + "/." + base + ".XXXXXX";
  if (!mkdtemp(tmpl.data())) return IoError("cannot create a directory beside '" + d + "': " + std::strerror(errno));
  return std::unique_ptr<StagedDir>(new StagedDir(d, tmpl));
}

StagedDir::~StagedDir() {
  if (DIR* dp = opendir(tmp_.c_str())) {  // only files: the builders make no subdirectories
    while (dirent* e = readdir(dp))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
        unlink((tmp_ + "/" + e->d_name).c_str());
    closedir(dp);
  }
  rmdir(tmp_.c_str());
}

Status StagedDir::Commit(const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    struct stat st {};
    if (stat((tmp_ + "/" + f).c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
      return Internal("the build did not produce " + f + " (nothing was written to '" + dir_ + "')");
  }
  AOT_RETURN_IF_ERROR(MakeDirs(dir_));
  for (const std::string& f : files)
    if (rename((tmp_ + "/" + f).c_str(), (dir_ + "/" + f).c_str()) != 0)
      return IoError("cannot move " + f + " into '" + dir_ + "': " + std::strerror(errno));
  return Status::Ok();
}

}  // namespace atenaot
