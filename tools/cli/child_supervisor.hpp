#pragma once
// Runs one child process (the CMD of `zkwire lock`) on an Asio executor: starts it, reports its end, forwards
// signals to it and terminates it with escalation. Knows nothing about locks.
//
// The child
//  - is found on PATH like a shell would (argv[0] without a '/'), and gets our environment with the given
//    variables set or replaced;
//  - inherits only the descriptors the caller names (those zkwire itself was started with): everything zkwire
//    opened later, above all the ZooKeeper socket, is closed in the child, so a CMD that outlives zkwire cannot
//    keep zkwire's session (and so the lock) alive;
//  - starts with default signal dispositions and an empty signal mask, in zkwire's process group (so it can use
//    the terminal like a command started directly);
//  - on Linux is killed (SIGKILL) when zkwire dies without ending it (PR_SET_PDEATHSIG): nobody could stop it once
//    the lock expires.
//
// Its end is noticed through a pidfd on the executor (or, on kernels without pidfd, by polling waitpid every
// 20 ms). Not thread-safe: use it on the executor's thread.

#include <sys/types.h>

#include <asio/any_io_executor.hpp>
#include <asio/posix/stream_descriptor.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace zkwire::cli {

// How a wait status reads in a shell: the exit status, or 128+N when signal N ended the process.
int shell_status(int wait_status) noexcept;

// The descriptors >= 3 this process has open right now (to pass on to a child later as keep_descriptors).
std::vector<int> open_descriptors();

// The exit statuses a shell uses when it cannot run a command.
inline constexpr int status_cannot_execute = 126;
inline constexpr int status_not_found = 127;

struct spawn_request {
  std::vector<std::string> argv;                                 // not empty
  std::vector<std::pair<std::string, std::string>> environment;  // set or replaced in the child's environment
  std::vector<int> keep_descriptors;                             // >= 3, inherited; others are closed
};

// Thrown by child_supervisor::start when the command cannot be run. status() is what a shell would exit with
// (127 not found, 126 found but not executable or exec failed).
class spawn_error : public std::runtime_error {
 public:
  spawn_error(const std::string& what, int status) : std::runtime_error(what), status_(status) {}
  [[nodiscard]] int status() const noexcept { return status_; }

 private:
  int status_;
};

class child_supervisor {
 public:
  // Called once, on the executor, with the child's shell_status.
  using exit_handler = std::function<void(int status)>;

  explicit child_supervisor(const asio::any_io_executor& executor);
  // A child still running is killed with SIGKILL and reaped: it must not run on unsupervised.
  ~child_supervisor();
  child_supervisor(const child_supervisor&) = delete;
  child_supervisor& operator=(const child_supervisor&) = delete;
  child_supervisor(child_supervisor&&) = delete;
  child_supervisor& operator=(child_supervisor&&) = delete;

  // Starts the child; `on_exit` runs when it has ended and been reaped. Throws spawn_error if it cannot be run,
  // std::system_error for other failures (fork). Only one child per supervisor.
  void start(const spawn_request& request, exit_handler on_exit);

  // True from start() until the child has been reaped.
  [[nodiscard]] bool running() const noexcept { return pid_ > 0; }
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

  // Sends `signal` to the child if it runs.
  void send(int signal) const noexcept;

  // SIGTERM now and SIGKILL after `kill_after` unless it has ended by then. Repeated calls do not restart the
  // countdown.
  void terminate(std::chrono::steady_clock::duration kill_after);

 private:
  void wait_for_exit();
  void poll_for_exit();
  bool reap();

  asio::posix::stream_descriptor pidfd_;
  asio::steady_timer poll_timer_;
  asio::steady_timer kill_timer_;
  pid_t pid_ = -1;
  bool terminating_ = false;
  exit_handler on_exit_;
  // Outstanding handlers check it, so a supervisor destroyed first is never touched.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace zkwire::cli
