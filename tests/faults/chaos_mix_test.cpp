// The chaos suite, scenario 10 of docs/design.md#chaos-scenarios: a seeded low-rate mix of every fault the proxy has,
// during mixed traffic (creates, sets, gets, children, exists, deletes from several workers). Every operation must
// complete exactly once, with a result or a clear error, and nothing may complete after the client is closed.
//
// ZKWIRE_CHAOS_SEED=N replays a run (the seed is printed at the start and on failure); ZKWIRE_CHAOS_SECONDS is the
// total length of the mix, split between the standalone server and the ensemble (default 60).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "chaos_support.hpp"

namespace zkwire::test {
namespace {

using namespace std::chrono_literals;

// The mix: per-frame probabilities low enough that most operations get through, high enough that every fault
// happens many times a minute.
constexpr const char* mix_rules[] = {
    "reply op=create2,setData,delete p=0.01 action=drop-then-rst",  // the ambiguous-write case
    "request p=0.004 action=drop-then-rst",
    "any p=0.01 action=delay ms=150",
    "reply op=getData p=0.005 action=corrupt",
    "reply op=getData,getChildren2 p=0.004 action=duplicate",
    "reply p=0.004 action=reorder",
    "reply p=0.002 action=truncate-then-fin",
    "reply op=getData p=0.002 hex=ffffffff action=inject-then-drop",
    "any p=0.002 action=fin",
    "any p=0.001 action=blackhole",
    "any p=0.002 action=hold ms=800",
    "accept p=0.05 action=rst",
};

// An error is clear when it says what happened: a server error, or one of the client's conditions a caller can
// act on. Anything else (closed while open, invalid_argument, a raw system error) is a bug somewhere.
bool is_clear_error(const std::error_code& ec) {
  if (!ec) return true;
  if (ec.category() == proto::server_category()) return true;
  if (ec.category() != proto::client_error_category()) return false;
  switch (static_cast<client_error>(ec.value())) {
    case client_error::connection_loss:
    case client_error::session_expired:
    case client_error::protocol_violation:
    case client_error::truncated_frame:
    case client_error::frame_too_large:
      return true;
    default:
      return false;
  }
}

class mixed_traffic : public std::enable_shared_from_this<mixed_traffic> {
 public:
  mixed_traffic(client& c, std::string root, std::uint64_t seed) : client_(c), root_(std::move(root)), random_(seed) {}

  // On the loop thread: `workers` chains of one operation at a time each.
  void start(int workers) {
    for (int w = 0; w < workers; ++w) issue(w);
  }
  void stop() { running_ = false; }

  struct summary {
    int issued = 0;
    int completed = 0;
    int succeeded = 0;
    int duplicates = 0;
    int after_close = 0;
    std::map<std::string, int> errors;  // by message
    std::map<std::string, int> unclear;
  };
  summary snapshot() const {
    const std::lock_guard lock(mutex_);
    return summary_;
  }
  void mark_closed() { closed_ = true; }

 private:
  // Runs on the loop thread only (the random source is not shared).
  void issue(int worker) {
    if (!running_) return;
    int n = 0;
    {
      const std::lock_guard lock(mutex_);
      n = summary_.issued++;
      done_.push_back(0);
    }
    const std::string dir = root_ + "/w" + std::to_string(worker);
    const std::string node = dir + "/n" + std::to_string(random_() % 4);
    auto finish = [self = shared_from_this(), n, worker](std::error_code ec) { self->done(n, worker, ec); };
    switch (random_() % 7) {
      case 0:
        client_.async_create(node, "v", [finish](std::error_code ec, const create_result&) { finish(ec); });
        break;
      case 1:
        client_.async_set(node, std::to_string(n), any_version,
                          [finish](std::error_code ec, const stat&) { finish(ec); });
        break;
      case 2:
      case 3:
        client_.async_get(node, [finish](std::error_code ec, const get_result&) { finish(ec); });
        break;
      case 4:
        client_.async_get_children(dir, [finish](std::error_code ec, const children_result&) { finish(ec); });
        break;
      case 5:
        client_.async_exists(node, [finish](std::error_code ec, const std::optional<stat>&) { finish(ec); });
        break;
      default:
        client_.async_remove(node, any_version, [finish](std::error_code ec) { finish(ec); });
        break;
    }
  }

  void done(int n, int worker, std::error_code ec) {
    {
      const std::lock_guard lock(mutex_);
      if (++done_[static_cast<std::size_t>(n)] > 1) ++summary_.duplicates;
      ++summary_.completed;
      if (closed_) ++summary_.after_close;
      if (!ec) {
        ++summary_.succeeded;
      } else {
        ++summary_.errors[ec.message()];
        if (!is_clear_error(ec)) ++summary_.unclear[ec.message()];
      }
    }
    // A session that ended stays ended: stop instead of spinning on fast failures.
    if (ec && is_session_fatal(ec)) running_ = false;
    issue(worker);
  }

  client& client_;
  std::string root_;
  std::mt19937_64 random_;
  std::atomic<bool> running_{true};
  std::atomic<bool> closed_{false};
  mutable std::mutex mutex_;
  summary summary_;
  std::vector<int> done_;
};

template <class T>
class chaos_mix : public chaos_test<T> {};
TYPED_TEST_SUITE(chaos_mix, cluster_kinds, cluster_kind_names);

TYPED_TEST(chaos_mix, EveryOperationCompletesExactlyOnceUnderASeededFaultMix) {
  const auto duration = std::max<std::chrono::seconds>(chaos_duration() / 2, 1s);
  std::fprintf(stderr, "chaos mix: seed %llu, %lld s (replay with ZKWIRE_CHAOS_SEED=%llu)\n",
               static_cast<unsigned long long>(this->seed_), static_cast<long long>(duration.count()),
               static_cast<unsigned long long>(this->seed_));
  this->RecordProperty("seed", std::to_string(this->seed_));

  client& c = this->make_client(4000ms);
  auto o = this->ops(c);
  ASSERT_FALSE(o.create(this->root()).first);
  constexpr int workers = 6;
  for (int w = 0; w < workers; ++w) ASSERT_FALSE(o.create(this->root() + "/w" + std::to_string(w)).first);

  std::vector<std::vector<faults::rule_id>> rules;
  for (const char* text : mix_rules) rules.push_back(this->proxies_->add_rule(text));
  auto traffic = std::make_shared<mixed_traffic>(c, this->root(), this->seed_);
  this->loop_.on_loop([&] { traffic->start(workers); });
  std::this_thread::sleep_for(duration);
  this->proxies_->clear_rules();
  traffic->stop();

  // Everything issued completes (the last faults need at most a read timeout and a reconnect).
  EXPECT_TRUE(eventually(
      [&] {
        const auto s = traffic->snapshot();
        return s.completed >= s.issued;
      },
      60s, "every operation completed",
      [&] {
        const auto s = traffic->snapshot();
        return std::to_string(s.completed) + " of " + std::to_string(s.issued) + " completed";
      }));
  std::uint64_t faults_fired = 0;
  for (const auto& ids : rules) faults_fired += this->proxies_->fired(ids);

  // Nothing completes after the close.
  if (o.state() != session_state::expired) {
    wait_ec(this->loop_, [&](auto h) { c.async_close(std::move(h)); });
  }
  traffic->mark_closed();
  // A round trip of another client on the same loop: whatever the closed client still had queued has run by
  // the time its reply is delivered.
  EXPECT_FALSE(this->ops(this->make_direct_client()).exists("/").first);

  const auto s = traffic->snapshot();
  std::string errors;
  for (const auto& [message, count] : s.errors) errors += "  " + std::to_string(count) + " x " + message + "\n";
  std::fprintf(stderr, "chaos mix: %d ops, %d succeeded, %llu faults fired\n%s", s.issued, s.succeeded,
               static_cast<unsigned long long>(faults_fired), errors.c_str());
  EXPECT_EQ(s.completed, s.issued) << "operations never completed";
  EXPECT_EQ(s.duplicates, 0) << "operations completed twice";
  EXPECT_EQ(s.after_close, 0) << "completions after the close";
  for (const auto& [message, count] : s.unclear)
    ADD_FAILURE() << count << " ops failed with an unclear error: " << message;
  EXPECT_GT(s.succeeded, 0);
  EXPECT_GT(faults_fired, 0U);
}

}  // namespace
}  // namespace zkwire::test
