// blocking_lock: a local gate (one thread per object at a time) in front of a zkwire::recipes::lock that lives on
// the blocking client's loop thread.

#include "zkwire/recipes/blocking_lock.hpp"

#include <utility>

#include "loop_bridge.hpp"

namespace zkwire::recipes {

blocking_lock::blocking_lock(blocking_client& c, std::string path, lock_options options)
    : directory_(std::move(path)), reentrant_(options.reentrant), bridge_(std::make_unique<detail::loop_bridge>(c)) {
  // The ZooKeeper side is never reentrant: the local gate counts repeated holds of one thread.
  options.reentrant = false;
  lock_ = bridge_->run(
      [&] { return std::make_unique<recipes::lock>(bridge_->async_client(), directory_, std::move(options)); });
}

blocking_lock::~blocking_lock() {
  // The lock object is destroyed on the loop thread, where it gives a held lock up in the background.
  bridge_->post([l = std::move(lock_)]() mutable { l.reset(); });
}

void blocking_lock::lock() { (void)acquire_until(std::nullopt); }

bool blocking_lock::try_lock() { return acquire_until(std::chrono::steady_clock::now()); }

bool blocking_lock::acquire_until(std::optional<std::chrono::steady_clock::time_point> deadline) {
  bridge_->check_thread();  // before the local gate: waiting on it there could block the loop for good
  {
    std::unique_lock gate(mutex_);
    if (taken_ && owner_ == std::this_thread::get_id()) {
      if (!reentrant_ || depth_ == 0) detail::throw_lock_error(lock_errc::already_held, "lock", directory_);
      ++depth_;
      return true;
    }
    const auto free = [this] { return !taken_; };
    if (!deadline) {
      changed_.wait(gate, free);
    } else if (!changed_.wait_until(gate, *deadline, free)) {
      return false;
    }
    taken_ = true;
    owner_ = std::this_thread::get_id();
    depth_ = 0;  // acquiring
  }
  const std::error_code ec = bridge_->acquire(*lock_, deadline);
  std::lock_guard gate(mutex_);
  if (!ec) {
    depth_ = 1;
    return true;
  }
  taken_ = false;
  changed_.notify_all();
  if (ec == lock_errc::timeout) return false;
  detail::throw_lock_error(ec, "lock", directory_);
}

void blocking_lock::unlock() noexcept {
  {
    std::lock_guard gate(mutex_);
    if (!taken_ || owner_ != std::this_thread::get_id() || depth_ == 0) return;
    if (--depth_ > 0) return;
  }
  bridge_->release(*lock_);
  std::lock_guard gate(mutex_);
  taken_ = false;
  changed_.notify_all();
}

lock_state blocking_lock::state() const {
  return bridge_->run([this] { return lock_->state(); });
}

std::shared_ptr<const lock_metrics> blocking_lock::metrics() const {
  return bridge_->run([this] { return lock_->metrics(); });
}

std::int64_t blocking_lock::fencing_token() const {
  return bridge_->run([this] { return lock_->fencing_token(); });
}

std::string blocking_lock::node_path() const {
  return bridge_->run([this] { return lock_->node_path(); });
}

void blocking_lock::set_listener(lock_listener listener) {
  bridge_->run([&] { lock_->set_listener(std::move(listener)); });
}

void blocking_lock::set_revocation_handler(revocation_handler handler) {
  bridge_->run([&] { lock_->set_revocation_handler(std::move(handler)); });
}

}  // namespace zkwire::recipes
