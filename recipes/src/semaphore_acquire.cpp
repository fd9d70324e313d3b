// The acquire task of zkwire::recipes::semaphore: for each lease, take the mutex "<path>/locks", create our lease
// node under "<path>/leases", list the leases with a child watch until they are at most max_leases, give the mutex
// back. Whenever the caller got an answer other than "held", every lease node taken or created is deleted.

#include <algorithm>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "semaphore_impl.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::recipes::detail {
namespace {

class semaphore_task {
 public:
  semaphore_task(std::shared_ptr<semaphore_impl> self, std::shared_ptr<lease_attempt> a)
      : self_(std::move(self)),
        a_(std::move(a)),
        link_(self_->link()),
        leases_dir_(proto::child_path(self_->path(), "leases")) {
    lock_options mutex_options;
    mutex_options.data = self_->options().data;
    mutex_options.acl = self_->options().acl;
    mutex_options.safety_margin = self_->options().safety_margin;
    mutex_options.guids = self_->options().guids;
    mutex_.emplace(*link_->target, proto::child_path(self_->path(), "locks"), std::move(mutex_options));
    new_guid();
  }

  asio::awaitable<void> run() {
    const std::error_code failure = co_await acquire_all();
    if (failure) self_->give_up(a_, failure);
    bool granted = false;
    if (!failure && static_cast<std::int32_t>(taken_.size()) == a_->count) granted = self_->grant(a_, taken_);
    // The mutex is given up in the background if still held or pending (the lock's own cleanup guarantee).
    mutex_.reset();
    if (granted) co_return;
    // Not held (or held too late: the caller gave up meanwhile): nothing may be left behind.
    if (node_) taken_.push_back(*node_);
    for (const auto& lease : taken_) {
      auto cleanup = delete_until_gone(link_, lease.path);
      co_await std::move(cleanup);
    }
  }

 private:
  void new_guid() { prefix_ = lease_prefix(make_guid(naming::curator, self_->options().guids)); }

  asio::awaitable<std::error_code> acquire_all() {
    while (static_cast<std::int32_t>(taken_.size()) < a_->count) {
      if (a_->abandoned) co_return std::error_code{};
      auto one = acquire_one();
      if (auto ec = co_await std::move(one)) co_return ec;
    }
    co_return std::error_code{};
  }

  // Takes the mutex, then one lease; gives the mutex back either way.
  asio::awaitable<std::error_code> acquire_one() {
    // The mutex's acquire ends with ours: its requests carry what is left of our limit as their deadline.
    auto take_mutex = mutex_->async_acquire(a_->limits.nested_timeout(link_->get()),
                                            asio::bind_cancellation_slot(a_->stop_mutex.slot(), tuple_awaitable));
    auto [mutex_ec] = co_await std::move(take_mutex);
    if (a_->abandoned) co_return std::error_code{};  // run() gives the mutex up if it was granted meanwhile
    if (mutex_ec) co_return mutex_ec;
    auto lease = take_lease();
    const std::error_code ec = co_await std::move(lease);
    auto give_back = mutex_->async_release(tuple_awaitable);
    co_await std::move(give_back);
    co_return ec;
  }

  // Holding the mutex: creates our lease node and waits until the leases are at most max_leases.
  asio::awaitable<std::error_code> take_lease() {
    for (;;) {
      if (a_->abandoned) co_return std::error_code{};
      if (link_->get() == nullptr) co_return make_error_code(client_error::closed);
      if (a_->session_end) co_return a_->session_end;
      if (!node_) {
        auto created = create_lease();
        if (auto ec = co_await std::move(created)) co_return ec;
        continue;  // re-check abandonment (and retry when nothing was created)
      }
      auto listing = list_leases();
      auto [ec, listed] = co_await std::move(listing);
      if (a_->limits.out_of_time(ec, link_->get())) co_return make_error_code(lock_errc::timeout);
      if (ec) {
        auto failure = after_failed_listing(link_, ec);
        const auto [end, node_gone] = co_await std::move(failure);
        if (end) co_return end;
        if (node_gone) forget_node();
        continue;
      }
      const auto& children = listed.children;
      if (std::find(children.begin(), children.end(), node_->name()) == children.end()) {
        forget_node();  // deleted by someone else, or our session ended: start over
        continue;
      }
      if (static_cast<std::int64_t>(children.size()) <= self_->max_leases()) {
        if (!self_->may_grant_now()) {  // answers too old to take a lease on (hold_monitor::may_grant_now)
          auto connected = wait_connected(link_);
          if (auto wait_ec = co_await std::move(connected)) co_return wait_ec;
          continue;
        }
        taken_.push_back(*node_);
        node_.reset();
        new_guid();
        co_return std::error_code{};
      }
      if (a_->limits.try_once) co_return make_error_code(lock_errc::timeout);
      co_await a_->wake.wait();
    }
  }

  // Lists the leases, bounded by our limit. A try-once acquire does not wait for a change, so it sets no watch (its
  // request is bounded by the client's request_timeout). Otherwise the listing sets a child watch; should it time
  // out after the server registered that watch, the session engine removes it when the late reply arrives.
  asio::awaitable<std::tuple<std::error_code, children_result>> list_leases() {
    client* c = link_->get();
    if (c == nullptr) co_return std::tuple{make_error_code(client_error::closed), children_result{}};
    if (a_->limits.try_once) {
      auto listing = a_->limits.bounded(c, [&](auto token) { return c->async_get_children(leases_dir_, token); });
      co_return co_await std::move(listing);
    }
    watch_callback on_change = [weak_attempt = std::weak_ptr<lease_attempt>(a_)](const watch_event& e) {
      auto a = weak_attempt.lock();
      if (!a) return;
      if (is_session_fatal(e.error)) a->session_end = e.error;
      a->wake.set();
    };
    auto listing = a_->limits.bounded(
        c, [&](auto token) { return c->async_get_children(leases_dir_, std::move(on_change), std::move(token)); });
    co_return co_await std::move(listing);
  }

  // Creates our lease node (node_ set when created); an empty error with node_ unset means "try again".
  asio::awaitable<std::error_code> create_lease() {
    client* c = link_->get();
    if (c == nullptr) co_return make_error_code(client_error::closed);
    create_options options;
    options.mode = create_mode::ephemeral_sequential;
    options.acl = self_->options().acl;
    auto create = a_->limits.bounded(c, [&](auto token) {
      return c->async_create(proto::child_path(leases_dir_, prefix_), self_->options().data, options, token);
    });
    auto [ec, created] = co_await std::move(create);
    // Out of time with the create's outcome unknown: the caller gets its answer now, and the search below (no limit:
    // it is cleanup) finds the node if the server applied the create, for run() to delete.
    if (a_->limits.out_of_time(ec, link_->get())) self_->give_up(a_, lock_errc::timeout);
    if (!ec) {
      node_ = owned_node{created.path, created.stat.czxid, created.stat.ephemeral_owner};
      co_return std::error_code{};
    }
    if (ec == server_error::no_node) {
      auto ensure = ensure_directory(link_, leases_dir_, self_->options().acl);
      const std::error_code ensured = co_await std::move(ensure);
      co_return ensured;
    }
    if (is_connection_loss(ec)) {
      auto recover = find_own_lease();
      const std::error_code recovered = co_await std::move(recover);
      co_return recovered;
    }
    co_return ec;
  }

  // After a create whose outcome is unknown: adopts the lease with our prefix if the current session created it.
  asio::awaitable<std::error_code> find_own_lease() {
    auto search = find_own_node(link_, leases_dir_, prefix_);
    auto found = co_await std::move(search);
    if (found.error) co_return found.error;
    if (found.node) node_ = std::move(found.node);
    if (found.other_session) new_guid();  // that node dies with its session; never reuse its prefix
    co_return std::error_code{};
  }

  void forget_node() {
    node_.reset();
    new_guid();
  }

  std::shared_ptr<semaphore_impl> self_;
  std::shared_ptr<lease_attempt> a_;
  link_ptr link_;
  std::string leases_dir_;
  std::string prefix_;
  std::optional<lock> mutex_;
  std::optional<owned_node> node_;  // the lease being taken
  std::vector<owned_node> taken_;   // leases taken by this attempt
};

}  // namespace

void spawn_semaphore_acquire(const std::shared_ptr<semaphore_impl>& impl, const std::shared_ptr<lease_attempt>& a) {
  auto task = std::make_shared<semaphore_task>(impl, a);
  asio::co_spawn(
      impl->executor(),
      [](std::shared_ptr<semaphore_task> t) -> asio::awaitable<void> { co_await t->run(); }(std::move(task)),
      asio::detached);
}

}  // namespace zkwire::recipes::detail
