#include "client_lock.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

namespace zkwire::capi {

namespace {

thread_local int locks_held = 0;
thread_local std::vector<std::shared_ptr<std::atomic<std::uint32_t>>> wakes;  // for when locks_held is 0 again

void futex_wake(std::atomic<std::uint32_t>& word) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

}  // namespace

client_lock_guard::client_lock_guard(std::recursive_mutex& lock) : lock_(lock) {
  lock_.lock();
  ++locks_held;
}

client_lock_guard::~client_lock_guard() {
  lock_.unlock();
  if (--locks_held > 0) return;
  auto due = std::move(wakes);
  wakes.clear();
  for (const auto& word : due) futex_wake(*word);
}

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) noexcept {
  static_assert(sizeof word == sizeof(std::uint32_t) && std::atomic<std::uint32_t>::is_always_lock_free);
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}

void wake_after_unlock(std::shared_ptr<std::atomic<std::uint32_t>> word) {
  if (locks_held == 0) {
    futex_wake(*word);
    return;
  }
  wakes.push_back(std::move(word));
}

}  // namespace zkwire::capi
