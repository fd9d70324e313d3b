#pragma once
// Helpers of the chaos suite: a fault-injection proxy in front of every member of the suite's ZooKeeper cluster,
// a fixture templated on the cluster kind (standalone or 3-node ensemble), the seed and duration knobs, and
// blocking waits for client operations started on the loop thread.
//
// Everything asynchronous (the client and the proxies) runs on one io_context owned by the fixture's loop thread;
// the test thread starts operations with on_loop() and waits for their completions.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "client_test_support.hpp"
#include "support/eventually.hpp"
#include "support/state_recorder.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/faults/proxy.hpp"

namespace zkwire::test {

// ZKWIRE_CHAOS_SEED if set (to replay a failure), else a random non-zero seed.
std::uint64_t chaos_seed();
// ZKWIRE_CHAOS_SECONDS if set, else 60: the total length of the seeded fault mix.
std::chrono::seconds chaos_duration();

// One proxy per cluster member, each forwarding to that member; all run on `io`.
// Thread safety: the member functions may be called from any thread (the proxies' are thread-safe).
class proxied_cluster {
 public:
  proxied_cluster(asio::io_context& io, const zk_cluster& cluster, std::uint64_t seed);

  [[nodiscard]] std::size_t size() const noexcept { return proxies_.size(); }
  faults::proxy& at(std::size_t i) { return *proxies_.at(i); }
  // "127.0.0.1:p1,127.0.0.1:p2,..." of the proxies, in member order.
  [[nodiscard]] std::string connect_string() const;
  // The proxy listening on `port`, or size() if none.
  [[nodiscard]] std::size_t index_of_port(std::uint16_t port) const;

  // Adds the rule to every proxy (fails the test if it does not parse); returns the ids, one per proxy.
  std::vector<faults::rule_id> add_rule(std::string_view text);
  void clear_rules();
  // Total `fired` over the proxies of the ids add_rule returned.
  [[nodiscard]] std::uint64_t fired(const std::vector<faults::rule_id>& ids) const;
  void cut_connections(faults::cut_kind how);

  // The last lines of the proxies' frame logs, for failure messages. Without pings: the exchange a stuck client had
  // last, which an idle connection's pings would otherwise push out of the tail.
  [[nodiscard]] std::string log_tail(std::size_t lines = 60, bool pings = true) const;

 private:
  // Shared with the proxies' log callbacks, which may run after this object is gone (while the loop winds down).
  struct log_buffer {
    std::mutex mutex;
    std::deque<std::string> lines;
  };
  std::shared_ptr<log_buffer> log_ = std::make_shared<log_buffer>();
  std::vector<std::unique_ptr<faults::proxy>> proxies_;
};

// Starts `start(handler)` on the loop thread and waits for the handler's (error_code, Result).
template <class Result, class Start>
std::pair<std::error_code, Result> wait_result(loop_thread& loop, Start start,
                                               std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  auto promise = std::make_shared<std::promise<std::pair<std::error_code, Result>>>();
  auto future = promise->get_future();
  loop.on_loop([&] { start([promise](std::error_code ec, Result r) { promise->set_value({ec, std::move(r)}); }); });
  if (future.wait_for(timeout) != std::future_status::ready) throw std::runtime_error("operation did not complete");
  return future.get();
}

// The same for operations whose handler takes only an error_code.
template <class Start>
std::error_code wait_ec(loop_thread& loop, Start start, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  auto promise = std::make_shared<std::promise<std::error_code>>();
  auto future = promise->get_future();
  loop.on_loop([&] { start([promise](std::error_code ec) { promise->set_value(ec); }); });
  if (future.wait_for(timeout) != std::future_status::ready) throw std::runtime_error("operation did not complete");
  return future.get();
}

// Blocking calls on a client that lives on `loop` (each waits at most 30 s, then throws).
struct blocking_ops {
  loop_thread& loop;
  client& c;

  std::error_code connect() {
    return wait_ec(loop, [&](auto h) { c.async_connect(std::move(h)); });
  }
  std::pair<std::error_code, create_result> create(std::string path, std::string data = {},
                                                   const create_options& options = {}) {
    return wait_result<create_result>(
        loop, [&](auto h) { c.async_create(std::move(path), std::move(data), options, std::move(h)); });
  }
  std::pair<std::error_code, get_result> get(std::string path) {
    return wait_result<get_result>(loop, [&](auto h) { c.async_get(std::move(path), std::move(h)); });
  }
  std::pair<std::error_code, std::optional<zkwire::stat>> exists(std::string path) {
    return wait_result<std::optional<zkwire::stat>>(loop,
                                                    [&](auto h) { c.async_exists(std::move(path), std::move(h)); });
  }
  std::pair<std::error_code, children_result> children(std::string path) {
    return wait_result<children_result>(loop, [&](auto h) { c.async_get_children(std::move(path), std::move(h)); });
  }
  // Waits until the server caught up with the leader.
  std::error_code sync(std::string path) {
    return wait_ec(loop, [&](auto h) { c.async_sync(std::move(path), std::move(h)); });
  }
  std::error_code set(std::string path, std::string data) {
    return wait_result<zkwire::stat>(
               loop, [&](auto h) { c.async_set(std::move(path), std::move(data), any_version, std::move(h)); })
        .first;
  }
  std::int64_t session() {
    return loop.on_loop([&] { return c.session_id(); });
  }
  session_state state() {
    return loop.on_loop([&] { return c.state(); });
  }
};

// What the suite fixture gives each test: a loop thread, the proxies, and clients created on the loop.
template <class ClusterFixture>
class chaos_test : public ClusterFixture {
 protected:
  void SetUp() override {
    ClusterFixture::SetUp();
    if (::testing::Test::HasFatalFailure()) return;
    seed_ = chaos_seed();
    proxies_ = std::make_unique<proxied_cluster>(loop_.io(), ClusterFixture::cluster(), seed_);
  }

  void TearDown() override {
    if (::testing::Test::HasFailure()) {
      std::fprintf(stderr, "chaos: seed %llu (replay with ZKWIRE_CHAOS_SEED=%llu)\nproxy log tail:\n%s\n",
                   static_cast<unsigned long long>(seed_), static_cast<unsigned long long>(seed_),
                   proxies_ ? proxies_->log_tail().c_str() : "");
    }
    loop_.on_loop([this] {
      clients_.clear();
      proxies_.reset();
    });
  }

  // A client of the proxies, created on the loop thread and owned by the fixture.
  blocking_ops ops(client& c) { return blocking_ops{loop_, c}; }

  // A rule on the proxy of the member `c` is connected to (a rule with nth=/count= on every proxy would fire once
  // per member); returns the proxy's index and the rule's id there.
  struct placed_rule {
    std::size_t proxy = 0;
    faults::rule_id id = 0;
  };
  placed_rule add_rule_here(client& c, std::string_view text) {
    const auto host = loop_.on_loop([&] { return c.connected_host(); });
    EXPECT_TRUE(host.has_value()) << "the client is not connected";
    placed_rule placed;
    placed.proxy = host ? proxies_->index_of_port(host->port) : 0;
    std::string error;
    placed.id = proxies_->at(placed.proxy).add_rule(text, &error).value_or(0);
    EXPECT_NE(placed.id, 0U) << text << ": " << error;
    return placed;
  }
  std::uint64_t fired(const placed_rule& r) {
    const auto counters = proxies_->at(r.proxy).counters(r.id);
    return counters ? counters->fired : 0;
  }

  client& make_client(std::chrono::milliseconds session_timeout) {
    return *loop_.on_loop([&] {
      auto options = client_options_for(proxies_->connect_string(), session_timeout);
      clients_.push_back(std::make_unique<client>(loop_.io().get_executor(), std::move(options)));
      return clients_.back().get();
    });
  }

  // A client connected straight to the servers, to check outcomes without faults.
  client& make_direct_client() {
    return *loop_.on_loop([&] {
      clients_.push_back(
          std::make_unique<client>(loop_.io().get_executor(), client_options_for(ClusterFixture::connect_string())));
      return clients_.back().get();
    });
  }

  loop_thread loop_;
  std::uint64_t seed_ = 0;
  std::unique_ptr<proxied_cluster> proxies_;
  std::vector<std::unique_ptr<client>> clients_;
};

// Names the typed instantiations "standalone" and "ensemble".
struct cluster_kind_names {
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, standalone_test> ? "standalone" : "ensemble";
  }
};

using cluster_kinds = ::testing::Types<standalone_test, ensemble_test>;

}  // namespace zkwire::test
