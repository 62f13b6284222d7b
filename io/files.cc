#include "io/files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace atenaot {

StatusOr<std::string> ReadFileBytes(const std::string& path, const std::string& what) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0)
    return IoError("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return IoError("cannot read " + what + " '" + path + "': it is a directory");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return IoError("cannot open " + what + " '" + path + "': " + std::strerror(errno));
  std::string out;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  bool failed = std::ferror(f) != 0;
  int err = errno;
  std::fclose(f);
  if (failed) return IoError("cannot read " + what + " '" + path + "': " + std::strerror(err));
  return out;
}

}  // namespace atenaot
