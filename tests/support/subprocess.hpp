#pragma once
// A child process with pipes for stdin, stdout and stderr, for tests that run programs (the zkwire CLI, Kazoo
// scripts) and check their output and exit status. Not thread-safe; the destructor kills (SIGKILL) and reaps a
// child that is still running.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace zkwire::test {

struct outcome {
  int status = -1;  // the exit status, or 128+N for signal N
  std::string out;
  std::string err;
};

class process {
 public:
  // Starts argv[0] (an absolute path) with the test's environment; throws std::system_error on failure.
  explicit process(const std::vector<std::string>& argv);
  ~process();
  process(const process&) = delete;
  process& operator=(const process&) = delete;
  process(process&&) = delete;
  process& operator=(process&&) = delete;

  // Writes `input` to the child's stdin and closes it, collects stdout and stderr until both close, and reaps
  // the child; kills it (and records a test failure) after `timeout`.
  outcome finish(const std::string& input = {}, std::chrono::milliseconds timeout = std::chrono::seconds(60));

  // True while the child has not exited (does not reap it).
  [[nodiscard]] bool running() const;
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

 private:
  static void close_fd(int& fd);

  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  int stderr_ = -1;
};

// Runs a Python program with Kazoo (Debian's python3-kazoo, under /usr/bin/python3) connected to
// `connect_string` as `zk`; `body` is the indented (4 spaces) inside of a try block that stops the client.
outcome run_kazoo(const std::string& connect_string, const std::string& body);

}  // namespace zkwire::test
