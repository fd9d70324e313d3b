#pragma once
// A fixture for tests that run the built `zkwire` command line as subprocesses against the suite's standalone server
// (tests/integration/cli_lock_test.cpp, tests/tools/cli_elect_test.cpp): the command lines, a scratch directory for
// their output, and the oracle of a critical section that does not trust the recipe guarding it. The test program
// defines ZKWIRE_CLI_PATH, the binary's path.

#ifndef ZKWIRE_CLI_PATH
#error "support/cli_process_test.hpp: the test program must define ZKWIRE_CLI_PATH (the built zkwire binary)"
#endif

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/eventually.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_test.hpp"

namespace zkwire::test {

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The critical section of the oracle (cli_process_test::make_oracle) as a shell script: $1 is the oracle's
// directory; the node ($ZKWIRE_LOCK_NODE for `lock`, $ZKWIRE_LEADER_NODE for `elect`) goes to the violation, the
// fencing token and "zkwire" to the tokens.
inline constexpr const char* critical_section = R"(d=$1
mkdir "$d/inside" 2>/dev/null || echo "overlap: $ZKWIRE_LOCK_NODE$ZKWIRE_LEADER_NODE" >> "$d/violations"
n=$(cat "$d/counter")
sleep 0.03
echo $((n + 1)) > "$d/counter.$$"
mv "$d/counter.$$" "$d/counter"
echo "$ZKWIRE_FENCING_TOKEN zkwire" >> "$d/tokens"
rmdir "$d/inside"
)";

class cli_process_test : public standalone_test {
 protected:
  void SetUp() override {
    standalone_test::SetUp();
    files_ = std::make_unique<temp_dir>("zkwire-cli-");
  }
  void TearDown() override { files_.reset(); }

  [[nodiscard]] std::filesystem::path file(const std::string& name) const { return files_->path() / name; }

  // `zkwire` with the suite's server and a long connect timeout (a loaded machine), then `args`.
  static std::vector<std::string> cli(std::initializer_list<std::string> args) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", connect_string(), "--connect-timeout", "20000"};
    argv.insert(argv.end(), args);
    return argv;
  }
  // Starts a process with output in fresh files (call from the main test thread or a thread that outlives it: see
  // child_process::spawn).
  std::unique_ptr<child_process> start(const std::vector<std::string>& argv) {
    const auto n = std::to_string(next_.fetch_add(1));
    return std::make_unique<child_process>(
        child_process::spawn(argv, child_stdio{file("out." + n), file("err." + n), {}}));
  }
  outcome run(const std::vector<std::string>& argv, std::chrono::milliseconds limit = std::chrono::seconds(60)) {
    return start(argv)->finish(limit);
  }
  outcome zk(std::initializer_list<std::string> args) { return run(cli(args)); }

  // Waits until `path` exists (a command's "I am inside" marker), within 30 s.
  static ::testing::AssertionResult wait_for_file(const std::filesystem::path& path) {
    return eventually([&] { return std::filesystem::exists(path); }, std::chrono::seconds(30),
                      path.string() + " to exist");
  }

  // The oracle: a critical section marks "inside" with mkdir (a second one inside appends to "violations"), does a
  // non-atomic read-sleep-write of "counter" (an overlap loses an update) and appends its fencing token to
  // "tokens". A fresh oracle directory: counter 0, no violations, no tokens.
  std::filesystem::path make_oracle(const std::string& name) {
    const auto dir = file(name);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "counter") << "0\n";
    std::ofstream(dir / "tokens");
    return dir;
  }
  // Checks the oracle after `expected` critical sections: no lost update, no overlap, tokens growing (each line of
  // "tokens" starts with one).
  static void check_oracle(const std::filesystem::path& oracle, int expected) {
    EXPECT_EQ(read_file(oracle / "counter"), std::to_string(expected) + "\n") << "lost updates";
    EXPECT_FALSE(std::filesystem::exists(oracle / "violations")) << read_file(oracle / "violations");
    const auto tokens = lines_of(read_file(oracle / "tokens"));
    EXPECT_EQ(tokens.size(), static_cast<std::size_t>(expected));
    std::int64_t previous = 0;
    for (const auto& line : tokens) {
      const std::int64_t token = std::stoll(line);
      EXPECT_GT(token, previous) << "fencing tokens out of order at: " << line;
      previous = token;
    }
  }

 private:
  std::unique_ptr<temp_dir> files_;
  std::atomic<int> next_{0};
};

}  // namespace zkwire::test
