// Stages of a long command (compile, plan) shown on a terminal: one stderr
// line rewritten in place, "atenaot: [  3.2 s] passes: reinplace", cleared
// at the end. Off with --quiet, with --time-passes (which prints its own
// lines) and whenever stderr is not a terminal, so logs and pipes never see it.
#ifndef ATENAOT_TOOLS_PROGRESS_H_
#define ATENAOT_TOOLS_PROGRESS_H_

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ostream>
#include <streambuf>
#include <string>

namespace atenaot {

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)), sink_(this), stream_(&sink_) {}
  ~Progress() { Clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }

  // Shows `what` with the time since the command started.
  void Stage(const std::string& what) {
    if (!enabled_) return;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "\r\033[Katenaot: [%6.1f s] %s", s, what.c_str());
    std::fflush(stderr);
    shown_ = true;
  }

  // Removes the line (before results or errors are printed).
  void Clear() {
    if (!shown_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    shown_ = false;
  }

  // A stream for PipelineOptions::timing: each "time: NAME ..." line the
  // pipeline writes as a step finishes becomes the stage "passes: NAME done".
  std::ostream* timing() { return enabled_ ? &stream_ : nullptr; }

 private:
  class Sink : public std::streambuf {
   public:
    explicit Sink(Progress* p) : p_(p) {}

   protected:
    int overflow(int c) override {
      if (c == '\n') {
        if (line_.rfind("time: ", 0) == 0) {
          std::string step = line_.substr(6, line_.find(' ', 6) - 6);
          if (step != "verify") p_->Stage("passes: " + step + " done");
        }
        line_.clear();
      } else if (c != traits_type::eof()) {
        line_ += static_cast<char>(c);
      }
      return c;
    }

   private:
    Progress* p_;
    std::string line_;
  };

  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  Sink sink_;
  std::ostream stream_;
};

}  // namespace atenaot

#endif  // ATENAOT_TOOLS_PROGRESS_H_
