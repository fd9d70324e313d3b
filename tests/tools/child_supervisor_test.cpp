// The child supervisor of `zkwire lock` (tools/cli/child_supervisor.hpp): exit statuses as a shell reports them,
// environment, descriptor hygiene, signal dispositions, forwarding, and SIGTERM -> SIGKILL escalation.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <asio/io_context.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "child_supervisor.hpp"

namespace zkwire::cli {
namespace {

using namespace std::chrono_literals;

// Runs `argv` under a supervisor until it ends (at most `limit`); `after_start` may act on the running child.
std::optional<int> run_child(const spawn_request& request,
                             const std::function<void(child_supervisor&)>& after_start = {},
                             std::chrono::seconds limit = 20s) {
  asio::io_context io;
  child_supervisor supervisor(io.get_executor());
  std::optional<int> status;
  supervisor.start(request, [&](int s) { status = s; });
  if (after_start) after_start(supervisor);
  io.run_for(limit);
  return status;
}

spawn_request shell(const std::string& script) { return spawn_request{{"sh", "-c", script}, {}, {}}; }

TEST(ChildSupervisor, ReportsTheExitStatus) {
  EXPECT_EQ(run_child(shell("exit 0")), 0);
  EXPECT_EQ(run_child(shell("exit 7")), 7);
}

TEST(ChildSupervisor, ReportsDeathBySignalAs128PlusN) { EXPECT_EQ(run_child(shell("kill -USR1 $$")), 128 + SIGUSR1); }

TEST(ChildSupervisor, SetsAndReplacesEnvironmentVariables) {
  ::setenv("ZKWIRE_TEST_REPLACED", "old", 1);  // NOLINT(concurrency-mt-unsafe): single-threaded test
  ::setenv("ZKWIRE_TEST_KEPT", "kept", 1);     // NOLINT(concurrency-mt-unsafe)
  auto request = shell(R"([ "$ZKWIRE_TEST_NEW" = 1 ] && [ "$ZKWIRE_TEST_REPLACED" = new ] &&
                          [ "$ZKWIRE_TEST_KEPT" = kept ] && [ -n "$PATH" ])");
  request.environment = {{"ZKWIRE_TEST_NEW", "1"}, {"ZKWIRE_TEST_REPLACED", "new"}};
  EXPECT_EQ(run_child(request), 0);
  ::unsetenv("ZKWIRE_TEST_REPLACED");  // NOLINT(concurrency-mt-unsafe)
  ::unsetenv("ZKWIRE_TEST_KEPT");      // NOLINT(concurrency-mt-unsafe)
}

TEST(ChildSupervisor, CommandNotFoundAndNotExecutableAreShellStatuses) {
  asio::io_context io;
  child_supervisor supervisor(io.get_executor());
  try {
    supervisor.start({{"zkwire-no-such-command-here"}, {}, {}}, [](int) {});
    ADD_FAILURE() << "started a command that does not exist";
  } catch (const spawn_error& e) {
    EXPECT_EQ(e.status(), status_not_found) << e.what();
  }
  const auto file = std::filesystem::temp_directory_path() / ("zkwire-not-executable-" + std::to_string(::getpid()));
  std::ofstream(file) << "#!/bin/sh\nexit 0\n";
  ::chmod(file.c_str(), 0600);
  try {
    supervisor.start({{file.string()}, {}, {}}, [](int) {});
    ADD_FAILURE() << "started a file without execute permission";
  } catch (const spawn_error& e) {
    EXPECT_EQ(e.status(), status_cannot_execute) << e.what();
  }
  std::filesystem::remove(file);
  EXPECT_FALSE(supervisor.running());
}

TEST(ChildSupervisor, ClosesDescriptorsThatAreNotKept) {
  std::array<int, 2> kept{};
  std::array<int, 2> ours{};
  ASSERT_EQ(::pipe(kept.data()), 0);  // not O_CLOEXEC on purpose: the supervisor must close it itself
  ASSERT_EQ(::pipe(ours.data()), 0);
  auto request = shell("[ -e /proc/$$/fd/" + std::to_string(kept[0]) + " ] && [ ! -e /proc/$$/fd/" +
                       std::to_string(ours[0]) + " ]");
  request.keep_descriptors = {kept[0]};
  EXPECT_EQ(run_child(request), 0);
  for (const int fd : {kept[0], kept[1], ours[0], ours[1]}) ::close(fd);
}

TEST(ChildSupervisor, OpenDescriptorsListsWhatIsOpen) {
  std::array<int, 2> p{};
  ASSERT_EQ(::pipe(p.data()), 0);
  const auto open = open_descriptors();
  EXPECT_NE(std::find(open.begin(), open.end(), p[0]), open.end());
  EXPECT_NE(std::find(open.begin(), open.end(), p[1]), open.end());
  ::close(p[0]);
  ::close(p[1]);
  const auto after = open_descriptors();
  EXPECT_EQ(std::find(after.begin(), after.end(), p[0]), after.end());
}

TEST(ChildSupervisor, ChildStartsWithDefaultSignalDispositionsAndMask) {
  std::signal(SIGUSR1, SIG_IGN);  // inherited through exec unless reset
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  sigprocmask(SIG_BLOCK, &block, nullptr);
  EXPECT_EQ(run_child(shell("kill -USR1 $$; exit 0")), 128 + SIGUSR1);
  EXPECT_EQ(run_child(shell("kill -USR2 $$; exit 0")), 128 + SIGUSR2);
  sigprocmask(SIG_UNBLOCK, &block, nullptr);
  std::signal(SIGUSR1, SIG_DFL);
}

TEST(ChildSupervisor, ForwardsSignals) {
  EXPECT_EQ(run_child(shell("exec sleep 30"), [](child_supervisor& s) { s.send(SIGUSR1); }), 128 + SIGUSR1);
}

TEST(ChildSupervisor, TerminateSendsSigtermFirst) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run_child(shell("exec sleep 30"), [](child_supervisor& s) { s.terminate(10s); }), 128 + SIGTERM);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(ChildSupervisor, TerminateEscalatesToSigkill) {
  // The shell ignores SIGTERM and hands that on to sleep; only SIGKILL ends it. It says when it is ready (the
  // trap is set) through a pipe, so SIGTERM cannot arrive before the trap.
  std::array<int, 2> ready{};
  ASSERT_EQ(::pipe(ready.data()), 0);
  auto request = shell("trap '' TERM; echo ready >&" + std::to_string(ready[1]) + "; exec sleep 30");
  request.keep_descriptors = {ready[1]};
  const auto start = std::chrono::steady_clock::now();
  const auto status = run_child(request, [&](child_supervisor& s) {
    std::array<char, 6> buffer{};
    EXPECT_EQ(::read(ready[0], buffer.data(), buffer.size()), 6);
    s.terminate(300ms);
  });
  EXPECT_EQ(status, 128 + SIGKILL);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 5s);
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST(ChildSupervisor, DestructorKillsAndReapsARunningChild) {
  pid_t pid = -1;
  {
    asio::io_context io;
    child_supervisor supervisor(io.get_executor());
    supervisor.start(shell("exec sleep 30"), [](int) {});
    pid = supervisor.pid();
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(supervisor.running());
  }
  EXPECT_NE(::kill(pid, 0), 0);  // reaped: the pid is gone (not a zombie)
}

}  // namespace
}  // namespace zkwire::cli
