// Tests of the test support itself: real ZooKeeper servers started, queried, crashed, paused and restarted.

#include <sys/types.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/net.hpp"
#include "support/zk_cluster.hpp"
#include "support/zk_test.hpp"

namespace zkwire::test {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// True if no process `pid` exists any more (not even a zombie).
bool process_gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

std::string read_cmdline(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text) {
    if (c == '\0') c = ' ';
  }
  return text;
}

// Polls until the cluster has a leader other than `previous` (or any leader if previous is empty).
std::optional<std::size_t> wait_for_new_leader(const zk_cluster& cluster, std::optional<std::size_t> previous,
                                               std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto leader = cluster.leader_index();
    if (leader && leader != previous) return leader;
    std::this_thread::sleep_for(50ms);
  }
  return std::nullopt;
}

TEST(parse_srvr_mode, finds_the_mode_line) {
  EXPECT_EQ(parse_srvr_mode("Zookeeper version: 3.8.0\nZxid: 0x0\nMode: follower\nNode count: 5\n"), "follower");
  EXPECT_EQ(parse_srvr_mode("This ZooKeeper instance is not currently serving requests\n"), "");
  EXPECT_EQ(parse_srvr_mode(""), "");
}

TEST(pick_free_ports, returns_distinct_bindable_ports) {
  const auto ports = pick_free_ports(9);
  ASSERT_EQ(ports.size(), 9U);
  EXPECT_EQ(std::set<std::uint16_t>(ports.begin(), ports.end()).size(), 9U);
  for (const auto port : ports) EXPECT_GE(port, 10000U);
}

// --- standalone ---------------------------------------------------------------------------------------------

class standalone_cluster_test : public standalone_test {};

TEST_F(standalone_cluster_test, srvr_reports_standalone) {
  ASSERT_EQ(cluster().member_count(), 1U);
  EXPECT_THAT(cluster().four_letter(0, "srvr"), HasSubstr("Mode: standalone"));
  EXPECT_EQ(cluster().mode(0), "standalone");
  EXPECT_EQ(cluster().leader_index(), std::optional<std::size_t>(0));
}

TEST_F(standalone_cluster_test, mntr_reports_server_state) {
  EXPECT_THAT(cluster().four_letter(0, "mntr"), HasSubstr("zk_server_state\tstandalone"));
}

TEST_F(standalone_cluster_test, all_four_letter_words_are_whitelisted) {
  EXPECT_THAT(cluster().four_letter(0, "ruok"), "imok");
  EXPECT_THAT(cluster().four_letter(0, "wchp"), ::testing::Not(HasSubstr("not in the whitelist")));
  EXPECT_THAT(cluster().four_letter(0, "conf"), HasSubstr("tickTime=200"));
}

TEST_F(standalone_cluster_test, connect_string_and_chroot) {
  const std::string port = std::to_string(cluster().client_port(0));
  EXPECT_EQ(connect_string(), "127.0.0.1:" + port);
  EXPECT_EQ(connect_string("/app/x"), "127.0.0.1:" + port + "/app/x");
  EXPECT_THROW((void)connect_string("no-slash"), std::invalid_argument);
}

TEST_F(standalone_cluster_test, root_is_unique_per_test_and_a_valid_znode_name) {
  EXPECT_THAT(root(), MatchesRegex("/zkwire-standalone_cluster_test\\.root_is_unique_per_test_and_a_valid_znode_name-"
                                   "[0-9]+-[0-9]+"));
  EXPECT_NE(unique_test_path(), root());
  EXPECT_NE(unique_test_path(), unique_test_path());
}

TEST_F(standalone_cluster_test, paused_server_does_not_answer_until_resumed) {
  cluster().pause(0);
  EXPECT_TRUE(cluster().paused(0));
  EXPECT_TRUE(cluster().running(0));
  EXPECT_EQ(cluster().four_letter(0, "srvr", 300ms), "");
  cluster().resume(0);
  EXPECT_FALSE(cluster().paused(0));
  EXPECT_TRUE(cluster().wait_ready(0, 10s));
  EXPECT_EQ(cluster().mode(0), "standalone");
}

TEST_F(standalone_cluster_test, stop_and_start_keep_the_port) {
  const auto port = cluster().client_port(0);
  const pid_t old_pid = cluster().pid(0);
  cluster().stop(0);
  EXPECT_FALSE(cluster().running(0));
  EXPECT_EQ(cluster().pid(0), -1);
  EXPECT_TRUE(process_gone(old_pid));
  EXPECT_EQ(cluster().four_letter(0, "srvr", 300ms), "");
  EXPECT_FALSE(cluster().wait_ready(0, 100ms));
  cluster().start(0);
  ASSERT_TRUE(cluster().wait_ready(0, 30s)) << cluster().log_tail(0);
  EXPECT_EQ(cluster().client_port(0), port);
  EXPECT_EQ(cluster().mode(0), "standalone");
}

// --- ensemble -----------------------------------------------------------------------------------------------

class ensemble_cluster_test : public ensemble_test {};

TEST_F(ensemble_cluster_test, elects_exactly_one_leader) {
  ASSERT_EQ(cluster().member_count(), 3U);
  int leaders = 0;
  int followers = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string mode = cluster().mode(i);
    leaders += mode == "leader" ? 1 : 0;
    followers += mode == "follower" ? 1 : 0;
  }
  EXPECT_EQ(leaders, 1);
  EXPECT_EQ(followers, 2);
  EXPECT_TRUE(cluster().leader_index().has_value());
  EXPECT_THAT(cluster().four_letter(*cluster().leader_index(), "mntr"), HasSubstr("zk_server_state\tleader"));
}

TEST_F(ensemble_cluster_test, connect_string_lists_every_member) {
  EXPECT_EQ(connect_string("/r"),
            cluster().address(0) + "," + cluster().address(1) + "," + cluster().address(2) + "/r");
}

TEST_F(ensemble_cluster_test, killed_leader_is_replaced_and_rejoins_as_follower) {
  const auto old_leader = cluster().leader_index();
  ASSERT_TRUE(old_leader.has_value());
  const pid_t old_pid = cluster().pid(*old_leader);
  cluster().kill9(*old_leader);
  EXPECT_FALSE(cluster().running(*old_leader));
  EXPECT_TRUE(process_gone(old_pid));

  const auto new_leader = wait_for_new_leader(cluster(), old_leader, 30s);
  ASSERT_TRUE(new_leader.has_value()) << "no new leader among the remaining members";
  EXPECT_NE(*new_leader, *old_leader);
  ASSERT_TRUE(cluster().wait_ready(30s));  // skips the killed member
  for (std::size_t i = 0; i < 3; ++i) {
    if (i != *old_leader && i != *new_leader) {
      EXPECT_EQ(cluster().mode(i), "follower");
    }
  }

  cluster().restart(*old_leader);
  ASSERT_TRUE(cluster().wait_ready(*old_leader, 30s)) << cluster().log_tail(*old_leader);
  EXPECT_EQ(cluster().mode(*old_leader), "follower");
  EXPECT_EQ(cluster().leader_index(), new_leader);
}

TEST_F(ensemble_cluster_test, paused_follower_does_not_answer_until_resumed) {
  const auto leader = cluster().leader_index();
  ASSERT_TRUE(leader.has_value());
  const std::size_t follower = (*leader + 1) % 3;
  cluster().pause(follower);
  EXPECT_EQ(cluster().four_letter(follower, "srvr", 300ms), "");
  EXPECT_EQ(cluster().mode(*leader), "leader");  // two of three still form a quorum
  cluster().resume(follower);
  ASSERT_TRUE(cluster().wait_ready(follower, 30s)) << cluster().log_tail(follower);
  EXPECT_EQ(cluster().mode(follower), "follower");
}

// --- lifecycle outside the fixtures --------------------------------------------------------------------------

TEST(zk_cluster_lifecycle, options_reach_the_server_and_destruction_leaves_nothing_behind) {
  std::filesystem::path directory;
  pid_t pid = -1;
  {
    cluster_options options;
    options.tick_time = 300ms;
    options.min_session_timeout = 900ms;
    options.jvm_flags = {"-Djute.maxbuffer=2097152"};
    options.extra_config = {"globalOutstandingLimit=500"};
    zk_cluster cluster(options);
    directory = cluster.directory();
    pid = cluster.pid(0);
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(std::filesystem::exists(directory / "member1" / "zoo.cfg"));
    const std::string conf = cluster.four_letter(0, "conf");
    EXPECT_THAT(conf, HasSubstr("tickTime=300"));
    EXPECT_THAT(conf, HasSubstr("minSessionTimeout=900"));
    EXPECT_THAT(read_cmdline(pid), HasSubstr("-Djute.maxbuffer=2097152"));
    EXPECT_THAT(read_cmdline(pid), HasSubstr("QuorumPeerMain"));
    cluster.pause(0);  // the destructor must also handle a stopped process
  }
  EXPECT_TRUE(process_gone(pid)) << "member still exists (or is an unreaped zombie)";
  EXPECT_FALSE(std::filesystem::exists(directory));
}

TEST(zk_cluster_lifecycle, startup_failure_throws_with_the_log_and_cleans_up) {
  cluster_options options;
  options.jvm_flags = {"-XX:+ZkwireNoSuchOption"};
  options.start_timeout = 20s;
  try {
    zk_cluster cluster(options);
    FAIL() << "a JVM with an unknown option started";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("ZkwireNoSuchOption"));
    EXPECT_THAT(e.what(), StartsWith("zk_cluster: ZooKeeper did not start"));
  }
}

}  // namespace
}  // namespace zkwire::test
