#pragma once
// zkwire::recipes::semaphore: a counting semaphore of `max_leases` leases on a directory, on top of zkwire::client,
// in the layout of Curator's InterProcessSemaphoreV2 so that zkwire and Curator processes share one semaphore.
//
//   zkwire::recipes::semaphore s(c, "/semaphores/workers", 4);
//   co_await s.async_acquire(std::chrono::seconds(5), asio::use_awaitable);  // one lease
//   // ... at most 4 holders (of all clients) are here at once ...
//   co_await s.async_release(asio::use_awaitable);
//
// Layout and algorithm
//   "<path>/locks" is a mutex (zkwire::recipes::lock, Curator node names) that serialises grabbing leases; the
//   leases are EPHEMERAL_SEQUENTIAL children "<path>/leases/_c_<uuid>-lease-<seq>" (data: semaphore_options::data).
//   A contender holding the mutex creates its lease node and lists "<path>/leases" with a child watch: when there
//   are at most max_leases children it keeps its lease and releases the mutex; otherwise it keeps the mutex and
//   waits for the watch (a lease was returned), then lists again. Every child of "<path>/leases" counts as a lease,
//   whoever created it. Because only the mutex holder adds a lease, the holders never exceed max_leases as long as
//   every participant uses the same max_leases. k leases (async_acquire(count, ...)) are taken one after the other,
//   each under the mutex; if any fails, those already taken are returned (all or none). Two acquires of several
//   leases can each hold a lease the other needs while one keeps the mutex waiting for a lease to come back: without
//   a time limit both wait forever (the simulation found it), so give such acquires one.
//   A lease create whose reply was lost is recovered like the lock's (the child with our uuid prefix, adopted only
//   if its ephemeralOwner is our current session).
//
// States and loss: lock_state, as the lock (lock.hpp "States"). The holder watches each of its lease nodes; held
//   becomes uncertain on a broken connection, held again after a reconnect on the same session once every lease
//   node is seen to still be ours, and lost when the session ended or changed, a lease node was deleted, or no
//   server answered for session_timeout - safety margin. A lost semaphore stays lost until async_release; its
//   remaining lease nodes are deleted in the background.
//
// Cleanup guarantee ("no orphans"): as the lock. When an acquire ends without its leases (timeout, cancellation,
//   error, destruction of the semaphore object), every lease node it created or may have created is deleted in the
//   background (retried across reconnects until the delete succeeds or the session ends), and the mutex is given
//   up the same way. Release deletes the lease nodes likewise.
//
// Thread safety and lifetime: as the lock. Use a semaphore only on the client's executor; the client must outlive
//   it; destroying it gives up what it holds or is acquiring (a pending acquire completes with
//   lock_errc::cancelled; its listener is not called any more). One object acquires at most once at a time and
//   holds at most one set of leases.
//
// Cancellation: async_acquire supports terminal and partial cancellation (lock_errc::cancelled, nothing left
//   behind). async_release: cancelling stops the waiting only; the deletes go on. async_wait_lost: completes with
//   client_error::cancelled.

#include <asio/async_result.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "zkwire/client/client.hpp"
#include "zkwire/client/detail/cancellation.hpp"
#include "zkwire/client/detail/completion.hpp"
#include "zkwire/recipes/detail/named_option.hpp"
#include "zkwire/recipes/errors.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire::recipes {

// Not an aggregate (client/types.hpp, create_options, says why): set the fields by name on a variable, or take a
// named one inline (`semaphore_options::with_data("worker-7")`).
struct semaphore_options {
  semaphore_options();

  // Named options: the defaults with one field set.
  static semaphore_options with_data(std::string holder_data) {
    return detail::with_field(&semaphore_options::data, std::move(holder_data));
  }
  static semaphore_options with_safety_margin(std::chrono::milliseconds margin) {
    return detail::with_field(&semaphore_options::safety_margin, margin);
  }
  static semaphore_options with_acl(std::vector<zkwire::acl> entries) {
    return detail::with_field(&semaphore_options::acl, std::move(entries));
  }

  // Data of our lease nodes (who holds them); default_lock_data() when empty. Also the mutex node's data.
  std::string data;
  // As lock_options::safety_margin.
  std::optional<std::chrono::milliseconds> safety_margin;
  // ACL of our nodes and of the directories created for them.
  std::vector<zkwire::acl> acl = zkwire::open_acl_unsafe();
  // As lock_options::metrics: also count this object's events here. One acquire of k leases is one event. The
  // internal mutex's own lock events are not counted.
  std::shared_ptr<lock_metrics> metrics;
  // As lock_options::guids: the guids of our lease nodes and of the mutex's node.
  guid_source guids;
};

namespace detail {

class semaphore_impl;
using semaphore_ptr = std::shared_ptr<semaphore_impl>;

semaphore_ptr make_semaphore_impl(client& c, std::string path, std::int32_t max_leases, semaphore_options options);
asio::any_io_executor executor_of(const semaphore_impl& impl);
void abandon(semaphore_impl& impl) noexcept;
std::uint64_t start_acquire(const semaphore_ptr& impl, std::int32_t count, std::chrono::milliseconds timeout,
                            completion_ptr<> done);
void cancel_acquire(const std::weak_ptr<semaphore_impl>& impl, std::uint64_t id);
std::uint64_t start_release(const semaphore_ptr& impl, completion_ptr<> done);
void cancel_release(const std::weak_ptr<semaphore_impl>& impl, std::uint64_t id);
std::uint64_t start_wait_lost(const semaphore_ptr& impl, completion_ptr<> done);
void cancel_wait_lost(const std::weak_ptr<semaphore_impl>& impl, std::uint64_t id);
lock_state state_of(const semaphore_impl& impl) noexcept;
std::vector<std::string> lease_paths_of(const semaphore_impl& impl);
std::int64_t fencing_token_of(const semaphore_impl& impl) noexcept;
std::int64_t session_of(const semaphore_impl& impl) noexcept;
std::int32_t max_leases_of(const semaphore_impl& impl) noexcept;
const std::string& path_of(const semaphore_impl& impl) noexcept;
void set_listener(semaphore_impl& impl, lock_listener listener);
std::shared_ptr<const lock_metrics> metrics_of(const semaphore_impl& impl) noexcept;

template <std::uint64_t (*Start)(const semaphore_ptr&, completion_ptr<>),
          void (*Cancel)(const std::weak_ptr<semaphore_impl>&, std::uint64_t)>
struct initiate_semaphore_simple {
  semaphore_ptr impl;
  template <class Handler>
  void operator()(Handler&& handler) const {
    auto slot = asio::get_associated_cancellation_slot(handler);
    const auto id = Start(impl, make_completion<>(std::forward<Handler>(handler), executor_of(*impl)));
    on_cancel(slot, [weak = std::weak_ptr<semaphore_impl>(impl), id] { Cancel(weak, id); });
  }
};

struct initiate_semaphore_acquire {
  semaphore_ptr impl;
  template <class Handler>
  void operator()(Handler&& handler, std::int32_t count, std::chrono::milliseconds timeout) const {
    auto slot = asio::get_associated_cancellation_slot(handler);
    const auto id =
        start_acquire(impl, count, timeout, make_completion<>(std::forward<Handler>(handler), executor_of(*impl)));
    on_cancel(slot, [weak = std::weak_ptr<semaphore_impl>(impl), id] { cancel_acquire(weak, id); });
  }
};

}  // namespace detail

class semaphore {
 public:
  // A semaphore of `max_leases` (>= 1) leases on `path` (a valid absolute path; it and its "locks" and "leases"
  // children are created as containers when missing). Does no I/O.
  semaphore(client& c, std::string path, std::int32_t max_leases, semaphore_options options = {});
  // Gives up held leases or a pending acquire in the background (see "Cleanup guarantee").
  ~semaphore();
  semaphore(const semaphore&) = delete;
  semaphore& operator=(const semaphore&) = delete;
  semaphore(semaphore&&) noexcept = default;
  semaphore& operator=(semaphore&&) = delete;

  [[nodiscard]] asio::any_io_executor get_executor() const { return detail::executor_of(*impl_); }

  // Acquires `count` leases (1 <= count <= max_leases), all or none, waiting at most `timeout` in all (negative:
  // forever; 0: try once, failing with lock_errc::timeout when the mutex is taken or no lease is free). Signature
  // void(std::error_code).
  // Errors: lock_errc::timeout, lock_errc::cancelled, lock_errc::already_held (this object holds leases),
  // lock_errc::acquire_in_progress, lock_errc::lock_lost (lost and not yet released), lock_errc::invalid_lease_count
  // (count out of range), lock_errc::no_leases (max_leases < 1), the session's end (client_error::session_expired,
  // closed, server_error::auth_failed, lock_errc::session_changed), server errors about the directories (no_auth,
  // invalid_acl, ...), client_error::invalid_path. Connection loss is not an error. After any error nothing is left
  // behind. Deadlines as lock::async_acquire: the requests of the acquire (the mutex's included) carry what is left of
  // `timeout` as their deadline, and a try-once acquire (0) is bounded by client_options::request_timeout (with none
  // set, it waits for its round trips as long as the connection lasts). A lease create that ran out of time may
  // still be applied: its node is found and deleted later.
  template <class CompletionToken>
  auto async_acquire(std::int32_t count, std::chrono::milliseconds timeout, CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(detail::initiate_semaphore_acquire{impl_},
                                                                        token, count, timeout);
  }
  // One lease.
  template <class CompletionToken>
  auto async_acquire(std::chrono::milliseconds timeout, CompletionToken&& token) {
    return async_acquire(1, timeout, std::forward<CompletionToken>(token));
  }

  // Returns every lease this object holds: deletes the lease nodes and completes once the deletes succeeded (or
  // the nodes or the session are already gone). Errors: lock_errc::not_held, lock_errc::lock_lost (the leases had
  // been lost: the object is reset to released), client_error::cancelled (the deletes go on).
  template <class CompletionToken>
  auto async_release(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_semaphore_simple<detail::start_release, detail::cancel_release>{impl_}, token);
  }

  // Completes when the current hold ends: lock_errc::lock_lost if it was lost (at once if already lost),
  // lock_errc::not_held if it was released or nothing is held, client_error::cancelled.
  template <class CompletionToken>
  auto async_wait_lost(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_semaphore_simple<detail::start_wait_lost, detail::cancel_wait_lost>{impl_}, token);
  }

  // --- observers (on the client's executor) ---
  [[nodiscard]] lock_state state() const noexcept { return detail::state_of(*impl_); }
  [[nodiscard]] bool owns_leases() const noexcept {
    return state() == lock_state::held || state() == lock_state::uncertain;
  }
  // Full paths of our lease nodes while held, uncertain or lost (lost: those not yet known to be gone).
  [[nodiscard]] std::vector<std::string> lease_paths() const { return detail::lease_paths_of(*impl_); }
  // The czxid of our first lease node while held, uncertain or lost; 0 otherwise.
  [[nodiscard]] std::int64_t fencing_token() const noexcept { return detail::fencing_token_of(*impl_); }
  // The session that owns our lease nodes; 0 when none.
  [[nodiscard]] std::int64_t session_id() const noexcept { return detail::session_of(*impl_); }
  [[nodiscard]] std::int32_t max_leases() const noexcept { return detail::max_leases_of(*impl_); }
  [[nodiscard]] const std::string& path() const noexcept { return detail::path_of(*impl_); }
  // This object's own contention metrics (lock_metrics.hpp; no queue positions): snapshot() from any thread.
  [[nodiscard]] std::shared_ptr<const lock_metrics> metrics() const noexcept { return detail::metrics_of(*impl_); }

  // Called on every state change (lock_event; reasons as the lock's). Replaces the previous listener.
  void set_listener(lock_listener listener) { detail::set_listener(*impl_, std::move(listener)); }

 private:
  detail::semaphore_ptr impl_;
};

}  // namespace zkwire::recipes
