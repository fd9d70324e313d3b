// zkwire::recipes::lock and read_write_lock: the public objects, and the boundary functions of lock.hpp.

#include "zkwire/recipes/lock.hpp"

#include "lock_impl.hpp"

namespace zkwire::recipes {
namespace detail {

lock_ptr make_lock_impl(client& c, std::string directory, lock_kind kind, lock_options options) {
  return std::make_shared<lock_impl>(c, std::move(directory), kind, std::move(options));
}

void link_read_write(const lock_ptr& read, const lock_ptr& write) {
  read->link_sibling(write);
  write->link_sibling(read);
}

void abandon(lock_impl& impl) noexcept { impl.abandon(); }
asio::any_io_executor executor_of(const lock_impl& impl) { return impl.executor(); }

std::uint64_t start_acquire(const lock_ptr& impl, std::chrono::milliseconds timeout, completion_ptr<> done) {
  return impl->start_acquire(timeout, std::move(done));
}
void cancel_acquire(const lock_weak_ptr& impl, std::uint64_t id) {
  if (auto p = impl.lock()) p->cancel_acquire(id);
}
std::uint64_t start_release(const lock_ptr& impl, completion_ptr<> done) {
  return impl->start_release(std::move(done));
}
void cancel_release(const lock_weak_ptr& impl, std::uint64_t id) {
  if (auto p = impl.lock()) p->cancel_release(id);
}
std::uint64_t start_wait_lost(const lock_ptr& impl, completion_ptr<> done) {
  return impl->start_wait_lost(std::move(done));
}
void cancel_wait_lost(const lock_weak_ptr& impl, std::uint64_t id) {
  if (auto p = impl.lock()) p->cancel_wait_lost(id);
}
void start_guarded_multi(const lock_ptr& impl, std::vector<multi_op> ops, completion_ptr<std::vector<op_result>> done) {
  impl->start_guarded_multi(std::move(ops), std::move(done));
}

lock_state state_of(const lock_impl& impl) noexcept { return impl.state(); }
std::size_t hold_count_of(const lock_impl& impl) noexcept { return impl.hold_count(); }
const std::string& directory_of(const lock_impl& impl) noexcept { return impl.directory(); }
lock_kind kind_of(const lock_impl& impl) noexcept { return impl.kind(); }
std::string node_path_of(const lock_impl& impl) { return impl.node() ? impl.node()->path : std::string(); }
std::int64_t fencing_token_of(const lock_impl& impl) noexcept { return impl.node() ? impl.node()->czxid : 0; }
std::int64_t session_of(const lock_impl& impl) noexcept { return impl.node() ? impl.node()->session : 0; }
std::uint64_t wakeups_of(const lock_impl& impl) noexcept { return impl.wakeups(); }
std::shared_ptr<const lock_metrics> metrics_of(const lock_impl& impl) noexcept { return impl.metrics().own(); }
void set_listener(lock_impl& impl, lock_listener listener) { impl.set_listener(std::move(listener)); }
void set_revocation_handler(lock_impl& impl, revocation_handler handler) {
  impl.set_revocation_handler(std::move(handler));
}
asio::cancellation_slot lost_slot_of(lock_impl& impl) noexcept { return impl.lost_slot(); }

bool holds_grant(const lock_impl& impl, std::uint64_t grant) noexcept {
  const auto s = impl.state();
  return impl.grant_id() == grant && impl.hold_count() > 0 &&
         (s == lock_state::held || s == lock_state::uncertain || s == lock_state::lost);
}

void release_grant(const lock_ptr& impl, std::uint64_t grant, completion_ptr<> done) {
  if (!holds_grant(*impl, grant)) {
    complete(std::move(done), lock_errc::not_held);
    return;
  }
  impl->start_release(std::move(done));
}

std::uint64_t start_acquire_hold(const lock_ptr& impl, std::chrono::milliseconds timeout,
                                 completion_ptr<lock_hold> done) {
  // The hold is made when the acquire's answer is delivered, for the grant current then (the one just made).
  auto deliver = [weak = lock_weak_ptr(impl), done = std::move(done)](std::error_code ec) mutable {
    auto self = weak.lock();
    if (!ec && !self) ec = lock_errc::cancelled;
    if (ec) {
      complete(std::move(done), ec, lock_hold{});
      return;
    }
    complete(std::move(done), {}, lock_hold(self, self->grant_id()));
  };
  return impl->start_acquire(timeout, make_completion<>(std::move(deliver), impl->executor()));
}

}  // namespace detail

void lock_hold::release_in_background() noexcept {
  if (!impl_) return;
  const auto impl = std::move(impl_);
  try {
    if (detail::holds_grant(*impl, grant_)) {
      detail::release_grant(impl, grant_,
                            detail::make_completion<>([](std::error_code) {}, detail::executor_of(*impl)));
    }
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor cannot report; the session's end cleans up
  }
}

lock::lock(client& c, std::string directory, lock_options options)
    : lock(c, std::move(directory), lock_kind::exclusive, std::move(options)) {}

lock::lock(client& c, std::string directory, lock_kind kind, lock_options options)
    : impl_(detail::make_lock_impl(c, std::move(directory), kind, std::move(options))) {}

lock::~lock() {
  if (impl_) detail::abandon(*impl_);
}

lock& lock::operator=(lock&& other) noexcept {
  if (this != &other) {
    if (impl_) detail::abandon(*impl_);
    impl_ = std::move(other.impl_);
  }
  return *this;
}

read_write_lock::read_write_lock(client& c, std::string directory, lock_options options)
    : read_(detail::make_lock_impl(c, directory, lock_kind::read, options)),
      write_(detail::make_lock_impl(c, std::move(directory), lock_kind::write, std::move(options))) {
  detail::link_read_write(read_.impl_, write_.impl_);
}

}  // namespace zkwire::recipes
