#pragma once
// Progress on stderr for a step that takes long (reading a large input,
// planning a large graph), only when stderr is a terminal: after 2 s a line
// says what is running, every 10 s after that how long it has run, and one
// line when it ends. When stderr is a file or a pipe (scripts, tests, tools
// that read the first line for an error) nothing is printed.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include <unistd.h>

namespace strata::tools {

class Progress {
 public:
  explicit Progress(std::string what) : what_(std::move(what)) {
    if (::isatty(2) != 1) return;
    watcher_ = std::thread([this] { watch(); });
  }
  ~Progress() {
    if (!watcher_.joinable()) return;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_one();
    watcher_.join();
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

 private:
  void watch() {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    bool printed = false;
    auto next = start + std::chrono::seconds(2);
    while (!wake_.wait_until(lock, next, [this] { return done_; })) {
      const double s = std::chrono::duration<double>(clock::now() - start).count();
      std::fprintf(stderr, "strata: ... %s (%.0f s so far)\n", what_.c_str(), s);
      printed = true;
      next += std::chrono::seconds(printed ? 10 : 2);
    }
    if (printed)
      std::fprintf(stderr, "strata: ... %s done in %.1f s\n", what_.c_str(),
                   std::chrono::duration<double>(clock::now() - start).count());
  }

  std::string what_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread watcher_;
};

}  // namespace strata::tools
