#pragma once
// The state behind zkwire::recipes::lock: what is held, the pending acquire, the monitoring of a held lock
// (own-node watch; the session observer and safety-margin timer are hold_monitor's) and release. The acquire task
// itself is in acquire.cpp. Everything runs on the client's executor.

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/cancellation_signal.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "acquire_deadline.hpp"
#include "client_ops.hpp"
#include "hold_monitor.hpp"
#include "metrics_recorder.hpp"
#include "queue_rule.hpp"
#include "waiter_map.hpp"
#include "wake_event.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire::recipes::detail {

// After a create whose outcome is unknown: our node, if the create happened in the current session.
struct recovery {
  std::error_code error;  // the session ended (or an unexpected error)
  std::optional<owned_node> node;
  bool other_session = false;  // a node with our prefix exists but belongs to an earlier session
};

// Looks for the child of `directory` named `prefix` + sequence once connected (after a sync, so a follower has
// applied our create) and adopts it only if its ephemeralOwner is the client's current session. Used by the lock's
// and the semaphore's acquire tasks (acquire.cpp).
asio::awaitable<recovery> find_own_node(link_ptr link, std::string directory, std::string prefix);

// One call of async_acquire, shared by the lock and the task running it: the task outlives the call when it has
// to clean up after a timeout or cancellation.
struct attempt {
  attempt() = default;
  ~attempt() = default;  // the acquire task derives from it (and is destroyed as such: make_attempt)
  attempt(const attempt&) = delete;
  attempt& operator=(const attempt&) = delete;
  attempt(attempt&&) = delete;
  attempt& operator=(attempt&&) = delete;
  std::uint64_t id = 0;
  completion_ptr<> done;             // the caller's handler, until completed
  bool abandoned = false;            // the caller got its answer (or gave up): clean up and stop
  resume_event wake;                 // a watched blocker changed, or the caller gave up (resumes a parked task)
  std::unique_ptr<wakeup> deadline;  // the acquire's timeout, on the client's clock; null without one
  acquire_deadline limits;           // the same limit, for the acquire's requests
};

class lock_impl : public std::enable_shared_from_this<lock_impl>, public hold_monitor {
 public:
  // `rule`: how the node is named and ordered (queue_rule.hpp); the lock's own rule for its naming and kind when
  // null. An election passes its own.
  lock_impl(client& c, std::string directory, lock_kind kind, lock_options options, const queue_rule* rule = nullptr);
  ~lock_impl() override = default;
  lock_impl(const lock_impl&) = delete;
  lock_impl& operator=(const lock_impl&) = delete;
  lock_impl(lock_impl&&) = delete;
  lock_impl& operator=(lock_impl&&) = delete;

  // --- used by the public functions ---
  std::uint64_t start_acquire(std::chrono::milliseconds timeout, completion_ptr<> done);
  void cancel_acquire(std::uint64_t id);
  std::uint64_t start_release(completion_ptr<> done);
  void cancel_release(std::uint64_t id);
  std::uint64_t start_wait_lost(completion_ptr<> done);
  void cancel_wait_lost(std::uint64_t id);
  void start_guarded_multi(std::vector<multi_op> ops, completion_ptr<std::vector<op_result>> done);
  void abandon() noexcept;

  // --- used by the acquire task ---
  // The caller of `a` gets `ec` (if it has not had an answer yet); the task is told to clean up and stop.
  void give_up(const std::shared_ptr<attempt>& a, std::error_code ec);
  // We hold the lock with `node`. `alone_zxid`: a zxid at which `node` was the directory's only contender (0 if
  // unknown); it lets the next acquire skip its listing (follows_quiet_release). False if the caller already gave
  // up (then the task deletes the node).
  bool grant(const std::shared_ptr<attempt>& a, const owned_node& node, std::int64_t alone_zxid);
  // The node name of the other side of a read_write_lock while it holds (our own writer does not block our
  // reader); "" otherwise.
  [[nodiscard]] std::string sibling_held_node() const;
  void count_wakeup() {
    ++wakeups_;
    metrics_.wakeup();
  }
  // A listing after our node was created showed `ahead` contenders before it (the first one of an acquire counts).
  void count_enqueued(std::size_t ahead) {
    metrics_.enqueued(ahead);
    if (rare_ && rare_->enqueued) rare_->enqueued();
  }
  // Called at every listing of an acquire that found our node in the queue (an election completes its join there);
  // {} removes it.
  void set_enqueued_handler(std::function<void()> handler) {
    if (handler || rare_) rare().enqueued = std::move(handler);
  }
  // Whether the next create goes without its listing: the last release may have left the directory in a state
  // known exactly, and the last time that was checked it was. A create that guessed wrong lists on its own, one
  // more round trip; where other clients write all the time, a guess that failed keeps the listing pipelined until
  // a check succeeds again.
  [[nodiscard]] bool expects_quiet() const noexcept { return quiet_.alone_zxid != 0 && quiet_.last_held; }
  // Whether the node just created (its stat) is the first transaction after the delete that released our last
  // hold, which was the first transaction after a zxid at which that node was the only contender: then no other
  // transaction at all came in between (zxids are consecutive within an epoch, docs/protocol.md#zxids), and the new
  // node is the only contender. Called once per create reply (a failed create too): it consumes what the release
  // left, so a later create lists.
  [[nodiscard]] bool follows_quiet_release(const zkwire::stat& created) noexcept;

  // --- observers ---
  [[nodiscard]] const std::string& directory() const noexcept { return directory_; }
  [[nodiscard]] lock_kind kind() const noexcept { return kind_; }
  // What the acquire needs of lock_options (the rest is in hold_monitor and metrics_recorder).
  [[nodiscard]] const queue_rule& rule() const noexcept { return *rule_; }
  [[nodiscard]] const guid_source& guids() const noexcept;
  [[nodiscard]] const std::string& data() const noexcept { return *data_; }
  [[nodiscard]] const std::vector<zkwire::acl>& acl() const noexcept { return *acl_; }
  [[nodiscard]] std::size_t hold_count() const noexcept { return holds_; }
  [[nodiscard]] const std::optional<owned_node>& node() const noexcept { return node_; }
  [[nodiscard]] std::uint64_t wakeups() const noexcept { return wakeups_; }
  [[nodiscard]] const metrics_recorder& metrics() const noexcept { return metrics_; }
  // Grants so far: identifies the current hold (a lock_hold of an earlier one must not release a later one).
  [[nodiscard]] std::uint64_t grant_id() const noexcept { return grant_id_; }
  [[nodiscard]] bool busy() const noexcept { return holds_ > 0 || current_ != nullptr; }
  void set_revocation_handler(revocation_handler handler) {
    if (handler || rare_) rare().revocation = std::move(handler);
  }
  asio::cancellation_slot lost_slot() noexcept { return lost_signal_.slot(); }
  void link_sibling(const std::shared_ptr<lock_impl>& sibling) { sibling_ = sibling; }

 private:
  std::shared_ptr<hold_monitor> monitor_self() override { return shared_from_this(); }
  [[nodiscard]] std::vector<const owned_node*> held_nodes() const override;
  void on_lost(std::error_code reason) override;
  void on_verified(std::uint64_t generation) override;
  void end_hold();
  static asio::awaitable<void> release_task(std::shared_ptr<lock_impl> self, std::string node_path,
                                            std::uint64_t release_id);
  void watch_own_node(std::uint64_t generation);

  // What most lock objects never set, behind one pointer (a waiting lock is one of possibly thousands, and its
  // bytes are counted: README.md's 2 KiB): a seeded guid source, the revocation handler, an election's enqueued
  // handler.
  struct rarely_set {
    guid_source guids;
    revocation_handler revocation;
    std::function<void()> enqueued;
  };
  rarely_set& rare() {
    if (!rare_) rare_ = std::make_unique<rarely_set>();
    return *rare_;
  }

  std::string directory_;
  // lock_options, each kept once (a waiting lock is one of possibly thousands); the ACL and the data are shared
  // between the lock objects that use the defaults.
  const queue_rule* rule_;  // a singleton (queue_rule.hpp)
  lock_kind kind_;
  bool reentrant_;
  bool own_watch_armed_ = false;  // here, not with the hold's state below: one word for the flags and the kind
  std::shared_ptr<const std::string> data_;
  std::shared_ptr<const std::vector<zkwire::acl>> acl_;
  std::unique_ptr<rarely_set> rare_;  // null until one of them is set
  std::weak_ptr<lock_impl> sibling_;

  std::size_t holds_ = 0;
  std::optional<owned_node> node_;
  std::int64_t alone_zxid_ = 0;  // while held: grant's alone_zxid
  // Left by the release of a hold whose alone_zxid was known, for the next create (follows_quiet_release).
  struct quiet_release {
    std::int64_t alone_zxid = 0;  // 0: nothing left to check
    std::int64_t session = 0;     // the node's; the create must be in the same session, behind the delete
    bool deleted = false;         // the delete succeeded (one transaction, ours)
    bool last_held = false;       // the last check (of an earlier release) said yes
  };
  quiet_release quiet_;
  std::int64_t revocation_seen_mzxid_ = 0;

  std::shared_ptr<attempt> current_;
  waiter_map releases_;
  waiter_map lost_waiters_;
  asio::cancellation_signal lost_signal_;
  std::uint64_t next_id_ = 1;
  std::uint64_t wakeups_ = 0;
  std::uint64_t grant_id_ = 0;
  metrics_recorder metrics_;
};

// A new attempt of `impl`, which is also the acquire task (acquire.cpp) that runs it: one allocation per waiter.
std::shared_ptr<attempt> make_attempt(const std::shared_ptr<lock_impl>& impl);
// Starts the task of an attempt made by make_attempt, once start_acquire has filled it in.
void spawn_acquire(const std::shared_ptr<attempt>& a);

}  // namespace zkwire::recipes::detail
