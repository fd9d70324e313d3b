// A member that diverged (docs/design.md#diverged-member): recipes::async_check_members and
// `zkwire locks --check-members` (docs/cli.md#locks) against three standalone servers named in one connect string as
// if they were the members of an ensemble. Each has its own tree, which is how a diverged member looks to a client:
// the node a member shows and the others do not is named, with how many members list it; where they agree nothing
// is; with a member unreachable a majority may not be told. The servers make the divergence on purpose: Debian's
// ZooKeeper 3.8.0 made one under the nemesis's kill -9s only now and then.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "client_test_support.hpp"
#include "support/child_process.hpp"
#include "support/zk_cluster.hpp"
#include "zkwire/recipes/member_views.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using json = nlohmann::json;
using namespace std::chrono_literals;

std::unique_ptr<client> new_client(asio::io_context& io, const std::string& servers) {
  return std::make_unique<client>(io.get_executor(), test::client_options_for(servers));
}

// Three standalone servers; /d on each holds x-1-0000000001 and a node of that server alone (x-9-000000001<m>),
// /same holds x-1-0000000001 everywhere.
class member_views_test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (std::size_t m = 0; m < 3; ++m) {
      servers_.push_back(std::make_unique<test::zk_cluster>(test::cluster_options{}));
      asio::io_context io;
      auto c = new_client(io, servers_.back()->connect_string());
      test::run_co(io, [&]() -> asio::awaitable<void> {
        for (const auto* dir : {"/d", "/same"}) {
          co_await c->async_create(dir, "", use_awaitable);
          co_await c->async_create(std::string(dir) + "/x-1-0000000001", "", use_awaitable);
        }
        co_await c->async_create("/d/" + own(m), "", use_awaitable);
      }());
    }
  }
  static void TearDownTestSuite() { servers_.clear(); }

  static std::string own(std::size_t m) { return "x-9-000000001" + std::to_string(m); }
  static std::string all_members() {
    return servers_[0]->address(0) + "," + servers_[1]->address(0) + "," + servers_[2]->address(0);
  }

  // async_check_members on a client of member 0 alone, over the members in `members`.
  recipes::member_check check(const std::string& members, const std::string& directory, std::vector<std::string> shown,
                              std::chrono::milliseconds timeout = 5s) {
    asio::io_context io;
    auto c = new_client(io, servers_[0]->connect_string());
    return test::run_co(io, [&]() -> asio::awaitable<recipes::member_check> {
      co_return co_await recipes::async_check_members(*c, test::client_options_for(members), directory,
                                                      std::move(shown), timeout, use_awaitable);
    }());
  }

  static inline std::vector<std::unique_ptr<test::zk_cluster>> servers_;
};

TEST_F(member_views_test, ANodeOnlyTheReadingMemberShowsIsNamed) {
  const auto result = check(all_members(), "/d", {"x-1-0000000001", own(0)});
  ASSERT_EQ(result.views.size(), 3U);
  EXPECT_EQ(result.answered(), 3U);
  for (std::size_t m = 0; m < 3; ++m) {
    EXPECT_FALSE(result.views[m].error) << result.views[m].error.message();
    EXPECT_EQ(result.views[m].children, (std::vector<std::string>{"x-1-0000000001", own(m)}));
  }
  ASSERT_EQ(result.diverged.size(), 1U);
  EXPECT_EQ(result.diverged[0].name, own(0));
  EXPECT_EQ(result.diverged[0].listed_by, 1U);
  EXPECT_EQ(result.diverged[0].answered, 3U);
  EXPECT_EQ(result.diverged[0].members, 3U);
}

TEST_F(member_views_test, MembersThatAgreeNameNothing) {
  EXPECT_TRUE(check(all_members(), "/same", {"x-1-0000000001"}).diverged.empty());
  // A node the reading member no longer has (deleted since its listing) is no divergence either.
  EXPECT_TRUE(check(all_members(), "/d", {"x-1-0000000001", "x-9-0000000099"}).diverged.empty());
}

TEST_F(member_views_test, WithoutAnAnsweringMajorityNothingCanBeTold) {
  // Member 1 and a port where nobody listens: one of the two answering members lists own(0), and one answer
  // without it is no majority of three.
  const std::string members = servers_[0]->address(0) + "," + servers_[1]->address(0) + ",127.0.0.1:1";
  const auto result = check(members, "/d", {own(0)}, 1500ms);
  EXPECT_EQ(result.answered(), 2U);
  EXPECT_TRUE(result.views[2].error);
  EXPECT_TRUE(result.diverged.empty());
}

TEST_F(member_views_test, LocksCheckMembersReportsTheDivergedNode) {
  const auto run = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {ZKWIRE_CLI_PATH, "-s", all_members(), "--connect-timeout", "20000", "locks"};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_process(argv);
  };
  // Whichever member the command reads from (its host order is random), it shows that member's own node, which
  // the other two do not list.
  const auto checked = run({"--check-members", "/d"});
  ASSERT_EQ(checked.status, 0) << checked.err;
  std::vector<json> lines;
  std::istringstream out(checked.out);
  for (std::string line; std::getline(out, line);) lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 2U) << checked.out;
  EXPECT_EQ(lines[0]["node"], "/d/x-1-0000000001");
  EXPECT_EQ(lines[0]["listed_by"], 3);
  EXPECT_EQ(lines[0]["diverged"], false);
  const std::string diverged = lines[1]["node"];
  EXPECT_EQ(diverged.rfind("/d/x-9-000000001", 0), 0U) << diverged;
  EXPECT_EQ(lines[1]["listed_by"], 1);
  EXPECT_EQ(lines[1]["answered"], 3);
  EXPECT_EQ(lines[1]["members"], 3);
  EXPECT_EQ(lines[1]["diverged"], true);
  EXPECT_NE(checked.err.find(diverged + ": listed by the member this session reads from"), std::string::npos)
      << checked.err;
  EXPECT_NE(checked.err.find("not by 2 of 3 members"), std::string::npos) << checked.err;
  // Without the flag, the lines are as they always were.
  const auto plain = run({"/d"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out.find("listed_by"), std::string::npos) << plain.out;
  EXPECT_TRUE(plain.err.empty()) << plain.err;
  // Members that agree: every node listed by all three, nothing on stderr.
  const auto same = run({"--check-members", "/same"});
  ASSERT_EQ(same.status, 0) << same.err;
  EXPECT_NE(same.out.find("\"listed_by\":3"), std::string::npos) << same.out;
  EXPECT_TRUE(same.err.empty()) << same.err;
  EXPECT_EQ(run({"--check-members", "--watch", "/d"}).status, 2);
}

}  // namespace
}  // namespace zkwire
