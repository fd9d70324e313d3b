// `zkwire semaphore` against a real ZooKeeper server, the built binary run as subprocesses: help and usage errors,
// the lease in the command's environment, at most N of 4 contending processes inside at once (an oracle that counts
// the holders inside and so can see an overlap), and --timeout leaving no lease behind.

#include <sys/wait.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/child_process.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using namespace std::chrono_literals;
using test::read_file;
using ::testing::HasSubstr;

// The critical section: $1 is the oracle's directory. Each holder marks itself inside, counts the holders inside
// (itself included) and stays a while, so that holders overlapping in time see each other.
constexpr const char* critical_section = R"(d=$1
mkdir "$d/in.$$"
ls -d "$d"/in.* | wc -l >> "$d/counts"
echo "$ZKWIRE_LEASE_NODE" >> "$d/nodes"
sleep 0.15
rmdir "$d/in.$$"
)";

class cli_semaphore_test : public test::standalone_test {
 protected:
  void SetUp() override {
    standalone_test::SetUp();
    files_ = std::make_unique<test::temp_dir>("zkwire-cli-semaphore-");
  }
  void TearDown() override { files_.reset(); }

  [[nodiscard]] std::filesystem::path file(const std::string& name) const { return files_->path() / name; }

  static std::vector<std::string> cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", connect_string(), "--connect-timeout", "20000"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  test::child_process start(const std::vector<std::string>& argv, const std::string& log) {
    return test::child_process::spawn(argv, file(log));
  }
  // Runs to the end (within 60 s); the exit status (128+N for signal N), -1 if it did not end.
  static int finish(test::child_process& p) {
    if (!p.wait_for(60s)) return -1;
    const int status = p.wait_status().value_or(-1);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  int run(const std::vector<std::string>& argv, const std::string& log) {
    auto p = start(argv, log);
    return finish(p);
  }
  std::size_t leases_now(const std::string& path) {
    const auto log = "ls." + std::to_string(++ls_runs_);
    if (run(cli({"ls", path + "/leases"}), log) != 0) return 0;
    const std::string text = read_file(file(log));
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }
  static bool wait_for_file(const std::filesystem::path& path) {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (std::filesystem::exists(path)) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }

 private:
  std::unique_ptr<test::temp_dir> files_;
  int ls_runs_ = 0;
};

TEST_F(cli_semaphore_test, HelpAndUsageErrors) {
  EXPECT_EQ(run({ZKWIRE_CLI_PATH, "semaphore", "--help"}, "help"), 0);
  EXPECT_THAT(read_file(file("help")),
              HasSubstr("semaphore --leases N [--timeout SEC] [--kill-after SEC] PATH -- CMD [ARG...]"));
  EXPECT_THAT(read_file(file("help")), HasSubstr("ZKWIRE_LEASE_NODE"));
  int n = 0;
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"semaphore", "/x", "--", "true"},
                                             {"semaphore", "--leases", "0", "/x", "--", "true"},
                                             {"semaphore", "--leases", "two", "/x", "--", "true"},
                                             {"semaphore", "--leases", "2", "/x", "true"},
                                             {"semaphore", "--leases", "2", "/x", "--"},
                                             {"semaphore", "--leases", "2", "--bogus", "/x", "--", "true"},
                                             {"semaphore", "--leases", "2", "--timeout", "-1", "/x", "--", "true"},
                                             {"semaphore", "--leases", "2", "x", "--", "true"}}) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", "127.0.0.1:1"};
    argv.insert(argv.end(), args.begin(), args.end());
    const std::string log = "usage." + std::to_string(n++);
    EXPECT_EQ(run(argv, log), 2) << args[2] << ": " << read_file(file(log));
    EXPECT_THAT(read_file(file(log)), ::testing::StartsWith("zkwire: semaphore: "));
  }
  EXPECT_THAT(read_file(file("usage.0")), HasSubstr("--leases"));
  EXPECT_THAT(read_file(file("usage.5")), HasSubstr("--bogus"));
}

// Four processes, each taking a lease of two several times: the oracle sees at most two inside at once, and two
// at some point (so it can see an overlap). Every lease node is in Curator's layout; none is left.
TEST_F(cli_semaphore_test, AtMostNOfFourProcesses) {
  constexpr int processes = 4;
  constexpr int rounds = 4;
  const std::string path = root() + "/sem";
  const auto oracle = file("oracle");
  std::filesystem::create_directories(oracle);
  std::vector<std::thread> workers;
  std::vector<int> statuses(static_cast<std::size_t>(processes * rounds), -2);
  // Spawned from the main thread (the children die with the thread that spawned them), waited for on threads.
  for (int r = 0; r < rounds; ++r) {
    std::vector<test::child_process> batch;
    for (int p = 0; p < processes; ++p) {
      batch.push_back(
          start(cli({"semaphore", "--leases", "2", path, "--", "sh", "-c", critical_section, "cs", oracle.string()}),
                "run." + std::to_string(r) + "." + std::to_string(p)));
    }
    for (int p = 0; p < processes; ++p) {
      statuses[static_cast<std::size_t>(r * processes + p)] = finish(batch[static_cast<std::size_t>(p)]);
    }
  }
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    EXPECT_EQ(statuses[i], 0) << read_file(
        file("run." + std::to_string(i / processes) + "." + std::to_string(i % processes)));
  }
  std::istringstream counts(read_file(oracle / "counts"));
  int most = 0;
  int entries = 0;
  for (int c = 0; counts >> c;) {
    most = std::max(most, c);
    ++entries;
  }
  EXPECT_EQ(entries, processes * rounds);
  EXPECT_LE(most, 2) << "more holders than leases";
  EXPECT_EQ(most, 2) << "the oracle never saw two holders at once";
  std::istringstream nodes(read_file(oracle / "nodes"));
  const std::regex layout(path + "/leases/_c_[0-9a-f-]{36}-lease-[0-9]{10}");
  for (std::string node; std::getline(nodes, node);) EXPECT_TRUE(std::regex_match(node, layout)) << node;
  EXPECT_EQ(leases_now(path), 0U);
}

TEST_F(cli_semaphore_test, TimeoutWhileTheLeasesAreTaken) {
  const std::string path = root() + "/sem";
  std::vector<test::child_process> holders;
  for (int i = 0; i < 2; ++i) {
    const auto inside = file("inside." + std::to_string(i));
    holders.push_back(start(
        cli({"semaphore", "--leases", "2", path, "--", "sh", "-c", "touch \"$0\"; exec sleep 30", inside.string()}),
        "holder." + std::to_string(i)));
    ASSERT_TRUE(wait_for_file(inside)) << read_file(file("holder." + std::to_string(i)));
  }
  EXPECT_EQ(run(cli({"semaphore", "--leases", "2", "--timeout", "0", path, "--", "true"}), "try"), 75)
      << read_file(file("try"));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(run(cli({"semaphore", "--leases", "2", "--timeout", "0.5", path, "--", "true"}), "wait"), 75)
      << read_file(file("wait"));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 450ms);
  EXPECT_THAT(read_file(file("wait")), HasSubstr("zkwire: semaphore: " + path + ": not acquired within"));
  EXPECT_EQ(leases_now(path), 2U);           // those that gave up left nothing
  for (auto& h : holders) h.terminate(10s);  // SIGTERM is forwarded to the command, which dies of it
  EXPECT_EQ(leases_now(path), 0U);
}

}  // namespace
}  // namespace zkwire
