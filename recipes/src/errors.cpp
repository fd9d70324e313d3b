#include "zkwire/recipes/errors.hpp"

#include <string>

#include "zkwire/proto/error.hpp"

namespace zkwire::recipes {
namespace {

class recipes_category_impl final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "zkwire.recipes"; }
  [[nodiscard]] std::string message(int value) const override {
    switch (static_cast<lock_errc>(value)) {
      case lock_errc::timeout:
        return "the lock was not acquired in time (another contender holds it)";
      case lock_errc::lock_lost:
        return "the lock was lost: another client may hold it now";
      case lock_errc::not_held:
        return "the lock is not held by this lock object";
      case lock_errc::upgrade_not_allowed:
        return "cannot take the write lock while holding the read lock of the same object (release it first)";
      case lock_errc::acquire_in_progress:
        return "an acquire of this lock object is already pending";
      case lock_errc::safety_margin_passed:
        return "no server answer within the session timeout minus the safety margin";
      case lock_errc::session_changed:
        return "the client runs another session than the one that owns the lock node";
      case lock_errc::already_held:
        return "this lock object already holds the lock (it is not reentrant)";
      case lock_errc::cancelled:
        return "the acquire was cancelled; the lock deletes the node it may have created on its own";
      case lock_errc::node_deleted:
        return "the lock node was deleted: by another client or an administrator, so the lock is lost and another "
               "client may hold it now";
      case lock_errc::invalid_lease_count:
        return "invalid lease count: a semaphore acquire asks for 1 to max_leases leases";
      case lock_errc::no_leases:
        return "the semaphore has no leases (max_leases < 1): no acquire can succeed; make it with at least 1";
      case lock_errc::no_directories:
        return "a multi_lock needs at least one lock directory";
      case lock_errc::relinquished:
        return "the leadership was given up by this participant (relinquished, or it left the election)";
    }
    return "unknown zkwire.recipes error " + std::to_string(value);
  }

  [[nodiscard]] bool equivalent(int value, const std::error_condition& cond) const noexcept override {
    switch (static_cast<lock_errc>(value)) {
      case lock_errc::cancelled:
        return cond == proto::condition::cancelled;
      case lock_errc::invalid_lease_count:
      case lock_errc::no_leases:
      case lock_errc::no_directories:
        return cond == proto::condition::invalid_argument;
      default:
        return std::error_category::equivalent(value, cond);
    }
  }
};

}  // namespace

const std::error_category& recipes_category() noexcept {
  static const recipes_category_impl category;
  return category;
}

}  // namespace zkwire::recipes
