#include "support/child_process.hpp"

#include "support/temp_dir.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

namespace zkwire::test {
namespace {

// Owns a file descriptor.
class fd_guard {
 public:
  explicit fd_guard(int fd) noexcept : fd_(fd) {}
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  fd_guard(fd_guard&&) = delete;
  fd_guard& operator=(fd_guard&&) = delete;
  [[nodiscard]] int get() const noexcept { return fd_; }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

int checked(int result, const char* what) {
  if (result < 0) throw std::system_error(errno, std::generic_category(), what);
  return result;
}

// In the forked child: reports errno to the parent and exits.
[[noreturn]] void fail_child(int error_pipe) {
  const int error = errno;
  [[maybe_unused]] const auto ignored = ::write(error_pipe, &error, sizeof error);
  ::_exit(127);
}

// Runs in the forked child: only async-signal-safe calls until exec. Reports errno through `error_pipe`.
[[noreturn]] void exec_child(char* const* argv, int stdin_fd, int out_fd, int err_fd, int error_pipe, pid_t parent) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg): POSIX API
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail_child(error_pipe);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) {
    if (signal != SIGKILL && signal != SIGSTOP) ::sigaction(signal, &default_action, nullptr);
  }
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::dup2(stdin_fd, STDIN_FILENO) < 0 || ::dup2(out_fd, STDOUT_FILENO) < 0 || ::dup2(err_fd, STDERR_FILENO) < 0) {
    fail_child(error_pipe);
  }
  // Everything else the test process has open (client sockets, ...) must not leak into the server; the error
  // pipe is close-on-exec, so it stays open until exec and is closed by it.
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-vararg): POSIX API
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {   // kernels before 5.11
    for (int fd = 3; fd < 4096; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // NOLINT(cppcoreguidelines-pro-type-vararg)
  }
  ::execv(argv[0], argv);
  fail_child(error_pipe);
}

}  // namespace

std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string_view directories = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!directories.empty()) {
    const auto colon = directories.find(':');
    std::string candidate(directories.substr(0, colon));
    directories = colon == std::string_view::npos ? std::string_view{} : directories.substr(colon + 1);
    if (candidate.empty()) continue;
    candidate += '/';
    candidate += name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return name;
}

child_process child_process::spawn(const std::vector<std::string>& argv, const std::filesystem::path& log_file) {
  return spawn(argv, child_stdio{log_file, {}, {}});
}

child_process child_process::spawn(const std::vector<std::string>& argv, const child_stdio& stdio) {
  if (argv.empty()) throw std::invalid_argument("child_process::spawn: empty argv");
  // Everything the child needs is prepared before fork: after fork only async-signal-safe calls are allowed.
  std::vector<std::string> args = argv;
  std::vector<char*> pointers;
  pointers.reserve(args.size() + 1);
  for (auto& arg : args) pointers.push_back(arg.data());
  pointers.push_back(nullptr);

  // NOLINTBEGIN(cppcoreguidelines-pro-type-vararg): open(2) is variadic
  const std::filesystem::path input = stdio.input.empty() ? std::filesystem::path("/dev/null") : stdio.input;
  const fd_guard stdin_fd(checked(::open(input.c_str(), O_RDONLY | O_CLOEXEC), "open child stdin"));
  const fd_guard out_fd(
      checked(::open(stdio.out.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644), "open child stdout"));
  const fd_guard err_fd(
      stdio.err.empty()
          ? -1
          : checked(::open(stdio.err.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644), "open child stderr"));
  // NOLINTEND(cppcoreguidelines-pro-type-vararg)
  int pipe_fds[2];
  checked(::pipe2(pipe_fds, O_CLOEXEC), "pipe2");
  fd_guard error_read(pipe_fds[0]);
  fd_guard error_write(pipe_fds[1]);

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) {
    exec_child(pointers.data(), stdin_fd.get(), out_fd.get(), stdio.err.empty() ? out_fd.get() : err_fd.get(),
               error_write.get(), parent);
  }

  child_process child;
  child.pid_ = pid;
  child.out_ = stdio.out;
  child.err_ = stdio.err.empty() ? stdio.out : stdio.err;
  // EOF on the pipe means exec succeeded (close-on-exec); otherwise the child sent errno and exits.
  error_write.reset();
  int child_errno = 0;
  ssize_t n = 0;
  do {
    n = ::read(error_read.get(), &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  if (n > 0) {
    child.reap_blocking();
    throw std::system_error(child_errno, std::generic_category(), "exec " + argv.front());
  }
  return child;
}

child_process::~child_process() {
  if (pid_ > 0) kill();
}

child_process::child_process(child_process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      stopped_(std::exchange(other.stopped_, false)),
      status_(other.status_),
      out_(std::move(other.out_)),
      err_(std::move(other.err_)) {}

child_process& child_process::operator=(child_process&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0) kill();
    pid_ = std::exchange(other.pid_, -1);
    stopped_ = std::exchange(other.stopped_, false);
    status_ = other.status_;
    out_ = std::move(other.out_);
    err_ = std::move(other.err_);
  }
  return *this;
}

std::optional<int> child_process::exit_status() const noexcept {
  if (!status_) return std::nullopt;
  if (WIFEXITED(*status_)) return WEXITSTATUS(*status_);
  if (WIFSIGNALED(*status_)) return 128 + WTERMSIG(*status_);
  return std::nullopt;
}

std::string child_process::out() const { return out_.empty() ? std::string{} : read_file(out_); }

std::string child_process::err() const { return err_.empty() ? std::string{} : read_file(err_); }

outcome child_process::finish(std::chrono::milliseconds timeout) {
  if (!wait_for(timeout)) {
    ADD_FAILURE() << "child " << pid_ << " did not finish within " << timeout.count() << " ms; killed";
    kill();
  }
  return {exit_status().value_or(-1), out(), err()};
}

void child_process::send(int signal) const {
  if (pid_ > 0) ::kill(pid_, signal);
}

bool child_process::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t result = ::waitpid(pid_, &status, WNOHANG);
  if (result == pid_ || (result < 0 && errno == ECHILD)) {
    status_ = result == pid_ ? std::optional<int>(status) : std::nullopt;
    pid_ = -1;
    stopped_ = false;
    return false;
  }
  return true;
}

void child_process::reap_blocking() {
  if (pid_ <= 0) return;
  int status = 0;
  pid_t result = 0;
  do {
    result = ::waitpid(pid_, &status, 0);
  } while (result < 0 && errno == EINTR);
  status_ = result == pid_ ? std::optional<int>(status) : std::nullopt;
  pid_ = -1;
  stopped_ = false;
}

// kill() only queues the signal; waitpid's stop/continue reports tell when the child really is stopped or running
// again, so a test never observes a "paused" server that still answers.
void child_process::pause() {
  if (stopped_ || !running()) return;
  send(SIGSTOP);
  wait_for_state(WUNTRACED);
  if (pid_ > 0) stopped_ = true;
}

void child_process::resume() {
  if (!stopped_ || !running()) return;
  send(SIGCONT);
  wait_for_state(WCONTINUED);
  stopped_ = false;
}

void child_process::wait_for_state(int options) {
  int status = 0;
  pid_t result = 0;
  do {
    result = ::waitpid(pid_, &status, options);
  } while (result < 0 && errno == EINTR);
  if (result == pid_ && (WIFEXITED(status) || WIFSIGNALED(status))) {
    status_ = status;
    pid_ = -1;
    stopped_ = false;
  }
}

bool child_process::wait_for(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

void child_process::terminate(std::chrono::milliseconds grace) {
  if (!running()) return;
  send(SIGTERM);
  if (stopped_) send(SIGCONT);  // a stopped process only acts on SIGTERM once continued
  if (!wait_for(grace)) kill();
}

void child_process::kill() {
  if (pid_ <= 0) return;
  send(SIGKILL);
  send(SIGCONT);
  reap_blocking();
}

outcome run_process(const std::vector<std::string>& argv, const std::string& input, std::chrono::milliseconds timeout) {
  const temp_dir scratch("zkwire-run-");
  child_stdio stdio{scratch.path() / "out", scratch.path() / "err", {}};
  if (!input.empty()) {
    stdio.input = scratch.path() / "in";
    std::ofstream(stdio.input, std::ios::binary) << input;
  }
  auto child = child_process::spawn(argv, stdio);
  return child.finish(timeout);
}

}  // namespace zkwire::test
