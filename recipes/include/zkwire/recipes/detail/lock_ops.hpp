#pragma once
// The plumbing behind zkwire::recipes::lock's async_* functions: the lock_impl accessors (lock_impl.cpp) and the
// initiators Asio's async_initiate calls. Internal: lock.hpp is the interface.

#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/cancellation_type.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zkwire/client/client.hpp"
#include "zkwire/client/detail/cancellation.hpp"
#include "zkwire/client/detail/completion.hpp"
#include "zkwire/recipes/lock_options.hpp"

namespace zkwire::recipes {

class lock;
class read_write_lock;
class lock_hold;

namespace detail {

// The client's type-erased completion, shared with the recipes: delivered like the client's own operations.
using zkwire::detail::complete;
using zkwire::detail::completion_ptr;
using zkwire::detail::make_completion;
// The cancellation rule of every zkwire operation (client/detail/cancellation.hpp).
using zkwire::detail::on_cancel;

class lock_impl;
class keeper_core;
using lock_ptr = std::shared_ptr<lock_impl>;
using lock_weak_ptr = std::weak_ptr<lock_impl>;

lock_ptr make_lock_impl(client& c, std::string directory, lock_kind kind, lock_options options);
void link_read_write(const lock_ptr& read, const lock_ptr& write);
void abandon(lock_impl& impl) noexcept;
asio::any_io_executor executor_of(const lock_impl& impl);

// Negative timeout: wait forever.
std::uint64_t start_acquire(const lock_ptr& impl, std::chrono::milliseconds timeout, completion_ptr<> done);
void cancel_acquire(const lock_weak_ptr& impl, std::uint64_t id);
std::uint64_t start_release(const lock_ptr& impl, completion_ptr<> done);
void cancel_release(const lock_weak_ptr& impl, std::uint64_t id);
std::uint64_t start_wait_lost(const lock_ptr& impl, completion_ptr<> done);
void cancel_wait_lost(const lock_weak_ptr& impl, std::uint64_t id);
void start_guarded_multi(const lock_ptr& impl, std::vector<multi_op> ops, completion_ptr<std::vector<op_result>> done);

lock_state state_of(const lock_impl& impl) noexcept;
std::size_t hold_count_of(const lock_impl& impl) noexcept;
const std::string& directory_of(const lock_impl& impl) noexcept;
lock_kind kind_of(const lock_impl& impl) noexcept;
std::string node_path_of(const lock_impl& impl);
std::int64_t fencing_token_of(const lock_impl& impl) noexcept;
std::int64_t session_of(const lock_impl& impl) noexcept;
std::uint64_t wakeups_of(const lock_impl& impl) noexcept;
std::shared_ptr<const lock_metrics> metrics_of(const lock_impl& impl) noexcept;
void set_listener(lock_impl& impl, lock_listener listener);
void set_revocation_handler(lock_impl& impl, revocation_handler handler);
asio::cancellation_slot lost_slot_of(lock_impl& impl) noexcept;

// For lock_hold.
bool holds_grant(const lock_impl& impl, std::uint64_t grant) noexcept;
void release_grant(const lock_ptr& impl, std::uint64_t grant, completion_ptr<> done);

std::uint64_t start_acquire_hold(const lock_ptr& impl, std::chrono::milliseconds timeout,
                                 completion_ptr<lock_hold> done);

template <std::uint64_t (*Start)(const lock_ptr&, completion_ptr<>),
          void (*Cancel)(const lock_weak_ptr&, std::uint64_t)>
struct initiate_simple {
  lock_ptr impl;
  template <class Handler>
  void operator()(Handler&& handler) const {
    auto slot = asio::get_associated_cancellation_slot(handler);
    const auto id = Start(impl, make_completion<>(std::forward<Handler>(handler), executor_of(*impl)));
    on_cancel(slot, [weak = lock_weak_ptr(impl), id] { Cancel(weak, id); });
  }
};

struct initiate_acquire {
  lock_ptr impl;
  template <class Handler>
  void operator()(Handler&& handler, std::chrono::milliseconds timeout) const {
    auto slot = asio::get_associated_cancellation_slot(handler);
    const auto id = start_acquire(impl, timeout, make_completion<>(std::forward<Handler>(handler), executor_of(*impl)));
    on_cancel(slot, [weak = lock_weak_ptr(impl), id] { cancel_acquire(weak, id); });
  }
};

struct initiate_acquire_hold {
  lock_ptr impl;
  template <class Handler>
  void operator()(Handler&& handler, std::chrono::milliseconds timeout) const {
    auto slot = asio::get_associated_cancellation_slot(handler);
    const auto id = start_acquire_hold(impl, timeout,
                                       make_completion<lock_hold>(std::forward<Handler>(handler), executor_of(*impl)));
    on_cancel(slot, [weak = lock_weak_ptr(impl), id] { cancel_acquire(weak, id); });
  }
};

struct initiate_guarded_multi {
  lock_ptr impl;
  template <class Handler>
  void operator()(Handler&& handler, std::vector<multi_op> ops) const {
    start_guarded_multi(impl, std::move(ops),
                        make_completion<std::vector<op_result>>(std::forward<Handler>(handler), executor_of(*impl)));
  }
};

}  // namespace detail

}  // namespace zkwire::recipes
