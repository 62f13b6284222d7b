// Replays every input under fuzz/regressions/TARGET/ through that fuzz
// target's check (the same function libFuzzer calls), each in a child process
// so a crash is reported as a failure with its signal. An input fails when the
// child dies (crash, abort, a failed property) or exits non-zero. Inputs
// listed in fuzz/regressions/OPEN (bugs not fixed yet) are skipped unless
// ATENAOT_RUN_KNOWN_BUGS=1. Under --config=asan / --config=ubsan the
// sanitizers also turn memory errors and UB into failures.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace atenaot_fuzz {
void IrParserInit();
int IrParserOneInput(const uint8_t* data, size_t size);
void NpyInit();
int NpyOneInput(const uint8_t* data, size_t size);
void WeightsInit();
int WeightsOneInput(const uint8_t* data, size_t size);
void TsIrInit();
int TsIrOneInput(const uint8_t* data, size_t size);
void PtArchiveInit();
int PtArchiveOneInput(const uint8_t* data, size_t size);
}  // namespace atenaot_fuzz

namespace {

namespace fs = std::filesystem;

struct Target {
  const char* name;
  void (*init)();
  int (*one)(const uint8_t*, size_t);
};

const Target kTargets[] = {
    {"ir_parser_fuzzer", atenaot_fuzz::IrParserInit, atenaot_fuzz::IrParserOneInput},
    {"npy_fuzzer", atenaot_fuzz::NpyInit, atenaot_fuzz::NpyOneInput},
    {"weights_fuzzer", atenaot_fuzz::WeightsInit, atenaot_fuzz::WeightsOneInput},
    {"ts_ir_fuzzer", atenaot_fuzz::TsIrInit, atenaot_fuzz::TsIrOneInput},
    {"pt_archive_fuzzer", atenaot_fuzz::PtArchiveInit, atenaot_fuzz::PtArchiveOneInput},
};

const char kDir[] = "fuzz/regressions";

std::map<std::string, std::string> OpenBugs() {
  std::map<std::string, std::string> open;
  std::ifstream f(std::string(kDir) + "/OPEN");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string path, why;
    ls >> path;
    std::getline(ls, why);
    why.erase(0, why.find_first_not_of(" \t"));
    open[path] = why;
  }
  return open;
}

struct Case {
  const Target* target;
  std::string file;  // TARGET/FILE under fuzz/regressions
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.file; }

std::vector<Case> Cases() {
  std::vector<Case> cs;
  for (const Target& t : kTargets) {
    fs::path dir = fs::path(kDir) / t.name;
    if (!fs::is_directory(dir)) continue;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) cs.push_back({&t, std::string(t.name) + "/" + n});
  }
  return cs;
}

// Runs the target on the file in a child; "" when it returned normally.
std::string Replay(const Case& c) {
  std::ifstream f(std::string(kDir) + "/" + c.file, std::ios::binary);
  if (!f) return "cannot read " + c.file;
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    c.target->init();
    c.target->one(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    std::_Exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return "waitpid failed";
  if (WIFSIGNALED(status)) return "the target died with signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    return "the target exited with status " + std::to_string(WEXITSTATUS(status));
  return "";
}

class FuzzRegression : public ::testing::TestWithParam<Case> {};

TEST_P(FuzzRegression, DoesNotCrash) {
  const Case& c = GetParam();
  static const std::map<std::string, std::string> open = OpenBugs();
  const char* run = std::getenv("ATENAOT_RUN_KNOWN_BUGS");
  auto it = open.find(c.file);
  if (it != open.end() && !(run && std::string(run) == "1"))
    GTEST_SKIP() << "open bug: " << it->second << " (set ATENAOT_RUN_KNOWN_BUGS=1 to run)";
  EXPECT_EQ(Replay(c), "") << "fuzz/regressions/" << c.file;
}

INSTANTIATE_TEST_SUITE_P(All, FuzzRegression, ::testing::ValuesIn(Cases()), [](const auto& info) {
  std::string s = info.param.file;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
});

TEST(FuzzRegressions, Found) { EXPECT_FALSE(Cases().empty()) << "no inputs under fuzz/regressions"; }

}  // namespace
