#pragma once
// zkwire::recipes::lock: ZooKeeper's lock recipe on a lock directory, exclusive or one side of a shared
// read/write lock, on top of zkwire::client. Every operation is an `async_*` taking a completion token (callback,
// asio::use_future, asio::use_awaitable, ...), like the client.
//
//   zkwire::recipes::lock l(c, "/locks/job");  // exclusive, Curator node names
//   co_await l.async_acquire(std::chrono::seconds(5), asio::use_awaitable);
//   co_await l.async_guarded_multi(zkwire::ops::list(zkwire::ops::set("/job/state", "done")), asio::use_awaitable);
//   co_await l.async_release(asio::use_awaitable);
//
// lock_state, lock_event, the listeners and lock_options are declared in lock_options.hpp (included here).
//
// How it works
//   Acquire creates an EPHEMERAL_SEQUENTIAL child "<dir>/<prefix><seq>" whose prefix carries a fresh guid
//   (node_name.hpp) and whose data is lock_options::data, and lists the directory in the same round trip (the
//   session runs its requests in order, so the list shows our node). It holds the lock when no contender it must
//   wait for precedes it (exclusive and write: any contender; read: a non-read one); otherwise it watches ONLY
//   that blocker (getData with a watch) and lists again when it changes: one waiter wakes per release, no
//   child watch on the directory, no polling. When the listing showed the blocker as the only contender that
//   keeps it waiting, the blocker's deletion is the grant itself (a node created later sorts after ours), so the
//   next in line holds without listing again. Release deletes the node. A missing directory is created with its
//   parents as CONTAINER nodes, again if the server reaps it between that and our create.
//   A lock object that takes and releases a lock nobody else wants skips the listing once it has seen that the
//   zxids prove it unnecessary (our create came right after our own delete of a node that was alone); if a
//   transaction came between after all, it lists on its own, one more round trip, and pipelines its listing
//   again until the proof holds once more.
//   A grant rests on answers: if they were read long after they were sent (a process paused with the replies
//   waiting), so that the session may have expired meanwhile, or the connection is down, the acquire waits for the
//   connection and lists again rather than grant a hold already lost. Nor is a node held that is not the current
//   session's (the client runs a new session since our create): the acquire ends with lock_errc::session_changed.
//   If the create's outcome is unknown (connection lost before its reply), acquire waits for the connection,
//   syncs, lists the directory and adopts the child with our prefix only if its ephemeralOwner is the client's
//   current session; otherwise it starts over with a new guid. One acquire never leaves two nodes.
//
// States (lock_state)
//   released -> acquiring -> held <-> uncertain -> lost.  `uncertain`: the connection broke, the session may live
//   on; back to `held` after a reconnect on the same session once our node is seen to still be ours. `lost` when
//   the session expired or closed, the client started another session, our node was deleted (or someone else's
//   now), or no server answered for session_timeout - safety margin since the last answered send
//   (client::last_answered_send_time): lost is signalled no later than
//   last_answered_send_time() + session_timeout() - margin, before the server can expire the session and grant
//   the lock to another client, as long as the leader hears of the session when our server does: a leader paused
//   while its followers answer for it can expire the session early on waking (docs/design.md#lock-states), which
//   no client can see; fencing is the guard there. A lost lock stays lost until async_release; its node is deleted
//   in the background if it still exists. Loss is offered three ways: set_listener (callback), async_wait_lost (any
//   token), and lost_slot() (an asio::cancellation_slot to bind to the guarded work: terminal cancellation on loss).
//
// Fencing
//   fencing_token() is the czxid of our node: it grows with every grant of this lock (and of any other node), so a
//   resource that remembers the highest token seen can refuse a stale holder. async_guarded_multi runs the
//   caller's ops in a multi that first checks our node exists: a holder whose node is gone cannot write.
//
// Reentrancy
//   Off by default: async_acquire on a lock object that holds the lock fails with lock_errc::already_held (two
//   coroutines sharing one object must not both believe they hold it). With lock_options::reentrant it completes
//   at once and counts up; async_release counts down and deletes the node at zero. Either way it is per object,
//   not per thread or coroutine: the object cannot tell who calls it.
//
// Revocation
//   The holder watches its own node's data. When someone writes "unlock" (ZooKeeper's recipe) or "__REVOKE__"
//   (Curator) to it (see revoke.hpp), the revocation handler runs; releasing is up to it.
//
// Cleanup guarantee ("no orphans")
//   When an acquire ends without the lock for any reason (timeout, cancellation, error, destruction of the lock
//   object), the node it created or may have created is deleted in the background, retried across reconnects
//   until the delete succeeds or the session ends (which deletes it too). Releasing is retried the same way.
//
// Thread safety and lifetime
//   Like the client: use a lock only on the client's executor (with a multi-threaded io_context, give the
//   client a strand). Handlers run on their associated executor (the client's when they have none) and are never
//   invoked from inside the initiating function. The client must outlive the lock object; background cleanup
//   keeps what it needs alive and stops touching the client when it is destroyed. Destroying a lock object that
//   holds or is acquiring gives it up as described above (a pending acquire completes with
//   lock_errc::cancelled). Several lock objects (in one or many clients) may contend on one directory; each
//   acquires at most once at a time.
//
// Cancellation
//   async_acquire supports terminal and partial cancellation (per-operation slot): it completes with
//   lock_errc::cancelled (== condition::cancelled) and leaves nothing behind (its node, if any, is deleted in the
//   background). async_release: cancelling stops the waiting only; the node is still deleted in the background.
//   async_wait_lost: completes with client_error::cancelled, nothing else changes.

#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/cancellation_type.hpp>
#include <asio/post.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "zkwire/client/client.hpp"
#include "zkwire/recipes/detail/lock_ops.hpp"
#include "zkwire/recipes/errors.hpp"
#include "zkwire/recipes/lock_metrics.hpp"
#include "zkwire/recipes/lock_options.hpp"
#include "zkwire/recipes/node_name.hpp"

namespace zkwire::recipes {

// One hold of a lock, from lock::async_acquire_hold: move-only, and destroying it while it holds releases the lock
// in the background (like lock::async_release with a handler that ignores the result; the delete is retried as
// in "Cleanup guarantee"). A coroutine that holds a lock in a lock_hold cannot leak it, whether it returns, throws
// or is destroyed. A hold refers to one grant: if its lock was released (and perhaps acquired again) another way,
// the hold no longer owns anything and its destruction does nothing. With lock_options::reentrant each hold
// counts one acquisition.
// Thread safety: like the lock; destroy or release it on the client's executor. It keeps the lock's state alive,
// so it may outlive the lock object (the lock's destruction has released it already).
class lock_hold {
 public:
  lock_hold() noexcept = default;
  lock_hold(detail::lock_ptr impl, std::uint64_t grant) noexcept : impl_(std::move(impl)), grant_(grant) {}
  ~lock_hold() { release_in_background(); }
  lock_hold(const lock_hold&) = delete;
  lock_hold& operator=(const lock_hold&) = delete;
  lock_hold(lock_hold&& other) noexcept : impl_(std::move(other.impl_)), grant_(other.grant_) {}
  lock_hold& operator=(lock_hold&& other) noexcept {
    if (this != &other) {
      release_in_background();
      impl_ = std::move(other.impl_);
      grant_ = other.grant_;
    }
    return *this;
  }

  // True while the grant it refers to is held (or uncertain, or lost and not yet released).
  [[nodiscard]] bool owns_lock() const noexcept { return impl_ && detail::holds_grant(*impl_, grant_); }
  explicit operator bool() const noexcept { return owns_lock(); }

  // Releases now and empties the hold; as lock::async_release (lock_errc::not_held if it owns nothing).
  template <class CompletionToken>
  auto async_release(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        // By value: the hold's pointer is moved out, so the hold is empty once the release starts.
        [](auto handler, detail::lock_ptr impl,  // NOLINT(performance-unnecessary-value-param)
           std::uint64_t grant) {
          if (!impl) {
            auto ex = asio::get_associated_executor(handler);
            asio::post(ex, [h = std::move(handler)]() mutable { std::move(h)(make_error_code(lock_errc::not_held)); });
            return;
          }
          auto executor = detail::executor_of(*impl);
          detail::release_grant(impl, grant, detail::make_completion<>(std::move(handler), executor));
        },
        token, std::move(impl_), grant_);
  }

 private:
  void release_in_background() noexcept;

  detail::lock_ptr impl_;
  std::uint64_t grant_ = 0;
};

class lock {
 public:
  // An exclusive lock on `directory` (a valid absolute path; it is created when missing). Does no I/O.
  lock(client& c, std::string directory, lock_options options = {});
  // One side of a shared read/write lock on `directory` without the other side (e.g. one process taking the
  // read lock); read_write_lock pairs both sides of one object.
  lock(client& c, std::string directory, lock_kind kind, lock_options options = {});
  // Gives up a held lock or a pending acquire in the background (see "Cleanup guarantee").
  ~lock();
  lock(const lock&) = delete;
  lock& operator=(const lock&) = delete;
  lock(lock&&) noexcept = default;
  lock& operator=(lock&& other) noexcept;

  [[nodiscard]] asio::any_io_executor get_executor() const { return detail::executor_of(*impl_); }

  // Acquires the lock, waiting at most `timeout` (0: try once — one round trip, two after a skipped listing that
  // was needed after all ("How it works"); fails with lock_errc::timeout if another contender precedes us).
  // Signature void(std::error_code). If this object already holds it: completes at once (posted), counting up with
  // lock_options::reentrant, else with lock_errc::already_held (the hold is unchanged).
  // Errors: lock_errc::timeout, lock_errc::cancelled, lock_errc::already_held, lock_errc::acquire_in_progress
  // (another acquire of this object is pending), lock_errc::upgrade_not_allowed (write side while the read side of the
  // same read_write_lock holds or awaits), lock_errc::lock_lost (this object's lock was lost and not yet released), the
  // session's end (client_error::session_expired, closed, server_error::auth_failed), server errors about the directory
  // (no_auth, invalid_acl, no_children_for_ephemerals when a parent is ephemeral), and client_error::invalid_path.
  // Connection loss is not an error: the acquire continues after the reconnect, within the timeout. After any error
  // nothing is left behind (see "Cleanup guarantee").
  // Every request of the acquire carries what is left of `timeout` as its deadline (client.hpp, "Deadlines"), so a
  // server that stops answering without dropping the connection cannot hold it longer. A try-once acquire (0) is
  // bounded by client_options::request_timeout: with none set, it waits for its round trip as long as the
  // connection lasts. A create that ran out of time may still be applied: its node is found and deleted later.
  template <class CompletionToken>
  auto async_acquire(std::chrono::milliseconds timeout, CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(detail::initiate_acquire{impl_}, token,
                                                                        timeout);
  }
  // Waits without a time limit.
  template <class CompletionToken>
  auto async_acquire(CompletionToken&& token) {
    return async_acquire(std::chrono::milliseconds(-1), std::forward<CompletionToken>(token));
  }

  // async_acquire, completing with a lock_hold that releases the lock when destroyed (RAII for coroutines):
  //   auto [ec, hold] =
  //       co_await l.async_acquire_hold(std::chrono::seconds(5), asio::experimental::as_tuple(asio::use_awaitable));
  //   ... work that may throw ...                     // leaving the scope releases in the background
  // Signature void(std::error_code, lock_hold); the hold is empty on error. Errors, cancellation: as async_acquire.
  template <class CompletionToken>
  auto async_acquire_hold(std::chrono::milliseconds timeout, CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code, lock_hold)>(detail::initiate_acquire_hold{impl_},
                                                                                   token, timeout);
  }

  // Counts down; at zero deletes our node and completes once the delete succeeded (or the node or the session is
  // already gone). Signature void(std::error_code). Connection loss is retried after the reconnect.
  // Errors: lock_errc::not_held (nothing to release), lock_errc::lock_lost (the lock had been lost: the object is
  // reset to released and the node deleted if it still exists), client_error::cancelled (the delete goes on).
  template <class CompletionToken>
  auto async_release(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_simple<detail::start_release, detail::cancel_release>{impl_}, token);
  }

  // Completes when the current hold ends. Signature void(std::error_code): lock_errc::lock_lost if it was lost
  // (at once if already lost), lock_errc::not_held if it was released or is not held, client_error::cancelled.
  template <class CompletionToken>
  auto async_wait_lost(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_simple<detail::start_wait_lost, detail::cancel_wait_lost>{impl_}, token);
  }

  // Runs `ops` (zkwire::ops::create/remove/set/check) atomically, only if our node still exists: one multi whose
  // first op checks our node. Signature void(std::error_code, std::vector<op_result>) with the results of the
  // caller's ops only. Errors: lock_errc::not_held (not held by this object; nothing sent), lock_errc::lock_lost
  // (the check failed: our node is gone; nothing was applied), else the multi's error (see client::async_multi).
  // Allowed while uncertain (the server decides). Cancellation is not supported (a multi in flight is atomic).
  // Inside co_await, pass zkwire::ops::list(op, ...) rather than a braced list (client.hpp, "Coroutines on GCC 12").
  template <class CompletionToken>
  auto async_guarded_multi(std::vector<multi_op> ops, CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code, std::vector<op_result>)>(
        detail::initiate_guarded_multi{impl_}, token, std::move(ops));
  }

  // --- observers (on the client's executor) ---
  [[nodiscard]] lock_state state() const noexcept { return detail::state_of(*impl_); }
  // held or uncertain.
  [[nodiscard]] bool owns_lock() const noexcept {
    return state() == lock_state::held || state() == lock_state::uncertain;
  }
  // Acquisitions not yet released (0 when not held; above 1 only with lock_options::reentrant).
  [[nodiscard]] std::size_t hold_count() const noexcept { return detail::hold_count_of(*impl_); }
  [[nodiscard]] const std::string& directory() const noexcept { return detail::directory_of(*impl_); }
  [[nodiscard]] lock_kind kind() const noexcept { return detail::kind_of(*impl_); }
  // Full path of our node (client path, without the chroot) while held, uncertain or lost; "" otherwise.
  [[nodiscard]] std::string node_path() const { return detail::node_path_of(*impl_); }
  // The czxid of our node while held, uncertain or lost; 0 otherwise.
  [[nodiscard]] std::int64_t fencing_token() const noexcept { return detail::fencing_token_of(*impl_); }
  // The session that owns our node; 0 when none.
  [[nodiscard]] std::int64_t session_id() const noexcept { return detail::session_of(*impl_); }
  // How many times a watched blocker's event woke this object's acquires (diagnostics: no herd means one wakeup
  // per release ahead of us).
  [[nodiscard]] std::uint64_t wakeups() const noexcept { return detail::wakeups_of(*impl_); }
  // This object's own contention metrics (lock_metrics.hpp): snapshot() from any thread, also after the lock
  // object is gone (keep the pointer).
  [[nodiscard]] std::shared_ptr<const lock_metrics> metrics() const noexcept { return detail::metrics_of(*impl_); }

  // Called on every lock_state change. Replaces the previous listener; {} removes it.
  void set_listener(lock_listener listener) { detail::set_listener(*impl_, std::move(listener)); }
  // Called when someone asks the holder to release (revoke.hpp). Replaces the previous handler.
  void set_revocation_handler(revocation_handler handler) {
    detail::set_revocation_handler(*impl_, std::move(handler));
  }
  // Emits terminal cancellation when the lock is lost. Bind it to the guarded work, e.g.
  //   asio::co_spawn(ex, work(), asio::bind_cancellation_slot(l.lost_slot(), asio::detached));
  // One slot per lock object (a slot holds one handler at a time); valid while the lock object lives.
  [[nodiscard]] asio::cancellation_slot lost_slot() noexcept { return detail::lost_slot_of(*impl_); }

 private:
  friend class read_write_lock;
  friend class detail::keeper_core;
  explicit lock(detail::lock_ptr impl) : impl_(std::move(impl)) {}

  detail::lock_ptr impl_;
};

// A shared read/write lock on one directory: readers share it, a writer excludes everyone; later readers queue
// behind an earlier writer (no writer starvation). Node names `__READ__`/`__WRIT__` (Curator) or
// `__rlock__`/`__lock__` (Kazoo, lock_options::name_format). Asking for the write side while this object's read
// side holds or awaits fails with lock_errc::upgrade_not_allowed; taking the read side while holding the write
// side is allowed (our own writer does not block our reader). Thread safety, lifetime: as lock.
class read_write_lock {
 public:
  read_write_lock(client& c, std::string directory, lock_options options = {});

  [[nodiscard]] lock& read_lock() noexcept { return read_; }
  [[nodiscard]] lock& write_lock() noexcept { return write_; }

 private:
  lock read_;
  lock write_;
};

}  // namespace zkwire::recipes
