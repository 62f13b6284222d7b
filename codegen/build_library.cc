#include "codegen/build_library.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "codegen/embedded_sources.h"

namespace atenaot {
namespace {

Status Write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return IoError("cannot write '" + path + "'");
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!f) return IoError("failed writing '" + path + "'");
  return Status::Ok();
}

std::string Quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

// Runs a shell command; on failure returns its output (first lines) in the error.
Status Sh(const std::string& cmd, const std::string& what) {
  std::string full = cmd + " 2>&1";
  FILE* p = popen(full.c_str(), "r");
  if (!p) return Internal("cannot run the C compiler: " + std::string(std::strerror(errno)));
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int rc = pclose(p);
  if (rc != 0) {
    if (out.size() > 2000) out = out.substr(0, 2000) + "...";
    for (char& c : out)
      if (c == '\n') c = ' ';
    return Internal(what + " failed (" + cmd + "): " + out);
  }
  return Status::Ok();
}

}  // namespace

Status WriteSources(const GeneratedC& gen, const std::string& dir, const std::string& name) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return IoError("cannot create directory '" + dir + "': " + std::strerror(errno));
  const std::string base = dir + "/" + name;
  AOT_RETURN_IF_ERROR(Write(base + ".h", gen.header));
  AOT_RETURN_IF_ERROR(Write(base + ".c", gen.source));
  AOT_RETURN_IF_ERROR(Write(dir + "/atenaot.h", kAtenaotHeader));
  AOT_RETURN_IF_ERROR(Write(dir + "/atenaot_model.h", kAtenaotModelHeader));
  const std::string bytes(gen.weights.begin(), gen.weights.end());
  if (!gen.weights_asm.empty()) {
    AOT_RETURN_IF_ERROR(Write(base + "_weights.S", gen.weights_asm));
    AOT_RETURN_IF_ERROR(Write(base + "_weights.bin", bytes));
  } else if (!gen.weights.empty()) {
    AOT_RETURN_IF_ERROR(Write(base + ".weights", bytes));
  }
  return Status::Ok();
}

StatusOr<std::string> WriteAndBuild(const GeneratedC& gen, const std::string& dir, const std::string& name,
                                    const BuildOptions& opts) {
  AOT_RETURN_IF_ERROR(WriteSources(gen, dir, name));
  const std::string base = dir + "/" + name;
  AOT_RETURN_IF_ERROR(Write(dir + "/atenaot_runtime.c", kRuntimeSource));
  std::string cc = opts.cc;
  if (const char* env = std::getenv("CC"); env && *env && cc == "cc") cc = env;
  std::string flags = "-std=c99 -O3 -fno-math-errno -fno-trapping-math -fPIC -I" + Quote(dir) + (opts.march_native ? " -march=native" : "") + " " + opts.extra_cflags;
  // The weights object (data only): assembled in DIR, where its .incbin finds NAME_weights.bin.
  std::string wobj;
  if (!gen.weights_asm.empty()) {
    wobj = " " + Quote(base + "_weights.o");
    AOT_RETURN_IF_ERROR(Sh("cd " + Quote(dir) + " && " + cc + " -c -o " + Quote(name + "_weights.o") + " " +
                               Quote(name + "_weights.S"),
                           "assembling " + name + "_weights.S"));
  }
  AOT_RETURN_IF_ERROR(Sh(cc + " " + flags + " -shared -DAOT_SHARED_ENTRY -o " + Quote(dir + "/lib" + name + ".so") + " " +
                             Quote(base + ".c") + wobj + " -lm",
                         "building lib" + name + ".so"));
  AOT_RETURN_IF_ERROR(Sh(cc + " " + flags + " -c -o " + Quote(base + ".o") + " " + Quote(base + ".c") + " && rm -f " +
                             Quote(dir + "/lib" + name + ".a") + " && ar rcs " + Quote(dir + "/lib" + name + ".a") + " " +
                             Quote(base + ".o") + wobj + " && rm -f " + Quote(base + ".o") + wobj,
                         "building lib" + name + ".a"));
  AOT_RETURN_IF_ERROR(Sh(cc + " -std=c99 -O2 -fPIC -shared -I" + Quote(dir) + " -o " + Quote(dir + "/libatenaot_runtime.so") +
                             " " + Quote(dir + "/atenaot_runtime.c") + " -ldl",
                         "building libatenaot_runtime.so"));
  return dir + "/lib" + name + ".so";
}

Status WriteTextFile(const std::string& path, const std::string& text) { return Write(path, text); }
std::string ShellQuote(const std::string& s) { return Quote(s); }
Status RunShell(const std::string& cmd, const std::string& what) { return Sh(cmd, what); }

}  // namespace atenaot
