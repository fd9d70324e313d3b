// blocking_read_write_lock: a local shared gate (one writer, or readers sharing one read node; waiting writers
// hold back new readers) in front of a zkwire::recipes::read_write_lock that lives on the loop thread.

#include <algorithm>
#include <utility>

#include "loop_bridge.hpp"
#include "zkwire/recipes/blocking_lock.hpp"

namespace zkwire::recipes {

namespace {

bool contains(const std::vector<std::thread::id>& ids, std::thread::id id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

blocking_read_write_lock::blocking_read_write_lock(blocking_client& c, std::string path, lock_options options)
    : directory_(std::move(path)), reentrant_(options.reentrant), bridge_(std::make_unique<detail::loop_bridge>(c)) {
  options.reentrant = false;  // the local gate counts repeated holds
  lock_ = bridge_->run(
      [&] { return std::make_unique<read_write_lock>(bridge_->async_client(), directory_, std::move(options)); });
}

blocking_read_write_lock::~blocking_read_write_lock() {
  bridge_->post([l = std::move(lock_)]() mutable { l.reset(); });
}

// --- write side ---

void blocking_read_write_lock::lock() { (void)write_until(std::nullopt); }

bool blocking_read_write_lock::try_lock() { return write_until(std::chrono::steady_clock::now()); }

bool blocking_read_write_lock::write_until(std::optional<std::chrono::steady_clock::time_point> deadline) {
  bridge_->check_thread();  // before the local gate: waiting on it there could block the loop for good
  const auto me = std::this_thread::get_id();
  {
    std::unique_lock gate(mutex_);
    if (writer_ && writer_owner_ == me) {
      if (!reentrant_ || write_depth_ == 0) detail::throw_lock_error(lock_errc::already_held, "lock", directory_);
      ++write_depth_;
      return true;
    }
    if (contains(readers_, me)) detail::throw_lock_error(lock_errc::upgrade_not_allowed, "lock", directory_);
    const auto free = [this] { return !writer_ && readers_.empty() && !read_acquiring_; };
    ++writers_waiting_;
    bool got = true;
    if (!deadline) {
      changed_.wait(gate, free);
    } else {
      got = changed_.wait_until(gate, *deadline, free);
    }
    --writers_waiting_;
    if (!got) {
      changed_.notify_all();  // readers held back by us may go on
      return false;
    }
    writer_ = true;
    writer_owner_ = me;
    write_depth_ = 0;
  }
  const std::error_code ec = bridge_->acquire(lock_->write_lock(), deadline);
  std::lock_guard gate(mutex_);
  if (!ec) {
    write_depth_ = 1;
    return true;
  }
  writer_ = false;
  changed_.notify_all();
  if (ec == lock_errc::timeout) return false;
  detail::throw_lock_error(ec, "lock", directory_);
}

void blocking_read_write_lock::unlock() noexcept {
  {
    std::lock_guard gate(mutex_);
    if (!writer_ || writer_owner_ != std::this_thread::get_id() || write_depth_ == 0) return;
    if (--write_depth_ > 0) return;
  }
  bridge_->release(lock_->write_lock());
  std::lock_guard gate(mutex_);
  writer_ = false;
  changed_.notify_all();
}

// --- read side ---

void blocking_read_write_lock::lock_shared() { (void)read_until(std::nullopt); }

bool blocking_read_write_lock::try_lock_shared() { return read_until(std::chrono::steady_clock::now()); }

bool blocking_read_write_lock::read_until(std::optional<std::chrono::steady_clock::time_point> deadline) {
  bridge_->check_thread();  // before the local gate: waiting on it there could block the loop for good
  const auto me = std::this_thread::get_id();
  {
    std::unique_lock gate(mutex_);
    if (writer_ && writer_owner_ == me) detail::throw_lock_error(lock_errc::already_held, "lock_shared", directory_);
    if (contains(readers_, me)) {
      if (!reentrant_) detail::throw_lock_error(lock_errc::already_held, "lock_shared", directory_);
      readers_.push_back(me);
      return true;
    }
    // Readers already share the node: join them, unless a writer waits (it would starve).
    const auto may_join = [this] { return !writer_ && writers_waiting_ == 0 && !read_acquiring_; };
    if (!deadline) {
      changed_.wait(gate, may_join);
    } else if (!changed_.wait_until(gate, *deadline, may_join)) {
      return false;
    }
    if (!readers_.empty()) {
      readers_.push_back(me);
      return true;
    }
    read_acquiring_ = true;
  }
  const std::error_code ec = bridge_->acquire(lock_->read_lock(), deadline);
  std::lock_guard gate(mutex_);
  read_acquiring_ = false;
  changed_.notify_all();
  if (!ec) {
    readers_.push_back(me);
    return true;
  }
  if (ec == lock_errc::timeout) return false;
  detail::throw_lock_error(ec, "lock_shared", directory_);
}

void blocking_read_write_lock::unlock_shared() noexcept {
  {
    std::lock_guard gate(mutex_);
    const auto it = std::find(readers_.begin(), readers_.end(), std::this_thread::get_id());
    if (it == readers_.end()) return;
    readers_.erase(it);
    if (!readers_.empty()) return;
    // The last local reader deletes the node; new readers wait for that (read_acquiring_ holds them back).
    read_acquiring_ = true;
  }
  bridge_->release(lock_->read_lock());
  std::lock_guard gate(mutex_);
  read_acquiring_ = false;
  changed_.notify_all();
}

lock_state blocking_read_write_lock::write_state() const {
  return bridge_->run([this] { return lock_->write_lock().state(); });
}

lock_state blocking_read_write_lock::read_state() const {
  return bridge_->run([this] { return lock_->read_lock().state(); });
}

std::int64_t blocking_read_write_lock::fencing_token() const {
  return bridge_->run([this] { return lock_->write_lock().fencing_token(); });
}

void blocking_read_write_lock::set_listener(lock_listener listener) {
  bridge_->run([&] {
    lock_->read_lock().set_listener(listener);
    lock_->write_lock().set_listener(std::move(listener));
  });
}

void blocking_read_write_lock::set_revocation_handler(revocation_handler handler) {
  bridge_->run([&] {
    lock_->read_lock().set_revocation_handler(handler);
    lock_->write_lock().set_revocation_handler(std::move(handler));
  });
}

}  // namespace zkwire::recipes
