// Contention metrics (lock_metrics.hpp) against a real standalone ZooKeeper: a scripted scenario whose every
// event must be counted exactly once, in the lock object's own metrics, in the shared (per-client) metrics and by
// the observer; histogram counts equal to event counts; queue positions equal to the contenders ahead; the
// semaphore's events.

#include <gtest/gtest.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/blocking_client.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::lock;
using recipes::lock_errc;
using recipes::lock_metric_event;
using recipes::lock_metrics;
using recipes::lock_metrics_snapshot;
using recipes::loss_reason;
using test::run_co;
using test::tuple_awaitable;
using namespace std::chrono_literals;

class lock_metrics_test : public test::standalone_test {
 protected:
  [[nodiscard]] std::string dir() const { return root() + "/locks/job"; }
};

// What the observer saw, by event (it runs on the client's executor: the test's thread).
struct observed {
  std::map<lock_metric_event, int> events;
  std::vector<recipes::lock_metric_record> acquired;  // with the directory copied out
  std::vector<std::string> directories;
  std::vector<loss_reason> losses;
};

std::size_t sum(const std::array<std::uint64_t, recipes::position_bounds.size() + 1>& counts) {
  std::size_t n = 0;
  for (const auto c : counts) n += c;
  return n;
}

TEST_F(lock_metrics_test, ScriptedScenarioCountsEveryEventOnce) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  auto other = test::new_client(io, connect_string());
  observed seen;
  auto per_client = std::make_shared<lock_metrics>([&](const recipes::lock_metric_record& r) {
    ++seen.events[r.event];
    seen.directories.emplace_back(r.directory);
    if (r.event == lock_metric_event::acquired) seen.acquired.push_back(r);
    if (r.event == lock_metric_event::lost) seen.losses.push_back(r.loss);
  });
  recipes::lock_options options;
  options.metrics = per_client;
  lock a(*c, dir(), options);
  lock b(*c, dir(), options);
  lock d(*c, dir(), options);
  asio::cancellation_signal cancel_b;

  run_co(io, [&]() -> asio::awaitable<void> {
    // 3 uncontended acquisitions and releases: queue position 0 each.
    for (int i = 0; i < 3; ++i) {
      co_await a.async_acquire(5s, use_awaitable);
      co_await a.async_release(use_awaitable);
    }
    // a holds; b times out behind it (position 1).
    co_await a.async_acquire(5s, use_awaitable);
    auto [timed_out] = co_await b.async_acquire(300ms, tuple_awaitable);
    EXPECT_EQ(timed_out, lock_errc::timeout);
    // The node of a given-up acquire is deleted in the background: until then it is a contender ahead too.
    EXPECT_TRUE(co_await test::wait_for_children(*c, dir(), 1));
    // b waits again (position 1) and is cancelled once it has enqueued.
    auto cancelled = b.async_acquire(asio::bind_cancellation_slot(cancel_b.slot(), asio::use_future));
    const bool b_enqueued =
        co_await test::co_eventually([&] { return b.metrics()->snapshot().queue_position.count == 2; });
    ZKWIRE_CO_ASSERT(b_enqueued);
    cancel_b.emit(asio::cancellation_type::terminal);
    const bool b_answered =
        co_await test::co_eventually([&] { return cancelled.wait_for(0s) == std::future_status::ready; });
    ZKWIRE_CO_ASSERT(b_answered);
    EXPECT_THROW(cancelled.get(), std::system_error);
    EXPECT_TRUE(co_await test::wait_for_children(*c, dir(), 1));
    // b (position 1) and d (position 2) queue behind a; each release hands over to the next.
    auto b_granted = b.async_acquire(asio::use_future);
    const bool b_queued =
        co_await test::co_eventually([&] { return b.metrics()->snapshot().queue_position.count == 3; });
    ZKWIRE_CO_ASSERT(b_queued);
    auto d_granted = d.async_acquire(asio::use_future);
    const bool d_queued =
        co_await test::co_eventually([&] { return d.metrics()->snapshot().queue_position.count == 1; });
    ZKWIRE_CO_ASSERT(d_queued);
    co_await a.async_release(use_awaitable);
    const bool b_holds =
        co_await test::co_eventually([&] { return b_granted.wait_for(0s) == std::future_status::ready; });
    ZKWIRE_CO_ASSERT(b_holds);
    b_granted.get();
    co_await b.async_release(use_awaitable);
    const bool d_holds =
        co_await test::co_eventually([&] { return d_granted.wait_for(0s) == std::future_status::ready; });
    ZKWIRE_CO_ASSERT(d_holds);
    d_granted.get();
    co_await d.async_release(use_awaitable);
    // a holds again and loses the lock: another client deletes its node.
    co_await a.async_acquire(5s, use_awaitable);
    co_await other->async_remove(a.node_path(), -1, use_awaitable);
    auto [lost] = co_await a.async_wait_lost(tuple_awaitable);
    EXPECT_EQ(lost, lock_errc::lock_lost);
    auto [released_lost] = co_await a.async_release(tuple_awaitable);
    EXPECT_EQ(released_lost, lock_errc::lock_lost);  // the end of a lost hold is not a second event
  }());

  const lock_metrics_snapshot all = per_client->snapshot();
  // a: 3 + 1 + 1, b: 1, d: 1.
  EXPECT_EQ(all.acquisitions, 7U);
  EXPECT_EQ(all.timeouts, 1U);
  EXPECT_EQ(all.cancellations, 1U);
  EXPECT_EQ(all.failures, 0U);
  EXPECT_EQ(all.releases, 6U);
  EXPECT_EQ(all.losses_total(), 1U);
  EXPECT_EQ(all.lost(loss_reason::node_deleted), 1U);
  EXPECT_EQ(all.wait_time.count, all.acquisitions);
  EXPECT_EQ(all.hold_time.count, all.releases + all.losses_total());
  // Enqueued: a 5 times at 0; b 3 times at 1; d once at 2.
  EXPECT_EQ(all.queue_position.count, 9U);
  EXPECT_EQ(all.queue_position.counts[0], 5U);  // le 0
  EXPECT_EQ(all.queue_position.counts[1], 3U);  // le 1
  EXPECT_EQ(all.queue_position.counts[2], 1U);  // le 2
  EXPECT_EQ(sum(all.queue_position.counts), 9U);
  EXPECT_DOUBLE_EQ(all.queue_position.sum, 5.0);
  // One wakeup each for b and d (no herd), as lock::wakeups() says.
  EXPECT_EQ(all.wakeups, a.wakeups() + b.wakeups() + d.wakeups());
  EXPECT_EQ(all.wakeups, 2U);

  // Each object's own metrics count its own events only.
  const auto mine = b.metrics()->snapshot();
  EXPECT_EQ(mine.acquisitions, 1U);
  EXPECT_EQ(mine.timeouts, 1U);
  EXPECT_EQ(mine.cancellations, 1U);
  EXPECT_EQ(mine.releases, 1U);
  EXPECT_EQ(mine.losses_total(), 0U);
  EXPECT_EQ(a.metrics()->snapshot().acquisitions, 5U);
  EXPECT_EQ(a.metrics()->snapshot().lost(loss_reason::node_deleted), 1U);
  EXPECT_EQ(d.metrics()->snapshot().acquisitions, 1U);

  // The observer: once per event.
  EXPECT_EQ(seen.events[lock_metric_event::acquired], 7);
  EXPECT_EQ(seen.events[lock_metric_event::timeout], 1);
  EXPECT_EQ(seen.events[lock_metric_event::cancelled], 1);
  EXPECT_EQ(seen.events[lock_metric_event::failed], 0);
  EXPECT_EQ(seen.events[lock_metric_event::released], 6);
  EXPECT_EQ(seen.events[lock_metric_event::lost], 1);
  EXPECT_EQ(seen.losses, std::vector<loss_reason>{loss_reason::node_deleted});
  for (const auto& directory : seen.directories) EXPECT_EQ(directory, dir());
  // The acquired events carry the queue position of their acquire: b's grant was at 1, d's at 2.
  ASSERT_EQ(seen.acquired.size(), 7U);
  EXPECT_EQ(seen.acquired[4].queue_position, std::optional<std::size_t>(1));
  EXPECT_EQ(seen.acquired[5].queue_position, std::optional<std::size_t>(2));
  for (const std::size_t i : {0U, 1U, 2U, 3U, 6U})
    EXPECT_EQ(seen.acquired[i].queue_position, std::optional<std::size_t>(0));
}

TEST_F(lock_metrics_test, SemaphoreCountsAcquisitionsTimeoutsAndReleases) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  auto shared = std::make_shared<lock_metrics>();
  recipes::semaphore_options options;
  options.metrics = shared;
  recipes::semaphore first(*c, dir(), 1, options);
  recipes::semaphore second(*c, dir(), 1, options);
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await first.async_acquire(5s, use_awaitable);
    auto [ec] = co_await second.async_acquire(0ms, tuple_awaitable);
    EXPECT_EQ(ec, lock_errc::timeout);
    co_await first.async_release(use_awaitable);
    co_await second.async_acquire(5s, use_awaitable);
    co_await second.async_release(use_awaitable);
  }());
  const auto all = shared->snapshot();
  EXPECT_EQ(all.acquisitions, 2U);
  EXPECT_EQ(all.timeouts, 1U);
  EXPECT_EQ(all.releases, 2U);
  EXPECT_EQ(all.wait_time.count, 2U);
  EXPECT_EQ(all.hold_time.count, 2U);
  EXPECT_EQ(all.queue_position.count, 0U);  // the semaphore's leases are no queue
  EXPECT_EQ(first.metrics()->snapshot().acquisitions, 1U);
  EXPECT_EQ(second.metrics()->snapshot().timeouts, 1U);
}

// A blocking_lock's metrics, read by a thread of their own all the while the client's loop thread records them: a
// snapshot is taken under the metrics' mutex. Nothing orders that thread's reads after the loop thread's writes,
// so a snapshot without the mutex is a data race, which ThreadSanitizer reports (CI runs this file in its tsan
// tree, tests/threads).
TEST_F(lock_metrics_test, BlockingLockMetricsAreReadFromAnotherThread) {
  blocking_client c(test::client_options_for(connect_string(), 10s));
  c.connect();
  auto shared = std::make_shared<lock_metrics>();
  recipes::lock_options options;
  options.metrics = shared;
  recipes::blocking_lock job(c, dir(), options);
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> reads{0};
  std::thread reader([&] {
    while (!stop.load()) {
      const auto s = job.metrics()->snapshot();
      const auto all = shared->snapshot();
      EXPECT_LE(s.releases, s.acquisitions);
      EXPECT_LE(all.releases, all.acquisitions);
      reads.fetch_add(1);
      std::this_thread::yield();
    }
  });
  // The reader is reading before the first record, and still when the last release is recorded.
  EXPECT_TRUE(test::eventually([&] { return reads.load() > 0; }, 10s, "the reader's first snapshot"));
  for (int i = 0; i < 3; ++i) {
    const std::unique_lock hold(job);
    EXPECT_EQ(job.metrics()->snapshot().acquisitions, static_cast<std::uint64_t>(i + 1));
  }
  const auto before_stop = reads.load();
  EXPECT_TRUE(test::eventually([&] { return reads.load() > before_stop; }, 10s, "a snapshot after the last release"));
  stop = true;
  reader.join();
  const auto all = shared->snapshot();
  EXPECT_EQ(all.acquisitions, 3U);
  EXPECT_EQ(all.releases, 3U);
  EXPECT_EQ(all.hold_time.count, 3U);
  EXPECT_EQ(job.metrics()->snapshot(), all);  // one object: its own metrics and the shared ones agree
}

}  // namespace
}  // namespace zkwire
