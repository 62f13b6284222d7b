// Reading whole files with every failure as a Status: missing files,
// directories, devices and read errors never throw, abort or hang. Regular
// files and pipes (`cmd | atenaot dump /dev/stdin`) are read; character and
// block devices (/dev/zero), sockets and directories are refused, and nothing
// longer than MaxFileBytes() is read: a FIFO with no writer reads as empty.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/status.h"

namespace atenaot {

// `what` names the file's role in messages ("model file", ".npy file").
StatusOr<std::string> ReadFileBytes(const std::string& path, const std::string& what);

// The most bytes ReadFileBytes reads from one file (default 16 GiB; the CLI's
// --max-file-size sets it). Larger files are an error naming the limit.
constexpr int64_t kDefaultMaxFileBytes = int64_t{16} << 30;
int64_t MaxFileBytes();
void SetMaxFileBytes(int64_t bytes);

// Writes `bytes` to path (created or truncated); `what` names the file's
// role in messages ("cannot write .npy file 'x': ...").
Status WriteFile(const std::string& path, const std::string& bytes, const std::string& what = "");

// Creates dir and its missing parents (like mkdir -p).
Status MakeDirs(const std::string& dir);

// A directory's new contents, built beside it and moved in only when complete,
// so DIR holds the old result or the new one, never half of one:
//   AOT_ASSIGN_OR_RETURN(auto out, StagedDir::Begin(dir));
//   ... write and build into out->path() ...
//   AOT_RETURN_IF_ERROR(out->Commit({"net.c", "libnet.so"}));
// The staging directory (DIR's parent/.DIRNAME.XXXXXX, same file system, so
// each move is one rename) and whatever is left in it are removed when the
// StagedDir goes away. Files of DIR that are not replaced stay.
class StagedDir {
 public:
  static StatusOr<std::unique_ptr<StagedDir>> Begin(const std::string& dir);
  ~StagedDir();
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  const std::string& path() const { return tmp_; }
  // Checks that every file is a non-empty regular file in path(), then moves
  // them into the directory (created if missing).
  Status Commit(const std::vector<std::string>& files);

 private:
  StagedDir(std::string dir, std::string tmp) : dir_(std::move(dir)), tmp_(std::move(tmp)) {}
  std::string dir_, tmp_;
};

}  // namespace atenaot
