#include "support/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <system_error>

// POSIX declares it nowhere else, and it is the process environment: mutable and global by definition.
extern char** environ;  // NOLINT(readability-redundant-declaration,cppcoreguidelines-avoid-non-const-global-variables)

namespace zkwire::test {

process::process(const std::vector<std::string>& argv) {
  std::array<int, 2> in{};
  std::array<int, 2> out{};
  std::array<int, 2> err{};
  if (::pipe2(in.data(), O_CLOEXEC) != 0 || ::pipe2(out.data(), O_CLOEXEC) != 0 ||
      ::pipe2(err.data(), O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "pipe2");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));  // NOLINT: posix_spawn's signature
  args.push_back(nullptr);
  const int rc = ::posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  stdin_ = in[1];
  stdout_ = out[0];
  stderr_ = err[0];
  if (rc != 0) throw std::system_error(rc, std::generic_category(), "posix_spawn " + argv[0]);
}

process::~process() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  for (const int fd : {stdin_, stdout_, stderr_}) {
    if (fd >= 0) ::close(fd);
  }
}

outcome process::finish(const std::string& input, std::chrono::milliseconds timeout) {
  outcome result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t written = 0;
  if (input.empty()) close_fd(stdin_);
  while (stdout_ >= 0 || stderr_ >= 0 || stdin_ >= 0) {
    std::vector<pollfd> fds;
    if (stdin_ >= 0) fds.push_back({stdin_, POLLOUT, 0});
    if (stdout_ >= 0) fds.push_back({stdout_, POLLIN, 0});
    if (stderr_ >= 0) fds.push_back({stderr_, POLLIN, 0});
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid_, SIGKILL);
      ADD_FAILURE() << "the command did not finish in time";
      break;
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == stdin_) {
        const auto n = ::write(stdin_, input.data() + written, input.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        if (n < 0 || written == input.size()) close_fd(stdin_);
        continue;
      }
      std::array<char, 4096> buffer{};
      const auto n = ::read(p.fd, buffer.data(), buffer.size());
      if (n <= 0) {
        close_fd(p.fd == stdout_ ? stdout_ : stderr_);
        continue;
      }
      (p.fd == stdout_ ? result.out : result.err).append(buffer.data(), static_cast<std::size_t>(n));
    }
  }
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

bool process::running() const {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
}

void process::close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

outcome run_kazoo(const std::string& connect_string, const std::string& body) {
  const std::string program =
      "import sys\n"
      "from kazoo.client import KazooClient\n"
      "zk = KazooClient(hosts=sys.argv[1])\n"
      "zk.start(timeout=30)\n"
      "try:\n" +
      body +
      "finally:\n"
      "    zk.stop()\n";
  process p({"/usr/bin/python3", "-c", program, connect_string});
  return p.finish();
}

}  // namespace zkwire::test
