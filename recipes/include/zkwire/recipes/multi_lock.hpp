#pragma once
// zkwire::recipes::multi_lock: several exclusive locks (one lock per directory, lock.hpp) taken all or none.
//
//   zkwire::recipes::multi_lock m(c, {"/locks/account-7", "/locks/account-3"});
//   co_await m.async_acquire(std::chrono::seconds(5), asio::use_awaitable);  // both, or neither
//   auto token = m.fencing_token("/locks/account-3");
//   co_await m.async_release(asio::use_awaitable);
//
// How it works
//   The directories are sorted (byte order) and duplicates dropped; acquire takes the member locks one after the
//   other in that canonical order, so two multi_locks over {A,B} and {B,A} (in one process or many, zkwire or
//   another client taking the same locks in the same order) cannot deadlock: whoever holds the lower lock never
//   waits for a holder of a higher one that waits for it. Each member is an ordinary lock on its directory, so
//   single locks, `zkwire lock` and other clients (Curator InterProcessMutex, Kazoo Lock) on the same directories
//   exclude it as usual.
//   If any member cannot be taken (timeout, cancellation, error), the members already taken are released before
//   the caller's handler is called; their nodes are deleted as lock.hpp's "Cleanup guarantee" describes, and the
//   member being acquired leaves nothing behind either. There is never a partial hold.
//
// States (lock_state)
//   As lock's: released -> acquiring -> held <-> uncertain -> lost. `uncertain` while any member is uncertain (the
//   connection broke), `held` again when every member is held. `lost` as soon as any member is lost (or released
//   behind the multi_lock's back): the listener is told, async_wait_lost completes, lost_slot() emits terminal
//   cancellation, and the other members are released in the background at once (nobody should wait for a hold
//   that is already worthless). A lost multi_lock stays lost until async_release.
//
// Fencing
//   fencing_token(directory) is the czxid of our node in that member lock (0 when not held). To fence a write
//   with one member, use member(directory).async_guarded_multi(...).
//
// Thread safety and lifetime
//   As lock: use a multi_lock only on the client's executor; handlers run on their associated executor (the
//   client's when they have none), never inside the initiating function. The client must outlive the object.
//   Destroying it while held or acquiring gives everything up in the background (a pending acquire completes with
//   lock_errc::cancelled). Not reentrant: async_acquire while held fails with lock_errc::already_held.
//
// Cancellation
//   async_acquire supports terminal and partial cancellation (per-operation slot): the member being acquired is
//   cancelled, the members taken are released, and the handler gets lock_errc::cancelled. async_release:
//   cancelling stops the waiting only (the deletes go on). async_wait_lost: completes with client_error::cancelled.

#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/async_result.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/cancellation_type.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "zkwire/client/client.hpp"
#include "zkwire/client/detail/cancellation.hpp"
#include "zkwire/client/detail/completion.hpp"
#include "zkwire/recipes/errors.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire::recipes {

namespace detail {

class multi_lock_impl;
using multi_lock_ptr = std::shared_ptr<multi_lock_impl>;
using multi_lock_weak_ptr = std::weak_ptr<multi_lock_impl>;

multi_lock_ptr make_multi_lock_impl(client& c, std::vector<std::string> directories, const lock_options& options);
asio::any_io_executor executor_of(const multi_lock_impl& impl);
void abandon(multi_lock_impl& impl) noexcept;
std::uint64_t start_acquire(const multi_lock_ptr& impl, std::chrono::milliseconds timeout, completion_ptr<> done);
void cancel_acquire(const multi_lock_weak_ptr& impl, std::uint64_t id);
std::uint64_t start_release(const multi_lock_ptr& impl, completion_ptr<> done);
void cancel_release(const multi_lock_weak_ptr& impl, std::uint64_t id);
std::uint64_t start_wait_lost(const multi_lock_ptr& impl, completion_ptr<> done);
void cancel_wait_lost(const multi_lock_weak_ptr& impl, std::uint64_t id);
lock_state state_of(const multi_lock_impl& impl) noexcept;
const std::vector<std::string>& directories_of(const multi_lock_impl& impl) noexcept;
lock* member_of(multi_lock_impl& impl, std::string_view directory) noexcept;
void set_listener(multi_lock_impl& impl, lock_listener listener);
asio::cancellation_slot lost_slot_of(multi_lock_impl& impl) noexcept;

template <std::uint64_t (*Start)(const multi_lock_ptr&, completion_ptr<>),
          void (*Cancel)(const multi_lock_weak_ptr&, std::uint64_t)>
struct initiate_multi_lock_simple {
  multi_lock_ptr impl;
  template <class Handler>
  void operator()(Handler&& handler) const {
    auto slot = asio::get_associated_cancellation_slot(handler);
    const auto id = Start(impl, make_completion<>(std::forward<Handler>(handler), executor_of(*impl)));
    on_cancel(slot, [weak = multi_lock_weak_ptr(impl), id] { Cancel(weak, id); });
  }
};

struct initiate_multi_lock_acquire {
  multi_lock_ptr impl;
  template <class Handler>
  void operator()(Handler&& handler, std::chrono::milliseconds timeout) const {
    auto slot = asio::get_associated_cancellation_slot(handler);
    const auto id = start_acquire(impl, timeout, make_completion<>(std::forward<Handler>(handler), executor_of(*impl)));
    on_cancel(slot, [weak = multi_lock_weak_ptr(impl), id] { cancel_acquire(weak, id); });
  }
};

}  // namespace detail

class multi_lock {
 public:
  // Exclusive locks on every directory of `directories` (valid absolute paths, created when missing; order and
  // duplicates do not matter), each with `options`. Does no I/O.
  multi_lock(client& c, std::vector<std::string> directories, const lock_options& options = {});
  // Gives up a hold or a pending acquire in the background.
  ~multi_lock();
  multi_lock(const multi_lock&) = delete;
  multi_lock& operator=(const multi_lock&) = delete;
  multi_lock(multi_lock&&) noexcept = default;
  multi_lock& operator=(multi_lock&&) = delete;

  [[nodiscard]] asio::any_io_executor get_executor() const { return detail::executor_of(*impl_); }

  // Acquires every member lock in canonical order, waiting at most `timeout` in all (negative: forever; 0: try
  // each once). Signature void(std::error_code). On any error, the members taken are released first.
  // Errors: lock_errc::timeout, lock_errc::cancelled, lock_errc::no_directories,
  // lock_errc::already_held, lock_errc::acquire_in_progress, lock_errc::lock_lost (lost and not yet released, or a
  // member taken was lost while waiting for a later one), and any member's error (lock::async_acquire: the session's
  // end, server errors about a directory, invalid_path). Connection loss is not an error.
  template <class CompletionToken>
  auto async_acquire(std::chrono::milliseconds timeout, CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(detail::initiate_multi_lock_acquire{impl_},
                                                                        token, timeout);
  }
  // Waits without a time limit.
  template <class CompletionToken>
  auto async_acquire(CompletionToken&& token) {
    return async_acquire(std::chrono::milliseconds(-1), std::forward<CompletionToken>(token));
  }

  // Releases every member; completes once all their nodes are deleted (or already gone). Signature
  // void(std::error_code). Errors: lock_errc::not_held, lock_errc::lock_lost (it had been lost: reset to released,
  // the remaining nodes deleted), client_error::cancelled (the deletes go on).
  template <class CompletionToken>
  auto async_release(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_multi_lock_simple<detail::start_release, detail::cancel_release>{impl_}, token);
  }

  // Completes when the current hold ends: lock_errc::lock_lost (at once if already lost), lock_errc::not_held
  // (released, or not held), client_error::cancelled.
  template <class CompletionToken>
  auto async_wait_lost(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_multi_lock_simple<detail::start_wait_lost, detail::cancel_wait_lost>{impl_}, token);
  }

  // --- observers (on the client's executor) ---
  [[nodiscard]] lock_state state() const noexcept { return detail::state_of(*impl_); }
  [[nodiscard]] bool owns_lock() const noexcept {
    return state() == lock_state::held || state() == lock_state::uncertain;
  }
  // The member directories in acquisition order (sorted, without duplicates).
  [[nodiscard]] const std::vector<std::string>& directories() const noexcept { return detail::directories_of(*impl_); }
  // The member lock on `directory` (nullptr if it is not a member), for its fencing_token(), node_path() and
  // async_guarded_multi and set_revocation_handler. Do not acquire or release it directly (releasing a member
  // counts as losing the hold) nor replace its listener (the multi_lock follows its members through it).
  [[nodiscard]] lock* member(std::string_view directory) noexcept { return detail::member_of(*impl_, directory); }
  [[nodiscard]] const lock* member(std::string_view directory) const noexcept {
    return detail::member_of(*impl_, directory);
  }
  // The czxid of our node in `directory`'s lock while held, uncertain or lost; 0 otherwise or for a non-member.
  [[nodiscard]] std::int64_t fencing_token(std::string_view directory) const noexcept {
    const lock* m = detail::member_of(*impl_, directory);
    return m == nullptr ? 0 : m->fencing_token();
  }

  // Called on every lock_state change of the multi_lock (not of its members). Replaces the previous listener.
  void set_listener(lock_listener listener) { detail::set_listener(*impl_, std::move(listener)); }
  // Emits terminal cancellation when the hold is lost (as lock::lost_slot).
  [[nodiscard]] asio::cancellation_slot lost_slot() noexcept { return detail::lost_slot_of(*impl_); }

 private:
  detail::multi_lock_ptr impl_;
};

}  // namespace zkwire::recipes
