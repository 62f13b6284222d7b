// The command-line options of atenaot's commands (`opt` has its own parser,
// tools/opt_command.h): one struct per command, holding exactly the flags its
// --help documents, and one parser per command, driven by a table of the flags
// that command takes. A flag of another command is refused with one line
// ("'exec' does not take --algo (see 'atenaot exec --help')"), an unknown one
// as "unknown option '--frob' for 'dump'"; the caller prints either as
// "atenaot: error: ..." and exits 2.
//
// Every command also takes --help (-h) and --max-file-size BYTES (which sets
// io/files.h's limit while parsing).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/status.h"

namespace atenaot {

// What follows the command's name on the command line.
using CommandArgs = std::vector<std::string>;

// The flags of the commands that load a MODEL (dump, run, plan, compile).
struct ModelOptions {
  std::string path;                 // MODEL
  std::vector<std::string> inputs;  // --inputs F.npy... (the word none: None for an Optional[Tensor])
  bool time_passes = false;         // --time-passes
};

// The code a plan or a compile is for (plan plans the kernel scratch that
// compile with the same flags would use).
struct TargetOptions {
  std::string target = "cpu";  // --target cpu|cuda
  bool embedded = false;       // --embedded: float accumulation, no threads, sources only
  int winograd = 2;            // --winograd 2|4|off (0): CodegenOptions::winograd
};

struct DumpOptions {
  bool help = false;
  ModelOptions model;
  std::string stage = "import";  // --stage
  std::string output_file;       // -o FILE ("": stdout)
};

struct RunOptions {
  bool help = false;
  ModelOptions model;
  std::string stage = "import";  // --stage
  std::string out_dir;           // --out-dir
  bool print = false;            // --print
  std::string plan_algo;         // --plan ALGO ("": no planned run)
  bool schedule = true;          // --schedule memory|none (with --plan)
};

struct PlanOptions {
  bool help = false;
  ModelOptions model;
  TargetOptions target;
  std::string algo = "best";  // --algo
  int64_t align = 64;         // --align
  bool schedule = true;       // --schedule memory|none
  std::string json_file;      // --json
  std::string svg_file;       // --svg
  bool quiet = false;         // --quiet: no stage display
};

struct CompileOptions {
  bool help = false;
  ModelOptions model;
  TargetOptions target;
  std::string output_dir;              // -o DIR
  std::string name = "model";          // --name
  std::string weights_mode = "embed";  // --weights embed|file|c
  std::string algo = "best";           // --algo
  bool schedule = true;                // --schedule memory|none
  std::string cpu;                     // --cpu ("": DefaultCpu()); cortex-m4 also sets embedded
  bool march_native = false;           // --march-native
  std::string cuda_arch = "sm_90";     // --cuda-arch (--target cuda)
  bool emit_only = false;              // --emit-only: sources only
  bool quiet = false;                  // --quiet: no stage display
};

struct ExecOptions {
  bool help = false;
  std::string dir;                  // DIR (made by atenaot compile)
  std::vector<std::string> inputs;  // --inputs
  std::string out_dir;              // --out-dir
  std::string name = "model";       // --name
};

struct ShowOptions {
  bool help = false;
  std::vector<std::string> files;  // F.npy...
};

struct CompareOptions {
  bool help = false;
  std::vector<std::string> operands;  // EXPECTED ACTUAL
  double rtol = -1;                   // --rtol (negative: the dtype's default)
  double atol = -1;                   // --atol (negative: the dtype's default)
};

// `atenaot help [COMMAND]`.
struct HelpOptions {
  bool help = false;
  std::string topic;  // "" for the command overview
};

// Each validates every value (--align, --weights, --cpu, --rtol, ...) and
// refuses flags the command does not take.
Status ParseDumpArgs(const CommandArgs& args, DumpOptions* o);
Status ParseRunArgs(const CommandArgs& args, RunOptions* o);
Status ParsePlanArgs(const CommandArgs& args, PlanOptions* o);
Status ParseCompileArgs(const CommandArgs& args, CompileOptions* o);
Status ParseExecArgs(const CommandArgs& args, ExecOptions* o);
Status ParseShowArgs(const CommandArgs& args, ShowOptions* o);
Status ParseCompareArgs(const CommandArgs& args, CompareOptions* o);
Status ParseHelpArgs(const CommandArgs& args, HelpOptions* o);

// The --help texts: the overview (atenaot --help) and each command's.
extern const char kMainHelp[];
extern const char kDumpHelp[];
extern const char kRunHelp[];
extern const char kPlanHelp[];
extern const char kCompileHelp[];
extern const char kExecHelp[];
extern const char kShowHelp[];
extern const char kCompareHelp[];

}  // namespace atenaot
