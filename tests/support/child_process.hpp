#pragma once
// A child process started with fork/exec that this object owns: it is signalled and reaped only through this
// object, so its pid is never reused behind our back. Not thread-safe.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace zkwire::test {

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

  // The child's pid while it has not been reaped, else -1.
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  // True until the child has exited; reaps it (without blocking) if it has.
  bool running();
  [[nodiscard]] bool stopped() const noexcept { return stopped_; }
  // Raw wait status of the reaped child (see waitpid), if it has been reaped.
  [[nodiscard]] std::optional<int> wait_status() const noexcept { return status_; }

  // SIGSTOP / SIGCONT; each returns once the child has actually stopped / continued. No-ops when the child is not
  // running or already in that state.
  void pause();
  void resume();
  // SIGTERM (after SIGCONT if paused), waits up to `grace`, then SIGKILL; returns once the child is reaped.
  void terminate(std::chrono::milliseconds grace);
  // SIGKILL (SIGCONT first if paused) and reap.
  void kill();
  // Waits up to `timeout` for the child to exit; true if it has been reaped.
  bool wait_for(std::chrono::milliseconds timeout);

 private:
  void send(int signal) const;
  void reap_blocking();
  void wait_for_state(int waitpid_options);  // blocks for one stop/continue/exit report

  pid_t pid_ = -1;
  bool stopped_ = false;
  std::optional<int> status_;
};

// The absolute path of `name` found on $PATH, or `name` itself if it is not found.
std::string find_on_path(const std::string& name);

}  // namespace zkwire::test
