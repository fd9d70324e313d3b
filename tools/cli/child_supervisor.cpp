#include "child_supervisor.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <system_error>

namespace zkwire::cli {
namespace {

constexpr auto exit_poll_interval = std::chrono::milliseconds(20);

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The file execve should run for `name`, found like a shell finds commands; spawn_error if there is none.
std::string find_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;  // execve reports what is wrong with it
  const char* path_env = std::getenv("PATH");
  const std::string_view search = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  bool found_unexecutable = false;
  for (std::size_t begin = 0; begin <= search.size();) {
    std::size_t end = search.find(':', begin);
    if (end == std::string_view::npos) end = search.size();
    std::string dir(search.substr(begin, end - begin));
    if (dir.empty()) dir = ".";  // an empty PATH entry means the current directory
    std::string candidate = std::move(dir);
    candidate += '/';
    candidate += name;
    if (is_executable_file(candidate)) return candidate;
    if (::access(candidate.c_str(), F_OK) == 0) found_unexecutable = true;
    begin = end + 1;
  }
  if (found_unexecutable) throw spawn_error(name + ": permission denied", status_cannot_execute);
  throw spawn_error(name + ": command not found", status_not_found);
}

// Our environment with `overrides` set or replaced, as NAME=VALUE strings.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    const bool replaced =
        std::any_of(overrides.begin(), overrides.end(), [&](const auto& o) { return o.first == name; });
    if (!replaced) result.emplace_back(text);
  }
  for (const auto& [name, value] : overrides) {
    std::string entry = name;
    entry += '=';
    entry += value;
    result.push_back(std::move(entry));
  }
  return result;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (auto& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

// In the forked child: only async-signal-safe calls from here to execve (the parent may have other threads).
[[noreturn]] void exec_child(const char* file, char* const* argv, char* const* envp, const std::vector<int>& keep,
                             pid_t parent, int error_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(status_not_found);  // the parent died before prctl took effect
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;  // NOLINT(cppcoreguidelines-pro-type-union-access): the POSIX struct
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
  sigset_t empty;
  ::sigemptyset(&empty);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);
  // Close every descriptor from 3 up except the kept ones (sorted), in the gaps between them.
  unsigned first = 3;
  for (const int fd : keep) {
    const auto kept = static_cast<unsigned>(fd);
    if (kept > first) ::close_range(first, kept - 1, 0);
    first = std::max(first, kept + 1);
  }
  ::close_range(first, ~0U, 0);
  ::execve(file, argv, envp);
  const int error = errno;
  [[maybe_unused]] const auto n = ::write(error_fd, &error, sizeof error);
  ::_exit(status_not_found);
}

}  // namespace

int shell_status(int wait_status) noexcept {
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return WEXITSTATUS(wait_status);
}

std::vector<int> open_descriptors() {
  std::vector<int> result;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return result;
  const int own = ::dirfd(dir);
  while (const dirent* entry = ::readdir(dir)) {  // NOLINT(concurrency-mt-unsafe): one reader of a private DIR
    const int fd = std::atoi(entry->d_name);      // NOLINT(cert-err34-c): "." and ".." give 0 and are skipped
    if (fd >= 3 && fd != own) result.push_back(fd);
  }
  ::closedir(dir);
  std::sort(result.begin(), result.end());
  return result;
}

child_supervisor::child_supervisor(const asio::any_io_executor& executor)
    : pidfd_(executor), poll_timer_(executor), kill_timer_(executor) {}

child_supervisor::~child_supervisor() {
  *alive_ = false;
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void child_supervisor::start(const spawn_request& request, exit_handler on_exit) {
  if (pid_ > 0) throw std::logic_error("child_supervisor: a child is already running");
  if (request.argv.empty()) throw std::invalid_argument("child_supervisor: empty argv");
  const std::string file = find_executable(request.argv.front());
  std::vector<std::string> argv_strings = request.argv;
  std::vector<std::string> env_strings = child_environment(request.environment);
  const auto argv = c_strings(argv_strings);
  const auto envp = c_strings(env_strings);

  // The child reports a failed execve through this pipe; a successful one closes it (O_CLOEXEC).
  std::array<int, 2> error_pipe{};
  if (::pipe2(error_pipe.data(), O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
  std::vector<int> keep = request.keep_descriptors;
  keep.push_back(error_pipe[1]);
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(error_pipe[0]);
    ::close(error_pipe[1]);
    throw std::system_error(error, std::generic_category(), "fork");
  }
  if (pid == 0) exec_child(file.c_str(), argv.data(), envp.data(), keep, parent, error_pipe[1]);

  ::close(error_pipe[1]);
  int exec_error = 0;
  ssize_t n = 0;
  while ((n = ::read(error_pipe[0], &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  ::close(error_pipe[0]);
  if (n > 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const int code = exec_error == ENOENT ? status_not_found : status_cannot_execute;
    throw spawn_error(request.argv.front() + ": " + std::strerror(exec_error), code);
  }

  pid_ = pid;
  terminating_ = false;
  on_exit_ = std::move(on_exit);
  // Through syscall(): glibc 2.36's <sys/pidfd.h> lacks C linkage for C++.
  const auto pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    pidfd_.assign(pidfd);
    wait_for_exit();
  } else {
    poll_for_exit();  // a kernel without pidfd_open (before Linux 5.3)
  }
}

void child_supervisor::send(int signal) const noexcept {
  if (pid_ > 0) ::kill(pid_, signal);
}

void child_supervisor::terminate(std::chrono::steady_clock::duration kill_after) {
  if (pid_ <= 0 || terminating_) return;
  terminating_ = true;
  send(SIGTERM);
  kill_timer_.expires_after(kill_after);
  kill_timer_.async_wait([this, alive = alive_](std::error_code ec) {
    if (!*alive || ec) return;
    send(SIGKILL);
  });
}

void child_supervisor::wait_for_exit() {
  pidfd_.async_wait(asio::posix::stream_descriptor::wait_read, [this, alive = alive_](std::error_code ec) {
    if (!*alive || ec == asio::error::operation_aborted) return;
    if (!reap()) wait_for_exit();  // not possible for a pidfd, but harmless
  });
}

void child_supervisor::poll_for_exit() {
  poll_timer_.expires_after(exit_poll_interval);
  poll_timer_.async_wait([this, alive = alive_](std::error_code ec) {
    if (!*alive || ec) return;
    if (!reap()) poll_for_exit();
  });
}

bool child_supervisor::reap() {
  int status = 0;
  pid_t r = 0;
  while ((r = ::waitpid(pid_, &status, WNOHANG)) < 0 && errno == EINTR) {
  }
  if (r == 0) return false;
  pid_ = -1;
  kill_timer_.cancel();
  if (pidfd_.is_open()) pidfd_.close();
  auto handler = std::move(on_exit_);
  on_exit_ = nullptr;
  // r < 0 (ECHILD) would mean someone else reaped it: report it as killed, the status is unknown.
  if (handler) handler(r > 0 ? shell_status(status) : 128 + SIGKILL);
  return true;
}

}  // namespace zkwire::cli
