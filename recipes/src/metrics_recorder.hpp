#pragma once
// What a lock or semaphore object records into its own lock_metrics and the shared one of its options, at the
// points of its life where an event happens (lock_metrics.hpp, "What is counted"). It keeps the times the
// durations are measured from, on the client's clock. One per lock object; used on the client's executor only.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include "zkwire/client/client.hpp"
#include "zkwire/recipes/errors.hpp"
#include "zkwire/recipes/lock_metrics.hpp"

namespace zkwire::recipes::detail {

class metrics_recorder {
 public:
  // `clock` and `directory` are the owner's (a lock object per waiter: no copies), and outlive the recorder.
  metrics_recorder(std::shared_ptr<lock_metrics> shared, const zkwire::clock& clock, const std::string& directory,
                   lock_kind kind)
      : own_(std::make_shared<lock_metrics>()),
        shared_(std::move(shared)),
        clock_(clock),
        directory_(directory),
        kind_(kind) {}

  [[nodiscard]] const std::shared_ptr<lock_metrics>& own() const noexcept { return own_; }

  // An acquire call starts waiting.
  void acquire_started() {
    since_ = clock_.now();
    queue_position_ = no_position;
  }
  // The first listing after our node was created showed `ahead` contenders before it.
  void enqueued(std::size_t ahead) {
    if (queue_position_ != no_position) return;
    queue_position_ = static_cast<std::uint32_t>(std::min<std::size_t>(ahead, no_position - 1));
    own_->record_enqueued(ahead);
    if (shared_) shared_->record_enqueued(ahead);
  }
  // The acquire call is answered: granted (empty `ec`) or not.
  void acquire_ended(std::error_code ec) {
    const auto now = clock_.now();
    lock_metric_record r = make(lock_metric_event::acquired, now - since_);
    if (queue_position_ != no_position) r.queue_position = queue_position_;
    if (!ec) {
      since_ = now;
    } else if (ec == lock_errc::timeout) {
      r.event = lock_metric_event::timeout;
    } else if (ec == lock_errc::cancelled || ec == client_error::cancelled) {
      r.event = lock_metric_event::cancelled;
    } else {
      r.event = lock_metric_event::failed;
      r.error = ec;
    }
    record(r);
  }
  // The hold ends: released (empty `lost_reason`) or lost.
  void hold_ended(std::error_code lost_reason) {
    lock_metric_record r =
        make(lost_reason ? lock_metric_event::lost : lock_metric_event::released, clock_.now() - since_);
    if (lost_reason) {
      r.error = lost_reason;
      r.loss = classify_loss(lost_reason);
    }
    record(r);
  }
  void wakeup() {
    own_->record_wakeup();
    if (shared_) shared_->record_wakeup();
  }

 private:
  [[nodiscard]] lock_metric_record make(lock_metric_event e, proto::time_point::duration d) const {
    lock_metric_record r;
    r.event = e;
    r.directory = directory_;
    r.kind = kind_;
    r.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(d);
    return r;
  }
  void record(const lock_metric_record& r) {
    own_->record(r);
    if (shared_) shared_->record(r);
  }

  std::shared_ptr<lock_metrics> own_;
  std::shared_ptr<lock_metrics> shared_;
  const zkwire::clock& clock_;
  const std::string& directory_;
  // The acquire call's start while acquiring, the grant's while holding (an object never does both at once).
  proto::time_point since_{};
  // The current acquire's first position in the queue, no_position before it is known: 32 bits beside the kind
  // (one word; every waiting lock has a recorder, and a waiter's bytes are counted: README.md's 2 KiB). No
  // directory holds 2^32 contenders.
  static constexpr std::uint32_t no_position = UINT32_MAX;
  std::uint32_t queue_position_ = no_position;
  lock_kind kind_;
};

}  // namespace zkwire::recipes::detail
