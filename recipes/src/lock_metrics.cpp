// lock_metrics: the counters behind lock::metrics() and lock_options::metrics.

#include "zkwire/recipes/lock_metrics.hpp"

#include <numeric>

#include "zkwire/client/client.hpp"
#include "zkwire/recipes/errors.hpp"

namespace zkwire::recipes {

std::string_view loss_reason_name(loss_reason r) noexcept {
  switch (r) {
    case loss_reason::session_expired:
      return "session_expired";
    case loss_reason::session_closed:
      return "session_closed";
    case loss_reason::node_deleted:
      return "node_deleted";
    case loss_reason::safety_margin:
      return "safety_margin";
    case loss_reason::session_changed:
      return "session_changed";
    case loss_reason::connection_lost:
      return "connection_lost";
    case loss_reason::auth_failed:
      return "auth_failed";
    case loss_reason::other:
      break;
  }
  return "other";
}

loss_reason classify_loss(std::error_code reason) noexcept {
  if (reason == client_error::session_expired) return loss_reason::session_expired;
  if (reason == client_error::closed) return loss_reason::session_closed;
  if (reason == lock_errc::node_deleted) return loss_reason::node_deleted;
  if (reason == lock_errc::safety_margin_passed) return loss_reason::safety_margin;
  if (reason == lock_errc::session_changed) return loss_reason::session_changed;
  if (reason == client_error::connection_loss) return loss_reason::connection_lost;
  if (reason == server_error::auth_failed) return loss_reason::auth_failed;
  return loss_reason::other;
}

std::string_view lock_metric_event_name(lock_metric_event e) noexcept {
  switch (e) {
    case lock_metric_event::acquired:
      return "acquired";
    case lock_metric_event::timeout:
      return "timeout";
    case lock_metric_event::cancelled:
      return "cancelled";
    case lock_metric_event::failed:
      return "failed";
    case lock_metric_event::lost:
      return "lost";
    case lock_metric_event::released:
      break;
  }
  return "released";
}

std::uint64_t lock_metrics_snapshot::losses_total() const noexcept {
  return std::accumulate(losses.begin(), losses.end(), std::uint64_t{0});
}

lock_metrics_snapshot lock_metrics::snapshot() const {
  const std::lock_guard guard(mutex_);
  lock_metrics_snapshot s;
  s.acquisitions = counts_.acquisitions;
  s.timeouts = counts_.timeouts;
  s.cancellations = counts_.cancellations;
  s.failures = counts_.failures;
  s.releases = counts_.releases;
  s.wakeups = counts_.wakeups;
  s.queue_position = counts_.queue_position;
  if (durations_) {
    s.wait_time = durations_->wait_time;
    s.hold_time = durations_->hold_time;
    s.losses = durations_->losses;
  }
  return s;
}

lock_metrics::duration_histograms& lock_metrics::durations() {
  if (!durations_) durations_ = std::make_unique<duration_histograms>();
  return *durations_;
}

void lock_metrics::record(const lock_metric_record& r) {
  const double seconds = std::chrono::duration<double>(r.duration).count();
  {
    const std::lock_guard guard(mutex_);
    switch (r.event) {
      case lock_metric_event::acquired:
        ++counts_.acquisitions;
        observe(durations().wait_time, duration_bounds, seconds);
        break;
      case lock_metric_event::timeout:
        ++counts_.timeouts;
        break;
      case lock_metric_event::cancelled:
        ++counts_.cancellations;
        break;
      case lock_metric_event::failed:
        ++counts_.failures;
        break;
      case lock_metric_event::lost:
        ++durations().losses.at(static_cast<std::size_t>(r.loss));
        observe(durations().hold_time, duration_bounds, seconds);
        break;
      case lock_metric_event::released:
        ++counts_.releases;
        observe(durations().hold_time, duration_bounds, seconds);
        break;
    }
  }
  if (observer_) (*observer_)(r);
}

void lock_metrics::record_enqueued(std::size_t ahead) {
  const std::lock_guard guard(mutex_);
  observe(counts_.queue_position, position_bounds, static_cast<double>(ahead));
}

void lock_metrics::record_wakeup() {
  const std::lock_guard guard(mutex_);
  ++counts_.wakeups;
}

}  // namespace zkwire::recipes
