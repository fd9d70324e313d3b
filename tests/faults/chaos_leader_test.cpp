// The chaos suite, scenario 6 of docs/design.md#chaos-scenarios: kill -9 the leader of a 3-node ensemble while writes
// are in flight (through the proxies). The client reconnects after the election on the same session; writes in flight
// when the connection broke fail with connection loss, each exactly once; later writes succeed.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "chaos_support.hpp"

namespace zkwire::test {
namespace {

using namespace std::chrono_literals;

// Keeps `width` setData requests in flight until stopped; counts every completion by request number.
class write_traffic : public std::enable_shared_from_this<write_traffic> {
 public:
  write_traffic(client& c, std::string path) : client_(c), path_(std::move(path)) {}

  // On the loop thread.
  void start(int width) {
    for (int i = 0; i < width; ++i) issue();
  }
  void stop() { running_ = false; }

  struct summary {
    int issued = 0;
    int completed = 0;
    int succeeded = 0;
    int lost = 0;
    int duplicates = 0;
    std::map<std::string, int> other;  // unexpected errors by message
    std::optional<std::chrono::steady_clock::time_point> last_success;
  };
  summary snapshot() const {
    const std::lock_guard lock(mutex_);
    return summary_;
  }

 private:
  void issue() {
    int n = 0;
    {
      const std::lock_guard lock(mutex_);
      n = summary_.issued++;
    }
    client_.async_set(path_, std::to_string(n), any_version,
                      [self = shared_from_this(), n](std::error_code ec, const stat&) { self->done(n, ec); });
  }
  void done(int n, std::error_code ec) {
    {
      const std::lock_guard lock(mutex_);
      if (!seen_.insert(n).second) ++summary_.duplicates;
      ++summary_.completed;
      if (!ec) {
        ++summary_.succeeded;
        summary_.last_success = std::chrono::steady_clock::now();
      } else if (ec == make_error_code(client_error::connection_loss)) {
        ++summary_.lost;
      } else {
        ++summary_.other[ec.message()];
      }
    }
    if (running_) issue();
  }

  client& client_;
  std::string path_;
  std::atomic<bool> running_{true};
  mutable std::mutex mutex_;
  summary summary_;
  std::set<int> seen_;
};

class leader_chaos : public chaos_test<ensemble_test> {};

TEST_F(leader_chaos, KillingTheLeaderDuringTrafficLosesOnlyInFlightWrites) {
  client& c = make_client(6000ms);
  auto o = ops(c);
  ASSERT_FALSE(o.create(root()).first);
  const auto session = o.session();
  const auto leader = cluster().leader_index();
  ASSERT_TRUE(leader.has_value());

  // 20 writes are in flight at every moment: each completion issues the next one. So whatever member the client
  // is on, writes are in flight when the leader dies, and that member drops its clients (it has no leader).
  constexpr int width = 20;
  auto traffic = std::make_shared<write_traffic>(c, root());
  loop_.on_loop([&] { traffic->start(width); });
  const auto describe = [&] {
    const auto s = traffic->snapshot();
    return std::to_string(s.issued) + " issued, " + std::to_string(s.completed) + " completed, " +
           std::to_string(s.succeeded) + " succeeded, " + std::to_string(s.lost) + " lost";
  };
  ASSERT_TRUE(eventually([&] { return traffic->snapshot().succeeded >= width; }, 30s, "writes flowing", describe));
  const auto killed_at = std::chrono::steady_clock::now();
  cluster().kill9(*leader);

  // Writes fail with connection loss, then, after the election, succeed again: wait for a batch of successes
  // issued after the kill.
  int succeeded_after = 0;
  ASSERT_TRUE(eventually(
      [&] {
        const auto s = traffic->snapshot();
        if (s.lost == 0 || !s.last_success || *s.last_success <= killed_at) return false;
        if (succeeded_after == 0) succeeded_after = s.succeeded;
        return s.succeeded >= succeeded_after + width;
      },
      60s, "writes succeeding again after the election", describe));
  traffic->stop();
  ASSERT_TRUE(eventually(
      [&] {
        const auto s = traffic->snapshot();
        return s.completed == s.issued;
      },
      30s, "every write completed", describe));
  const auto s = traffic->snapshot();
  EXPECT_EQ(s.duplicates, 0);
  EXPECT_GT(s.lost, 0) << "no write failed with connection loss when the leader died";
  ASSERT_TRUE(s.last_success.has_value());
  EXPECT_GT(*s.last_success, killed_at) << "no write succeeded after the election";
  for (const auto& [message, count] : s.other) ADD_FAILURE() << count << " writes failed with: " << message;
  EXPECT_EQ(o.session(), session);
  EXPECT_FALSE(o.set(root(), "after"));
}

}  // namespace
}  // namespace zkwire::test
