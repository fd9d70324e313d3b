#include "support/zk_test.hpp"

#include <unistd.h>

#include <exception>
#include <stdexcept>
#include <utility>

namespace zkwire::test {
namespace {

struct suite_state {
  std::unique_ptr<zk_cluster> cluster;
  std::string error;  // why the last start failed
};

suite_state& state() {
  static suite_state instance;
  return instance;
}

std::string sanitized(std::string_view name) {
  std::string result(name);
  for (char& c : result) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!keep) c = '_';
  }
  return result;
}

}  // namespace

std::string unique_test_path() {
  static unsigned long counter = 0;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test =
      info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : std::string("no_test");
  return "/zkwire-" + sanitized(test) + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

void cluster_test::start_suite_cluster(cluster_options options) {
  auto& s = state();
  s.cluster.reset();
  s.error.clear();
  try {
    s.cluster = std::make_unique<zk_cluster>(std::move(options));
  } catch (const std::exception& e) {
    s.error = e.what();
    ADD_FAILURE() << "starting the suite's ZooKeeper failed: " << s.error;
  }
}

void cluster_test::TearDownTestSuite() { state().cluster.reset(); }

zk_cluster& cluster_test::cluster() {
  auto& s = state();
  if (!s.cluster) throw std::logic_error("cluster_test::cluster(): the suite has no running cluster");
  return *s.cluster;
}

std::string cluster_test::connect_string(std::string_view chroot) { return cluster().connect_string(chroot); }

void cluster_test::SetUp() {
  auto& s = state();
  if (!s.cluster) GTEST_FAIL() << "the suite's ZooKeeper is not running: " << s.error;
  zk_cluster& c = *s.cluster;
  for (std::size_t i = 0; i < c.member_count(); ++i) {
    if (c.paused(i)) c.resume(i);
    if (!c.running(i)) c.start(i);
  }
  ASSERT_TRUE(c.wait_ready()) << "the suite's ZooKeeper did not become ready; log tail of member 0:\n" << c.log_tail(0);
  root_ = unique_test_path();
}

void standalone_test::SetUpTestSuite() { start_suite_cluster(cluster_options{}); }

void ensemble_test::SetUpTestSuite() {
  cluster_options options;
  options.members = 3;
  start_suite_cluster(std::move(options));
}

}  // namespace zkwire::test
