#pragma once
// The one way tests run other programs (ZooKeeper servers, the zkwire CLI, Kazoo scripts, zkCli): a child process
// started with fork/exec that this object owns. It is signalled and reaped only through this object, so its pid is
// never reused behind our back. Its stdin comes from a file (or /dev/null) and its stdout and stderr go to files,
// so a long-running child needs no reader and a test can watch its output grow. Not thread-safe.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace zkwire::test {

// How a finished child ended and what it wrote.
struct outcome {
  int status = -1;  // the exit status, or 128+N for signal N, or -1 if it never finished
  std::string out;
  std::string err;
};

// Where the child's standard streams go. Output files are opened for appending (and created if missing).
struct child_stdio {
  std::filesystem::path out;    // stdout (required)
  std::filesystem::path err;    // stderr; empty: the same file as stdout
  std::filesystem::path input;  // stdin; empty: /dev/null
};

class child_process {
 public:
  child_process() = default;
  // Kills (SIGCONT, then SIGKILL) and reaps the child if it is still running.
  ~child_process();
  child_process(child_process&& other) noexcept;
  child_process& operator=(child_process&& other) noexcept;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  // Starts argv[0] (an absolute path) with the given arguments, stdin from /dev/null and stdout+stderr appended
  // to `log_file`. The child gets default signal dispositions, an empty signal mask, no inherited descriptors
  // beyond 0-2, and PR_SET_PDEATHSIG=SIGKILL: it dies when the *thread* that called spawn exits, so call this
  // from a thread that outlives the child (the main test thread). Throws std::system_error if fork or exec
  // fails.
  static child_process spawn(const std::vector<std::string>& argv, const std::filesystem::path& log_file);
  // The same with the streams of `stdio`.
  static child_process spawn(const std::vector<std::string>& argv, const child_stdio& stdio);

  // The child's pid while it has not been reaped, else -1.
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  // True until the child has exited; reaps it (without blocking) if it has.
  bool running();
  [[nodiscard]] bool stopped() const noexcept { return stopped_; }
  // Raw wait status of the reaped child (see waitpid), if it has been reaped.
  [[nodiscard]] std::optional<int> wait_status() const noexcept { return status_; }
  // The exit status of the reaped child, or 128+N if signal N killed it; nullopt until it has been reaped.
  [[nodiscard]] std::optional<int> exit_status() const noexcept;
  // What the child has written to its stdout / stderr file so far.
  [[nodiscard]] std::string out() const;
  [[nodiscard]] std::string err() const;

  // SIGSTOP / SIGCONT; each returns once the child has actually stopped / continued. No-ops when the child is not
  // running or already in that state.
  void pause();
  void resume();
  // SIGTERM (after SIGCONT if paused), waits up to `grace`, then SIGKILL; returns once the child is reaped.
  void terminate(std::chrono::milliseconds grace);
  // SIGKILL (SIGCONT first if paused) and reap.
  void kill();
  // Sends `signal` as it is (no SIGCONT, no waiting); a no-op once the child has been reaped.
  void signal(int signal) const { send(signal); }
  // Waits up to `timeout` for the child to exit; true if it has been reaped.
  bool wait_for(std::chrono::milliseconds timeout);
  // Waits up to `timeout` for the child to exit, else kills it and records a test failure; returns its status and
  // its output files' contents.
  outcome finish(std::chrono::milliseconds timeout = std::chrono::seconds(60));

 private:
  void send(int signal) const;
  void reap_blocking();
  void wait_for_state(int waitpid_options);  // blocks for one stop/continue/exit report

  pid_t pid_ = -1;
  bool stopped_ = false;
  std::optional<int> status_;
  std::filesystem::path out_;
  std::filesystem::path err_;
};

// Runs argv to completion with `input` on its stdin (through a file) and returns its status and output; kills it
// and records a test failure after `timeout`. The files live in a scratch directory removed on return.
outcome run_process(const std::vector<std::string>& argv, const std::string& input = {},
                    std::chrono::milliseconds timeout = std::chrono::seconds(60));

// The absolute path of `name` found on $PATH, or `name` itself if it is not found.
std::string find_on_path(const std::string& name);

}  // namespace zkwire::test
