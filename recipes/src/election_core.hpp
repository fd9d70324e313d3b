#pragma once
// The state behind zkwire::recipes::election: one participant is a lock_keeper's lock on the election directory,
// made with the election's queue rule (queue_rule.hpp); this class turns the lock's events into leadership events,
// and adds what only an election has: joining versus awaiting leadership, relinquish (step down, queue again),
// leaving. Everything runs on the client's executor.
//
// A participation goes through three phases:
//   idle     not in the election;
//   joining  the call that joined is still pending and decides whether the participant stays: an async_join
//            (until our node is queued) or an async_await_leadership (until it leads, or its time runs out);
//   joined   standing: the participant stays until async_leave, joining again after losses (the keeper).

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "keeper_core.hpp"
#include "lock_impl.hpp"
#include "waiter_map.hpp"
#include "zkwire/recipes/election.hpp"

namespace zkwire::recipes::detail {

class election_core : public std::enable_shared_from_this<election_core> {
 public:
  election_core(client& c, std::string path, election_options options);
  ~election_core() = default;
  election_core(const election_core&) = delete;
  election_core& operator=(const election_core&) = delete;
  election_core(election_core&&) = delete;
  election_core& operator=(election_core&&) = delete;

  // Hooks the lock's and the keeper's events up (they keep weak pointers to this).
  void attach();

  std::uint64_t start_join(completion_ptr<> done);
  void cancel_join(std::uint64_t id);
  std::uint64_t start_await(std::chrono::milliseconds timeout, completion_ptr<> done);
  void cancel_await(std::uint64_t id);
  std::uint64_t start_relinquish(completion_ptr<> done);
  std::uint64_t start_leave(completion_ptr<> done);
  void cancel_waiting(std::uint64_t id) { releases_.finish(id, client_error::cancelled); }
  std::uint64_t start_wait_lost(completion_ptr<> done);
  void cancel_wait_lost(std::uint64_t id) { lost_waiters_.finish(id, client_error::cancelled); }
  void start_guarded_multi(std::vector<multi_op> ops, completion_ptr<std::vector<op_result>> done);
  void close() noexcept;
  // The election object goes away: leave without telling the listener, stop joining again.
  void abandon() noexcept;

  [[nodiscard]] election_state state() const noexcept;
  [[nodiscard]] std::int64_t fencing_token() const noexcept { return leading_ ? token_ : 0; }
  [[nodiscard]] std::string node_path() const { return leading_ ? node_path_of(*impl_) : std::string(); }
  [[nodiscard]] std::int64_t session_id() const noexcept { return leading_ ? session_of(*impl_) : 0; }
  [[nodiscard]] const std::string& path() const noexcept { return impl_->directory(); }
  [[nodiscard]] const std::string& id() const noexcept { return impl_->data(); }
  [[nodiscard]] election_naming naming() const noexcept { return naming_; }
  [[nodiscard]] std::uint64_t rejoins() const noexcept { return reacquisitions_of(*keeper_); }
  [[nodiscard]] std::error_code last_error() const noexcept { return last_error_; }
  [[nodiscard]] std::shared_ptr<const lock_metrics> metrics() const noexcept { return impl_->metrics().own(); }
  [[nodiscard]] client& target() const noexcept { return *client_; }
  [[nodiscard]] asio::any_io_executor executor() const { return impl_->executor(); }
  void set_listener(leadership_listener listener) {
    listener_ = listener ? std::make_unique<leadership_listener>(std::move(listener)) : nullptr;
  }
  asio::cancellation_slot lost_slot() noexcept { return lost_signal_.slot(); }

 private:
  enum class phase { idle, joining, joined };
  enum class owner_kind { join, await };

  // A pending async_join or async_await_leadership.
  struct waiter {
    std::uint64_t id = 0;
    completion_ptr<> done;
    std::unique_ptr<wakeup> timer;  // an await's own time limit while the participant is in the election
  };

  void tell(const leadership_event& e) const;
  // Starts a participation for the call `owner` with the lock's acquire limited by `timeout`.
  void begin(std::uint64_t owner, owner_kind kind, std::chrono::milliseconds timeout);
  // Queues a standing participant again (after a relinquish, or after its queued node went with its session).
  void queue_again();
  void start_acquire(std::chrono::milliseconds timeout);
  void on_acquired(std::uint64_t attempt, std::error_code ec);
  void on_enqueued();
  void on_lock_event(const lock_event& e);
  void on_keeper_gave_up(std::error_code ec);
  // The participation is over (`ec`: why; empty after a leave): pending joins and awaits complete with `ec`.
  void end(std::error_code ec);
  static void finish_waiters(std::vector<waiter>& waiters, std::error_code ec);
  static void finish_waiter(std::vector<waiter>& waiters, std::uint64_t id, std::error_code ec);
  // Gives the lock up: cancels a pending acquire, stops the keeper and releases; `done` when the node is deleted.
  void give_up_lock(completion_ptr<> done);

  client* client_;
  election_naming naming_;
  bool rejoin_;
  lock_ptr impl_;
  keeper_ptr keeper_;

  phase phase_ = phase::idle;
  owner_kind owner_kind_ = owner_kind::join;
  std::uint64_t owner_ = 0;       // the call that joined, while joining
  std::uint64_t attempt_ = 0;     // bumped by every acquire we start: older completions are stale
  std::uint64_t acquire_id_ = 0;  // the lock's id of our acquire in flight (0: none), for its cancellation
  bool enqueued_ = false;         // the current attempt's node was seen in the queue
  bool leading_ = false;
  std::int64_t token_ = 0;
  std::error_code last_error_;
  std::vector<waiter> joins_;
  std::vector<waiter> awaits_;
  waiter_map releases_;  // async_relinquish and async_leave
  waiter_map lost_waiters_;
  asio::cancellation_signal lost_signal_;
  std::unique_ptr<leadership_listener> listener_;
  std::uint64_t next_id_ = 1;
};

}  // namespace zkwire::recipes::detail
