#include "semaphore_impl.hpp"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <utility>

namespace zkwire::recipes::detail {

semaphore_impl::semaphore_impl(client& c, std::string path, std::int32_t max_leases, semaphore_options options)
    : hold_monitor(c, options.safety_margin),
      path_(std::move(path)),
      max_leases_(max_leases),
      options_(std::move(options)),
      metrics_(options_.metrics, clock(), path_, lock_kind::exclusive) {
  if (options_.data.empty()) options_.data = default_lock_data();
}

// --- acquire ---

std::uint64_t semaphore_impl::start_acquire(std::int32_t count, std::chrono::milliseconds timeout,
                                            completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  std::error_code refuse = acquire_refusal(state_, current_ != nullptr);
  if (!refuse && max_leases_ < 1) refuse = lock_errc::no_leases;
  if (!refuse && (count < 1 || count > max_leases_)) refuse = lock_errc::invalid_lease_count;
  if (!refuse && link_->get() == nullptr) refuse = client_error::closed;
  if (refuse) {
    complete(std::move(done), refuse);
    return id;
  }
  auto a = std::make_shared<lease_attempt>(executor());
  a->id = id;
  a->count = count;
  a->done = std::move(done);
  current_ = a;
  start_deadline(shared_from_this(), a, clock(), executor(), timeout);
  metrics_.acquire_started();
  set_state(lock_state::acquiring, {});
  spawn_semaphore_acquire(shared_from_this(), a);
  return id;
}

void semaphore_impl::cancel_acquire(std::uint64_t id) {
  if (current_ && current_->id == id) give_up(current_, lock_errc::cancelled);
}

void semaphore_impl::give_up(const std::shared_ptr<lease_attempt>& a, std::error_code ec) {
  give_up_attempt(current_, a, metrics_, ec, [&a] { a->stop_mutex.emit(asio::cancellation_type::terminal); });
}

bool semaphore_impl::grant(const std::shared_ptr<lease_attempt>& a, const std::vector<owned_node>& leases) {
  if (a->abandoned || current_ != a) return false;
  current_.reset();
  if (a->deadline) a->deadline->cancel();
  leases_ = leases;
  ++generation_;
  metrics_.acquire_ended({});
  set_state(lock_state::held, {});
  auto done = std::move(a->done);
  a->abandoned = true;
  complete(std::move(done), {});
  for (std::size_t i = 0; i < leases_.size(); ++i) watch_lease(i, generation_);
  arm_margin_timer(generation_);
  catch_up_with_session();
  return true;
}

// --- holding ---

void semaphore_impl::watch_lease(std::size_t index, std::uint64_t generation) {
  client* c = link_->get();
  if (c == nullptr || index >= leases_.size()) return;
  auto weak = std::weak_ptr<semaphore_impl>(shared_from_this());
  c->async_get(
      leases_[index].path,
      [weak, index, generation](const watch_event& e) {
        auto self = weak.lock();
        if (!self || self->generation_ != generation) return;
        if (e.error) {
          self->on_lost(e.error);
        } else if (e.type == event_type::node_deleted) {
          self->on_lost(lock_errc::node_deleted);
        } else {
          self->watch_lease(index, generation);  // data changed, or a waiter of this client removed the watch
        }
      },
      [weak, generation](std::error_code ec, const get_result&) {
        auto self = weak.lock();
        if (!self || self->generation_ != generation) return;
        // Connection loss: verify_after_reconnect watches again.
        if (ec == server_error::no_node) self->on_lost(lock_errc::node_deleted);
        if (is_session_fatal(ec)) self->on_lost(ec);
      });
}

std::vector<const owned_node*> semaphore_impl::held_nodes() const {
  std::vector<const owned_node*> nodes;
  nodes.reserve(leases_.size());
  for (const auto& lease : leases_) nodes.push_back(&lease);
  return nodes;
}

void semaphore_impl::on_verified(std::uint64_t generation) {
  for (std::size_t i = 0; i < leases_.size(); ++i) watch_lease(i, generation);
}

void semaphore_impl::on_lost(std::error_code reason) {
  if (state_ != lock_state::held && state_ != lock_state::uncertain) return;
  ++generation_;
  cancel_margin_timer();
  metrics_.hold_ended(reason);
  // If the session lives on (safety margin), our remaining leases would count against everyone: delete them, each
  // only if it is still ours (after session_changed the node at its path may be another session's). Started before
  // anyone hears of the loss: a listener that releases at once makes us forget the leases.
  for (const auto& lease : leases_) asio::co_spawn(executor(), delete_own_until_gone(link_, lease), asio::detached);
  set_state(lock_state::lost, reason);
  lost_waiters_.finish_all(lock_errc::lock_lost);
}

// --- release ---

void semaphore_impl::end_hold() {
  ++generation_;  // the margin wakeup may stay pending (arm_margin_timer): it finds no hold
  leases_.clear();
  set_state(lock_state::released, {});
}

std::uint64_t semaphore_impl::start_release(completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  if (state_ == lock_state::lost) {
    end_hold();  // the deletes were started when the leases were lost
    complete(std::move(done), lock_errc::lock_lost);
    return id;
  }
  if (state_ != lock_state::held && state_ != lock_state::uncertain) {
    complete(std::move(done), lock_errc::not_held);
    return id;
  }
  auto paths = std::make_shared<std::vector<std::string>>();
  for (const auto& lease : leases_) paths->push_back(lease.path);
  metrics_.hold_ended({});
  end_hold();
  lost_waiters_.finish_all(lock_errc::not_held);
  releases_.add(id, std::move(done));
  auto release = [](std::shared_ptr<semaphore_impl> self, std::shared_ptr<std::vector<std::string>> nodes,
                    std::uint64_t release_id) -> asio::awaitable<void> {
    for (const auto& node : *nodes) {
      auto cleanup = delete_until_gone(self->link_, node);
      co_await std::move(cleanup);
    }
    self->releases_.finish(release_id, {});
  };
  asio::co_spawn(executor(), release(shared_from_this(), std::move(paths), id), asio::detached);
  return id;
}

void semaphore_impl::cancel_release(std::uint64_t id) { releases_.finish(id, client_error::cancelled); }

std::uint64_t semaphore_impl::start_wait_lost(completion_ptr<> done) {
  const std::uint64_t id = next_id_++;
  lost_waiters_.add_lost_waiter(state_, id, std::move(done));
  return id;
}

void semaphore_impl::cancel_wait_lost(std::uint64_t id) { lost_waiters_.finish(id, client_error::cancelled); }

void semaphore_impl::abandon() noexcept {
  try {
    // The owner is going away: its listener (and what it refers to) may be gone already.
    listener_ = nullptr;
    if (current_) give_up(current_, lock_errc::cancelled);
    if (state_ == lock_state::held || state_ == lock_state::uncertain) {
      start_release(make_completion<>([](std::error_code) {}, executor()));
    } else if (state_ == lock_state::lost) {
      end_hold();
    }
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor cannot report; the session's end cleans up
  }
}

// --- boundary functions of semaphore.hpp ---

semaphore_ptr make_semaphore_impl(client& c, std::string path, std::int32_t max_leases, semaphore_options options) {
  return std::make_shared<semaphore_impl>(c, std::move(path), max_leases, std::move(options));
}
asio::any_io_executor executor_of(const semaphore_impl& impl) { return impl.executor(); }
void abandon(semaphore_impl& impl) noexcept { impl.abandon(); }
std::uint64_t start_acquire(const semaphore_ptr& impl, std::int32_t count, std::chrono::milliseconds timeout,
                            completion_ptr<> done) {
  return impl->start_acquire(count, timeout, std::move(done));
}
void cancel_acquire(const std::weak_ptr<semaphore_impl>& impl, std::uint64_t id) {
  if (auto p = impl.lock()) p->cancel_acquire(id);
}
std::uint64_t start_release(const semaphore_ptr& impl, completion_ptr<> done) {
  return impl->start_release(std::move(done));
}
void cancel_release(const std::weak_ptr<semaphore_impl>& impl, std::uint64_t id) {
  if (auto p = impl.lock()) p->cancel_release(id);
}
std::uint64_t start_wait_lost(const semaphore_ptr& impl, completion_ptr<> done) {
  return impl->start_wait_lost(std::move(done));
}
void cancel_wait_lost(const std::weak_ptr<semaphore_impl>& impl, std::uint64_t id) {
  if (auto p = impl.lock()) p->cancel_wait_lost(id);
}
lock_state state_of(const semaphore_impl& impl) noexcept { return impl.state(); }
std::vector<std::string> lease_paths_of(const semaphore_impl& impl) {
  std::vector<std::string> paths;
  for (const auto& lease : impl.leases()) paths.push_back(lease.path);
  return paths;
}
std::int64_t fencing_token_of(const semaphore_impl& impl) noexcept {
  return impl.leases().empty() ? 0 : impl.leases().front().czxid;
}
std::int64_t session_of(const semaphore_impl& impl) noexcept {
  return impl.leases().empty() ? 0 : impl.leases().front().session;
}
std::int32_t max_leases_of(const semaphore_impl& impl) noexcept { return impl.max_leases(); }
const std::string& path_of(const semaphore_impl& impl) noexcept { return impl.path(); }
void set_listener(semaphore_impl& impl, lock_listener listener) { impl.set_listener(std::move(listener)); }
std::shared_ptr<const lock_metrics> metrics_of(const semaphore_impl& impl) noexcept { return impl.metrics().own(); }

}  // namespace zkwire::recipes::detail

namespace zkwire::recipes {

semaphore_options::semaphore_options() = default;  // out of line: not an aggregate (semaphore.hpp)

semaphore::semaphore(client& c, std::string path, std::int32_t max_leases, semaphore_options options)
    : impl_(detail::make_semaphore_impl(c, std::move(path), max_leases, std::move(options))) {}

semaphore::~semaphore() {
  if (impl_) detail::abandon(*impl_);
}

}  // namespace zkwire::recipes
