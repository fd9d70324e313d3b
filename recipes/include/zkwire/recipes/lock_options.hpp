#pragma once
// The vocabulary of the lock recipes (lock.hpp, semaphore.hpp, multi_lock.hpp, lock_keeper.hpp): a lock's states,
// its state events and listeners, and lock_options. Plain values.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "zkwire/client/types.hpp"
#include "zkwire/recipes/detail/named_option.hpp"
#include "zkwire/recipes/lock_metrics.hpp"
#include "zkwire/recipes/node_name.hpp"

namespace zkwire::recipes {

enum class lock_state {
  released,   // not held, no acquire pending
  acquiring,  // an async_acquire is pending
  held,       // our node is the holder and our session is healthy
  uncertain,  // held, but the connection is broken: the session may still live (do not act on the lock now)
  lost,       // no longer held; call async_release to reset
};
std::string_view lock_state_name(lock_state s) noexcept;  // "released", "acquiring", "held", "uncertain", "lost"

struct lock_event {
  lock_state from = lock_state::released;
  lock_state to = lock_state::released;
  // Why, for `uncertain` and `lost`: the client's error (session_expired, closed, connection_loss),
  // lock_errc::node_deleted (our node was deleted), lock_errc::safety_margin_passed or lock_errc::session_changed.
  std::error_code reason;
};
// Called on the client's executor; must not throw. May call the lock (e.g. start async_release).
using lock_listener = std::function<void(const lock_event&)>;
// Called on the client's executor with the data written to our node ("unlock" or "__REVOKE__").
using revocation_handler = std::function<void(const std::string& request)>;

// The default holder identity stored in our node: "<hostname>:<pid>".
std::string default_lock_data();

// Not an aggregate (client/types.hpp, create_options, says why): set the fields by name on a variable, or take a
// named one inline (`lock_options::with_naming(naming::kazoo)`), safe as a temporary inside co_await.
struct lock_options {
  lock_options();

  // Named options: the defaults with one field set.
  static lock_options with_naming(naming format) { return detail::with_field(&lock_options::name_format, format); }
  static lock_options with_data(std::string holder_data) {
    return detail::with_field(&lock_options::data, std::move(holder_data));
  }
  static lock_options with_safety_margin(std::chrono::milliseconds margin) {
    return detail::with_field(&lock_options::safety_margin, margin);
  }
  static lock_options with_acl(std::vector<zkwire::acl> entries) {
    return detail::with_field(&lock_options::acl, std::move(entries));
  }
  static lock_options with_reentrancy() { return detail::with_field(&lock_options::reentrant, true); }

  naming name_format = naming::curator;
  // Data of our node (who holds it, for `zkwire locks`); default_lock_data() when empty.
  std::string data;
  // Lost is signalled at last_answered_send_time() + session_timeout() - safety_margin at the latest. Empty:
  // a quarter of the negotiated session timeout. Keep it below 2/3 of the timeout (the client pings when idle
  // for a third of it), or a healthy lock would be reported lost.
  std::optional<std::chrono::milliseconds> safety_margin;
  // ACL of our lock node and of the directories created for it.
  std::vector<zkwire::acl> acl = zkwire::open_acl_unsafe();
  // Acquiring a lock object that already holds counts up instead of failing with lock_errc::already_held.
  bool reentrant = false;
  // Also count this object's events here (lock_metrics.hpp "Ownership"): share one between the lock objects of a
  // client for a per-client aggregate. Empty: only the object's own metrics() count.
  std::shared_ptr<lock_metrics> metrics;
  // The random bits of our node's guid (node_name.hpp guid_source): random by default; seeded to replay a run.
  guid_source guids;
};

}  // namespace zkwire::recipes
