#pragma once
// GoogleTest fixtures that share one ZooKeeper cluster per test suite (JVM startup costs about 0.5-3 s), and a
// per-test unique znode name.
//
//   class session_test : public zkwire::test::standalone_test {};
//   TEST_F(session_test, creates) { connect to cluster().connect_string(); create root() ...; }
//
// A suite that needs other server options hides SetUpTestSuite:
//   class big_frames_test : public zkwire::test::standalone_test {
//    protected:
//     static void SetUpTestSuite() {
//       zkwire::test::cluster_options options;
//       options.jvm_flags = {"-Djute.maxbuffer=4194304"};
//       start_suite_cluster(std::move(options));
//     }
//   };
//
// The cluster lives from SetUpTestSuite to TearDownTestSuite; a suite's tests share its data, so each test works
// under its own root(). Not thread-safe: call everything from the test thread.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "support/cluster_options.hpp"
#include "support/zk_cluster.hpp"

namespace zkwire::test {

// A znode name unique to the running test and process, e.g. "/zkwire-session_test.creates-4711-3". Every call
// returns a new name. Outside a test the test name part is "no_test".
std::string unique_test_path();

class cluster_test : public ::testing::Test {
 public:
  // Starts the suite's cluster (replacing a previous one). A startup failure is reported as a test failure and
  // makes every test of the suite fail in SetUp.
  static void start_suite_cluster(cluster_options options);
  // Stops the suite's cluster and removes its directory.
  static void TearDownTestSuite();

 protected:
  // The suite's cluster. Only valid while a test of the suite runs.
  static zk_cluster& cluster();
  static std::string connect_string(std::string_view chroot = {});

  // Heals the cluster before each test (resumes paused members, starts stopped ones, waits until all are ready)
  // so a fault scenario that failed half-way does not break the next test; then picks root().
  void SetUp() override;

  // This test's unique root path (see unique_test_path), fixed for the duration of the test.
  [[nodiscard]] const std::string& root() const noexcept { return root_; }

 private:
  std::string root_;
};

// One standalone server per suite.
class standalone_test : public cluster_test {
 public:
  static void SetUpTestSuite();
};

// One 3-member ensemble per suite.
class ensemble_test : public cluster_test {
 public:
  static void SetUpTestSuite();
};

}  // namespace zkwire::test
