#include "io/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

extern char** environ;

namespace atenaot {
namespace {

constexpr size_t kShownOutput = 2000;

std::string CommandText(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string OneLine(std::string s) {
  if (s.size() > kShownOutput) s = s.substr(0, kShownOutput) + "...";
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

std::vector<std::string> SplitWords(const std::string& s) {
  std::vector<std::string> words;
  std::string w;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!w.empty()) words.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) words.push_back(w);
  return words;
}

std::string PathArg(const std::string& path) { return !path.empty() && path[0] == '-' ? "./" + path : path; }

Status RunProgram(const std::vector<std::string>& argv, const std::string& what, const std::string& cwd) {
  if (argv.empty() || argv[0].empty()) return InvalidArgument(what + ": no program to run");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Internal(what + ": cannot create a pipe: " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return Internal(what + ": cannot run '" + argv[0] + "': " + std::strerror(rc));
  }
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (out.size() < 64 * kShownOutput) out.append(buf, static_cast<size_t>(n));  // the rest is drained, not kept
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return Internal(what + ": waiting for '" + argv[0] + "' failed: " + std::strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::Ok();
  const std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                            : std::string("signal ") + strsignal(WTERMSIG(status));
  // posix_spawnp reports a missing program as exit status 127 from the child.
  const std::string out_line = OneLine(out);
  return Internal(what + " failed (" + how + ": " + CommandText(argv) + (cwd.empty() ? "" : " in " + cwd) + ")" +
                  (out_line.empty() ? "" : ": " + out_line));
}

}  // namespace atenaot
