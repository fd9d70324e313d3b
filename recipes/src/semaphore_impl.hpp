#pragma once
// The state behind zkwire::recipes::semaphore: the leases held, the pending acquire, the monitoring of held leases
// (a data watch on each lease node; the session observer and safety-margin timer are hold_monitor's) and release. The
// acquire task is in semaphore_acquire.cpp. Everything runs on the client's executor.

#include <asio/any_io_executor.hpp>
#include <asio/cancellation_signal.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "acquire_deadline.hpp"
#include "client_ops.hpp"
#include "hold_monitor.hpp"
#include "lock_impl.hpp"
#include "metrics_recorder.hpp"
#include "waiter_map.hpp"
#include "wake_event.hpp"
#include "zkwire/recipes/semaphore.hpp"

namespace zkwire::recipes::detail {

// One call of async_acquire, shared by the semaphore and the task running it (the task outlives the call when it
// cleans up after a timeout or cancellation).
struct lease_attempt {
  explicit lease_attempt(const asio::any_io_executor& executor) : wake(executor) {}
  std::uint64_t id = 0;
  std::int32_t count = 1;
  completion_ptr<> done;                 // the caller's handler, until completed
  bool abandoned = false;                // the caller got its answer (or gave up): clean up and stop
  wake_event wake;                       // the leases changed, or the caller gave up
  std::unique_ptr<wakeup> deadline;      // the acquire's timeout, on the client's clock; null without one
  acquire_deadline limits;               // the same limit, for the acquire's requests and its mutex's acquire
  asio::cancellation_signal stop_mutex;  // ends a pending acquire of the mutex when the caller gives up
  // The session's end, as the leases watch's final delivery reported it: the acquire ends with it (our lease node
  // belongs to that session, which the server may keep alive until it expires, after auth_failed for one).
  std::error_code session_end;
};

class semaphore_impl : public std::enable_shared_from_this<semaphore_impl>, public hold_monitor {
 public:
  semaphore_impl(client& c, std::string path, std::int32_t max_leases, semaphore_options options);
  ~semaphore_impl() override = default;
  semaphore_impl(const semaphore_impl&) = delete;
  semaphore_impl& operator=(const semaphore_impl&) = delete;
  semaphore_impl(semaphore_impl&&) = delete;
  semaphore_impl& operator=(semaphore_impl&&) = delete;

  std::uint64_t start_acquire(std::int32_t count, std::chrono::milliseconds timeout, completion_ptr<> done);
  void cancel_acquire(std::uint64_t id);
  std::uint64_t start_release(completion_ptr<> done);
  void cancel_release(std::uint64_t id);
  std::uint64_t start_wait_lost(completion_ptr<> done);
  void cancel_wait_lost(std::uint64_t id);
  void abandon() noexcept;

  // --- used by the acquire task ---
  void give_up(const std::shared_ptr<lease_attempt>& a, std::error_code ec);
  // We hold `leases`. False if the caller already gave up (then the task deletes them).
  bool grant(const std::shared_ptr<lease_attempt>& a, const std::vector<owned_node>& leases);

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] std::int32_t max_leases() const noexcept { return max_leases_; }
  [[nodiscard]] const semaphore_options& options() const noexcept { return options_; }
  [[nodiscard]] const std::vector<owned_node>& leases() const noexcept { return leases_; }
  [[nodiscard]] const metrics_recorder& metrics() const noexcept { return metrics_; }

 private:
  std::shared_ptr<hold_monitor> monitor_self() override { return shared_from_this(); }
  [[nodiscard]] std::vector<const owned_node*> held_nodes() const override;
  void on_lost(std::error_code reason) override;
  void on_verified(std::uint64_t generation) override;
  void end_hold();
  void watch_lease(std::size_t index, std::uint64_t generation);

  std::string path_;
  std::int32_t max_leases_;
  semaphore_options options_;

  std::vector<owned_node> leases_;

  std::shared_ptr<lease_attempt> current_;
  waiter_map releases_;
  waiter_map lost_waiters_;
  std::uint64_t next_id_ = 1;
  metrics_recorder metrics_;
};

void spawn_semaphore_acquire(const std::shared_ptr<semaphore_impl>& impl, const std::shared_ptr<lease_attempt>& a);

}  // namespace zkwire::recipes::detail
