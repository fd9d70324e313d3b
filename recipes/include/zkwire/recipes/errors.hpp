#pragma once
// Errors of the lock recipes (category "zkwire.recipes"). Operations of the recipes also pass on the client's
// codes unchanged: server codes ("zookeeper": no_auth, invalid_acl, ...), session and request conditions
// ("zkwire.proto": session_expired, closed, cancelled, invalid_path, ...).
//
// Thread safety: the category is an immutable singleton; use it from any thread.

#include <system_error>

namespace zkwire::recipes {

enum class lock_errc : int {
  timeout = 1,           // async_acquire: not acquired within the timeout (timeout 0: another contender holds it)
  lock_lost,             // the lock was lost while held (see lock_state::lost), or a guarded write found our node gone
  not_held,              // release, guarded write or revocation handling on a lock this object does not hold
  upgrade_not_allowed,   // the write lock was asked for while the same read_write_lock holds or awaits the read lock:
                         // it could never be granted (our own reader precedes the writer), so it is refused
  acquire_in_progress,   // async_acquire while another async_acquire of the same lock object is pending
  safety_margin_passed,  // reason of a loss: no server answer for session timeout - margin; another client may be
                         // granted the lock soon, so we stopped holding it before that can happen
  session_changed,       // reason of a loss or failed acquire: the client now runs another session than the one
                         // that owns our node (the old session expired; its node is gone or going)
  already_held,          // async_acquire on a lock object that already holds the lock, without
                         // lock_options::reentrant: a second holder of one object would be a silent bug
  cancelled,             // an acquire was cancelled (== condition::cancelled); the node it created or may have
                         // created is deleted in the background
  node_deleted,          // reason of a loss: our lock node was deleted (by another client or an administrator)
  invalid_lease_count,   // semaphore::async_acquire(count): count is not between 1 and max_leases
  no_leases,             // a semaphore made with max_leases < 1: no acquire can ever succeed
  no_directories,        // a multi_lock made with no lock directory
  // invalid_lease_count, no_leases and no_directories are == condition::invalid_argument: nothing was sent.
  relinquished,  // reason of a leadership's end (election.hpp): this participant gave it up (relinquish, leave)
};

const std::error_category& recipes_category() noexcept;  // name "zkwire.recipes"

inline std::error_code make_error_code(lock_errc e) noexcept { return {static_cast<int>(e), recipes_category()}; }

}  // namespace zkwire::recipes

template <>
struct std::is_error_code_enum<zkwire::recipes::lock_errc> : std::true_type {};
