// Helpers shared by the fuzz targets.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace atenaot_fuzz {

// The readers under test take a path, not bytes: the input goes into an
// in-memory file (memfd), read back through /proc/self/fd/N.
class MemFile {
 public:
  explicit MemFile(const char* name) : fd_(memfd_create(name, 0)) {
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
  }
  ~MemFile() { close(fd_); }
  // Replaces the contents; returns the path to read them from.
  std::string Set(const void* data, size_t size) {
    if (ftruncate(fd_, 0) != 0 || lseek(fd_, 0, SEEK_SET) != 0) std::abort();
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      ssize_t n = write(fd_, p, size);
      if (n <= 0) std::abort();
      p += n;
      size -= static_cast<size_t>(n);
    }
    return path();
  }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

// A property the target checks failed: report and crash, so libFuzzer saves the input.
[[noreturn]] inline void Fail(const std::string& what) {
  std::fprintf(stderr, "FUZZ PROPERTY FAILED: %s\n", what.c_str());
  std::abort();
}

}  // namespace atenaot_fuzz
