#pragma once
// Contention metrics of the lock recipes: how often locks are granted, time out, are cancelled or lost (and why),
// how long acquires wait and holds last, how deep the queue was when a contender enqueued, and how often waiters
// were woken. No dependency beyond the standard library; exposition formats are built on the snapshot
// (metrics_exposition.hpp has Prometheus' text format).
//
// Ownership
//   Every lock and semaphore object counts its own events in a lock_metrics of its own (lock::metrics(),
//   semaphore::metrics()). For an aggregate, make one lock_metrics and pass it in lock_options::metrics (or
//   semaphore_options::metrics) to every object that should count into it: typically every lock object created on
//   one zkwire::client (a per-client aggregate), or every lock on one directory, or the whole process. An object
//   counts each event once in its own metrics and once in the shared one. Both sides of a read_write_lock get the
//   same options, so they count into the same shared object (the event says which side).
//
//   auto per_client = std::make_shared<zkwire::recipes::lock_metrics>();
//   zkwire::recipes::lock_options options;
//   options.metrics = per_client;
//   zkwire::recipes::lock a(c, "/locks/a", options), b(c, "/locks/b", options);
//   ... per_client->snapshot() from any thread ...
//
// What is counted (per acquire call that started waiting; refusals such as already_held and reentrant count-ups
// are not contention and are not counted)
//   acquisitions, timeouts (lock_errc::timeout, also a failed try-once), cancellations (lock_errc::cancelled,
//   including the object's destruction), failures (any other error ending an acquire); so
//   acquisitions + timeouts + cancellations + failures = acquires started and answered.
//   wait_time: from the call to the grant, one sample per acquisition. hold_time: from the grant to the release
//   (the release call that deletes the node) or to the loss, one sample per hold: its count is
//   releases + losses. A lost lock's later async_release is not a second end of that hold.
//   losses by loss_reason, from the lock_event reason of the transition to `lost`.
//   queue_position: the contenders ahead of our node (in lock order, whatever their kind) in the first listing
//   after our node was created: 0 when granted at once. One sample per acquire that got that far (none for the
//   semaphore, whose leases are not a queue). wakeups: lock::wakeups(), summed.
//
// Thread safety
//   snapshot() may be called from any thread at any time: the counters are guarded by a mutex held only to copy or
//   bump a few integers (uncontended: tens of nanoseconds, against the round trips every event costs). A snapshot
//   is consistent: e.g. wait_time.count == acquisitions in every snapshot. The recipes record on the client's
//   executor. The observer is called on the recording thread (the client's executor) after the counters were
//   updated, without the mutex held; it must not throw and should be quick (it runs inside the lock's event
//   handling). It is fixed at construction, so no call races a replacement.
//
// Lifetime: held by shared_ptr; objects that count into it keep it alive.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <system_error>

#include "zkwire/recipes/node_name.hpp"

namespace zkwire::recipes {

// Why a held lock was lost, from lock_event::reason.
enum class loss_reason : std::uint8_t {
  session_expired,  // client_error::session_expired
  session_closed,   // client_error::closed: the client was closed or destroyed
  node_deleted,     // lock_errc::node_deleted: someone deleted our node
  safety_margin,    // lock_errc::safety_margin_passed: no answer for session_timeout - safety margin
  session_changed,  // lock_errc::session_changed: the client runs another session now
  connection_lost,  // client_error::connection_loss: the client gave the session up as lost
  auth_failed,      // server_error::auth_failed
  other,            // anything else
};
inline constexpr std::size_t loss_reason_count = 8;
// "session_expired", "session_closed", "node_deleted", "safety_margin", "session_changed", "connection_lost",
// "auth_failed", "other".
std::string_view loss_reason_name(loss_reason r) noexcept;
loss_reason classify_loss(std::error_code reason) noexcept;

// A histogram with fixed upper bounds (no allocation when recording). Buckets are not cumulative: counts[i] are
// the samples in (bounds[i-1], bounds[i]]; counts.back() those above the last bound.
template <std::size_t Bounds>
struct fixed_histogram {
  std::array<std::uint64_t, Bounds + 1> counts{};
  std::uint64_t count = 0;
  double sum = 0;  // in the unit of the bounds
  friend bool operator==(const fixed_histogram&, const fixed_histogram&) = default;
};

// Upper bounds of the duration histograms, in seconds: 1-2.5-5 per decade from 1 ms to 100 s, then +Inf.
inline constexpr std::array<double, 16> duration_bounds = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                           0.5,   1,      2.5,   5,    10,    25,   50,  100};
// Upper bounds of the queue-position histogram (contenders ahead): powers of two, then +Inf.
inline constexpr std::array<double, 11> position_bounds = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

using duration_histogram = fixed_histogram<duration_bounds.size()>;
using position_histogram = fixed_histogram<position_bounds.size()>;

// Adds one sample (`value` in the bounds' unit).
template <std::size_t Bounds>
void observe(fixed_histogram<Bounds>& h, const std::array<double, Bounds>& bounds, double value) noexcept {
  std::size_t i = 0;
  while (i < Bounds && value > bounds[i]) ++i;
  ++h.counts[i];
  ++h.count;
  h.sum += value;
}

// A copy of the counters at one moment; plain data.
struct lock_metrics_snapshot {
  std::uint64_t acquisitions = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t cancellations = 0;
  std::uint64_t failures = 0;
  std::uint64_t releases = 0;
  std::array<std::uint64_t, loss_reason_count> losses{};  // by loss_reason
  std::uint64_t wakeups = 0;
  duration_histogram wait_time;       // seconds
  duration_histogram hold_time;       // seconds
  position_histogram queue_position;  // contenders ahead at enqueue

  [[nodiscard]] std::uint64_t losses_total() const noexcept;
  [[nodiscard]] std::uint64_t lost(loss_reason r) const noexcept { return losses.at(static_cast<std::size_t>(r)); }
  friend bool operator==(const lock_metrics_snapshot&, const lock_metrics_snapshot&) = default;
};

enum class lock_metric_event : std::uint8_t { acquired, timeout, cancelled, failed, lost, released };
std::string_view lock_metric_event_name(lock_metric_event e) noexcept;  // "acquired", "timeout", ...

// One event, as the observer sees it.
struct lock_metric_record {
  lock_metric_event event = lock_metric_event::acquired;
  std::string_view directory;             // the lock directory (the semaphore's path); valid during the call only
  lock_kind kind = lock_kind::exclusive;  // the semaphore reports exclusive
  // acquired, timeout, cancelled, failed: since the acquire call. lost, released: since the grant.
  std::chrono::nanoseconds duration{0};
  // Contenders ahead at enqueue (acquire events), when the acquire got that far.
  std::optional<std::size_t> queue_position;
  std::error_code error;                  // failed: the error; lost: lock_event::reason
  loss_reason loss = loss_reason::other;  // lost only
};
// Called once per event; see "Thread safety".
using lock_observer = std::function<void(const lock_metric_record&)>;

class lock_metrics {
 public:
  lock_metrics() = default;
  explicit lock_metrics(lock_observer observer)
      : observer_(observer ? std::make_unique<const lock_observer>(std::move(observer)) : nullptr) {}

  // Any thread.
  [[nodiscard]] lock_metrics_snapshot snapshot() const;

  // --- recording (the recipes call these; a wrapper of its own may too). Any thread. ---
  // Counts the event (the histogram sample its duration makes, if any) and calls the observer.
  void record(const lock_metric_record& r);
  void record_enqueued(std::size_t ahead);
  void record_wakeup();

 private:
  struct counts {
    std::uint64_t acquisitions = 0;
    std::uint64_t timeouts = 0;
    std::uint64_t cancellations = 0;
    std::uint64_t failures = 0;
    std::uint64_t releases = 0;
    std::uint64_t wakeups = 0;
    position_histogram queue_position;
  };
  // Made with their first sample (a grant; a loss comes after one): every lock object has its metrics, and one that
  // has not held yet (a waiter among many) does not pay for these.
  struct duration_histograms {
    duration_histogram wait_time;
    duration_histogram hold_time;
    std::array<std::uint64_t, loss_reason_count> losses{};
  };
  duration_histograms& durations();  // under mutex_

  mutable std::mutex mutex_;
  counts counts_;
  std::unique_ptr<duration_histograms> durations_;
  const std::unique_ptr<const lock_observer> observer_;  // a pointer: most lock objects have none
};

}  // namespace zkwire::recipes
