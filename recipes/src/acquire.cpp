// The acquire task of zkwire::recipes::lock: create our node (pipelined with the first listing), recover a create
// whose reply was lost, wait on exactly one blocker at a time, and clean up whenever the caller got an answer
// other than "held" (timeout, cancellation, error).

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lock_impl.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::recipes::detail {

asio::awaitable<recovery> find_own_node(link_ptr link, std::string directory, std::string prefix) {
  for (;;) {
    auto connected = wait_connected(link);
    if (auto ec = co_await std::move(connected)) co_return recovery{ec, std::nullopt, false};
    client* c = link->get();
    if (c == nullptr) co_return recovery{make_error_code(client_error::closed), std::nullopt, false};
    // sync: the server we list from may be a follower that has not yet applied the create we are looking for.
    auto synced = c->async_sync(directory, tuple_awaitable);
    auto [sync_ec] = co_await std::move(synced);
    if (is_connection_loss(sync_ec)) continue;
    if (sync_ec == server_error::no_node) co_return recovery{};
    if (sync_ec) co_return recovery{sync_ec, std::nullopt, false};
    c = link->get();
    if (c == nullptr) co_return recovery{make_error_code(client_error::closed), std::nullopt, false};
    auto listing = c->async_get_children(directory, tuple_awaitable);
    auto [list_ec, listed] = co_await std::move(listing);
    if (is_connection_loss(list_ec)) continue;
    if (list_ec == server_error::no_node) co_return recovery{};
    if (list_ec) co_return recovery{list_ec, std::nullopt, false};
    const std::string* mine = nullptr;
    for (const auto& child : listed.children) {
      if (has_prefix_and_sequence(child, prefix)) mine = &child;
    }
    if (mine == nullptr) co_return recovery{};
    const std::string name = *mine;
    c = link->get();
    if (c == nullptr) co_return recovery{make_error_code(client_error::closed), std::nullopt, false};
    const std::int64_t session = c->session_id();
    auto lookup = c->async_exists(proto::child_path(directory, name), tuple_awaitable);
    auto [exists_ec, st] = co_await std::move(lookup);
    if (is_connection_loss(exists_ec)) continue;
    if (exists_ec) co_return recovery{exists_ec, std::nullopt, false};
    if (!st) co_return recovery{};
    // Adopt only a node of the session we run now (a dying earlier session's node may still be listed).
    if (st->ephemeral_owner != session) co_return recovery{{}, std::nullopt, true};
    co_return recovery{{}, owned_node{proto::child_path(directory, name), st->czxid, session}, false};
  }
}

namespace {

// The task is the attempt too (one allocation per waiter): the lock holds it as its current attempt, and the task
// refers to its attempt part through a().
class acquire_task : public attempt, public std::enable_shared_from_this<acquire_task> {
 public:
  explicit acquire_task(std::shared_ptr<lock_impl> self) : self_(std::move(self)) { new_guid(); }
  ~acquire_task() = default;
  acquire_task(const acquire_task&) = delete;
  acquire_task& operator=(const acquire_task&) = delete;
  acquire_task(acquire_task&&) = delete;
  acquire_task& operator=(acquire_task&&) = delete;

  // Starts (or, after it parked, resumes) the task on the lock's executor.
  static void launch(std::shared_ptr<acquire_task> task) {
    const auto executor = task->self_->executor();
    asio::co_spawn(
        executor, [](std::shared_ptr<acquire_task> t) -> asio::awaitable<void> { co_await t->run(); }(std::move(task)),
        asio::detached);
  }

  // From the start, or from the listing after a wakeup: the task keeps its state (node, prefix, watch) in members
  // and nothing on coroutine frames while it is parked.
  asio::awaitable<void> run() {
    parked_ = false;
    const std::error_code failure = co_await acquire();
    if (parked_) co_return;  // resumed by the next wakeup
    if (failure) self_->give_up(shared_attempt(), failure);
    // Not held (or held too late: the caller gave up meanwhile): nothing may be left behind.
    if (node_) {
      auto cleanup = delete_until_gone(self_->link(), node_->path);
      co_await std::move(cleanup);
    }
    // A blocker watch that never fired would stay registered (in the client and the server) as long as that
    // contender holds: a try-lock loop against a long-held lock would grow without bound. Remove it.
    if (!watched_.empty() && !watch_fired_) {
      auto remove = remove_data_watches(self_->link(), proto::child_path(self_->directory(), watched_));
      co_await std::move(remove);
    }
  }

 private:
  [[nodiscard]] std::shared_ptr<attempt> shared_attempt() { return shared_from_this(); }
  // The attempt part (the task is its attempt; not a member pointer: one waiter is one of possibly thousands).
  [[nodiscard]] attempt* a() noexcept { return this; }
  [[nodiscard]] const attempt* a() const noexcept { return this; }

  void new_guid() { prefix_ = self_->rule().node_prefix(self_->guids()); }

  // The client, or null once it is gone (closed or destroyed).
  [[nodiscard]] client* live_client() const { return self_->link()->get(); }

  // Whether our node belongs to the session the client runs now. A grant is made only then: a node of an earlier
  // session (still listed while its removal is in flight, or by a follower behind) is never held, whatever the
  // listing says; that session ended, and the node goes with it.
  [[nodiscard]] bool node_of_current_session() const {
    const client* c = live_client();
    return c != nullptr && node_ && c->session_id() == node_->session;
  }

  // The acquire's limit on its requests (acquire_deadline.hpp).
  [[nodiscard]] std::optional<std::chrono::nanoseconds> remaining() const {
    return a()->limits.remaining(live_client());
  }
  template <class Start>
  [[nodiscard]] auto bounded(Start start) const {
    return a()->limits.bounded(live_client(), std::move(start));
  }
  [[nodiscard]] bool out_of_time(std::error_code ec) const { return a()->limits.out_of_time(ec, live_client()); }

  // Runs until we hold (node_ handed to the lock, empty error), the caller gave up (empty error, node_ to clean
  // up), or an error ends the acquire.
  asio::awaitable<std::error_code> acquire() {
    std::optional<std::vector<std::string>> children;
    std::int64_t listed_zxid = 0;  // the state `children` shows: after this transaction
    auto first = first_session();
    if (auto ec = co_await std::move(first)) co_return ec;
    for (;;) {
      if (a()->abandoned) co_return std::error_code{};
      if (live_client() == nullptr) co_return make_error_code(client_error::closed);
      if (session_end_) co_return session_end_;
      if (!node_) {
        auto created = co_await create_node();
        if (created.error) co_return created.error;
        if (!node_) continue;  // retry (directory recreated, unknown outcome resolved as "not created", new guid)
        std::string().swap(prefix_);  // only a create needs it (a waiter would keep it for nothing); see forget_node()
        children = std::move(created.children);
        listed_zxid = created.zxid;
        continue;  // re-check abandonment before using the node
      }
      if (!children && next_in_line_ && blocker_deleted_ && (self_->rule().sequence_order() || deleted_first_) &&
          self_->may_grant_now()) {
        if (!node_of_current_session()) co_return make_error_code(lock_errc::session_changed);
        // Our listing showed the blocker as the only contender that kept us from holding, and it is deleted. In
        // sequence order a node created since has a larger sequence number than ours, so nothing can have queued
        // ahead of us; in an election's order (a peer's text order too) the listing's child watch showed that the
        // deletion was the directory's first change since the listing, so the directory is that listing without
        // the blocker, where we hold. Either way we hold without listing again (with one waiter behind a holder, a
        // handoff is then one delete and one notification). Whatever changed later came after our turn.
        if (self_->grant(shared_attempt(), *node_, 0)) node_.reset();
        co_return std::error_code{};
      }
      if (!children) {
        client* c = live_client();
        if (c == nullptr) co_return make_error_code(client_error::closed);
        auto listing = bounded([&](auto token) {
          if (self_->rule().sequence_order()) return c->async_get_children(self_->directory(), std::move(token));
          return c->async_get_children(self_->directory(), listing_watch(), std::move(token));
        });
        auto [ec, listed] = co_await std::move(listing);
        if (out_of_time(ec)) co_return make_error_code(lock_errc::timeout);
        if (ec) {
          auto failure = after_failed_listing(self_->link(), ec);
          const auto [end, node_gone] = co_await std::move(failure);
          if (end) co_return end;
          if (node_gone) forget_node();
          continue;
        }
        children = std::move(listed.children);
        listed_zxid = listed.zxid;
      }
      // Only the position outlives this statement: a waiter suspended below must not keep the whole listing in its
      // coroutine frame (with N waiters that would be N listings of N names).
      const auto pos = self_->rule().locate(*children, node_->name(), self_->sibling_held_node());
      children.reset();
      if (!pos.found) {  // deleted by someone else, or our session ended: start over
        forget_node();
        continue;
      }
      if (!a()->abandoned) self_->count_enqueued(pos.ahead);  // the first listing of this attempt only counts
      if (!pos.blocker) {
        if (!self_->may_grant_now()) {
          // These answers are too old to hold on (or the connection is down): wait for it and list again. An expired
          // session ends the acquire here rather than after a grant of a hold already lost.
          auto connected = wait_connected(self_->link());
          if (auto wait_ec = co_await std::move(connected)) co_return wait_ec;
          continue;
        }
        if (!node_of_current_session()) co_return make_error_code(lock_errc::session_changed);
        const bool alone = self_->rule().sequence_order() && pos.ahead == 0 && pos.last;
        const std::int64_t alone_zxid = alone && listed_zxid > 0 ? listed_zxid : 0;
        if (self_->grant(shared_attempt(), *node_, alone_zxid)) node_.reset();  // the lock owns it now
        co_return std::error_code{};
      }
      if (a()->limits.try_once) co_return make_error_code(lock_errc::timeout);
      next_in_line_ = pos.holds_once_blocker_goes;
      if (auto ec = co_await wait_for(*pos.blocker)) co_return ec;
      if (parked_) co_return std::error_code{};
    }
  }

  // A client that never had a session would queue our create until it gets one, however long that takes; if its
  // servers close every connection unanswered (maxClientCnxns), the acquire ends with that cause instead
  // (docs/protocol.md#closed-before-handshake). Any other outcome of the wait goes on as before: the create and
  // the session checks below deal with it. A try-once acquire keeps its bound (the request timeout) and skips this.
  asio::awaitable<std::error_code> first_session() {
    client* c = live_client();
    if (c == nullptr || a()->limits.try_once) co_return std::error_code{};
    if (c->state() != session_state::not_started && c->state() != session_state::connecting) {
      co_return std::error_code{};
    }
    auto connect = c->async_connect(tuple_awaitable);
    auto [ec] = co_await std::move(connect);
    co_return ec == client_errc::closed_before_handshake ? ec : std::error_code{};
  }

  struct create_outcome {
    std::error_code error;
    std::optional<std::vector<std::string>> children;
    std::int64_t zxid = 0;  // of the state `children` shows
  };

  // Our node, created with the first listing behind it, or alone when the last release may have left the directory
  // known exactly (follows_quiet_release): where one client takes and releases a lock nobody else wants, that saves
  // the listing of every acquire. If the guess fails, acquire() lists on its own: one more round trip.
  asio::awaitable<create_outcome> create_node() {
    create_options options;
    options.mode = create_mode::ephemeral_sequential;
    options.acl = self_->acl();
    create_and_list_result r;
    const bool listing = !self_->expects_quiet();
    if (listing) {
      auto pipelined = create_and_list(self_->link(), proto::child_path(self_->directory(), prefix_), self_->data(),
                                       options, self_->directory(), remaining(),
                                       self_->rule().sequence_order() ? watch_callback{} : listing_watch());
      r = co_await std::move(pipelined);
    } else if (client* c = live_client(); c == nullptr) {
      r.create_error = make_error_code(client_error::closed);
    } else {
      auto create = bounded([&](auto token) {
        return c->async_create(proto::child_path(self_->directory(), prefix_), self_->data(), options,
                               std::move(token));
      });
      std::tie(r.create_error, r.created) = co_await std::move(create);
    }
    // Out of time with the create's outcome unknown: the caller gets its answer now, and the search below (no
    // deadline: it is cleanup) finds the node if the server applied the create, for run() to delete.
    if (out_of_time(r.create_error)) self_->give_up(shared_attempt(), lock_errc::timeout);
    const bool alone = !r.create_error && self_->follows_quiet_release(r.created.stat);
    if (!r.create_error) {
      node_ = owned_node{r.created.path, r.created.stat.czxid, r.created.stat.ephemeral_owner};
      create_outcome out;
      if (alone) {
        out.children.emplace().emplace_back(node_->name());
        out.zxid = node_->czxid;
      } else if (listing && !r.list_error) {
        out.children = std::move(r.listed.children);
        out.zxid = r.listed.zxid;
      }
      co_return out;
    }
    if (r.create_error == server_error::no_node) {
      // The directory is missing, or was reaped (an empty container) since we made it: make it again.
      auto ensure = ensure_directory(self_->link(), self_->directory(), self_->acl());
      const std::error_code ensured = co_await std::move(ensure);
      co_return create_outcome{ensured, std::nullopt};
    }
    if (is_connection_loss(r.create_error)) {
      auto search = find_own_node(self_->link(), self_->directory(), prefix_);
      auto found = co_await std::move(search);
      if (found.error) co_return create_outcome{found.error, std::nullopt};
      if (found.node) node_ = std::move(found.node);
      if (found.other_session) new_guid();  // that node dies with its session; never reuse its prefix
      co_return create_outcome{};
    }
    co_return create_outcome{r.create_error, std::nullopt};
  }

  // Watches `blocker` and waits until it changes or the caller gives up. Empty error: list again.
  asio::awaitable<std::error_code> wait_for(const std::string& blocker) {
    client* c = live_client();
    if (c == nullptr) co_return make_error_code(client_error::closed);
    // The callback is built outside the co_await expression: GCC 12 destroys a temporary closure with captures
    // twice when it is created inside one (its weak_ptrs' counts then go wrong). Every co_await in the recipes
    // awaits a named awaitable for the same reason.
    // A small capture (the client keeps one callback per waiter): the task, and which of its watches this is.
    const std::uint32_t serial = ++watch_serial_;
    watch_callback on_change = [weak_task = weak_from_this(), serial](const watch_event& e) {
      if (auto task = weak_task.lock()) task->on_blocker_event(serial, e);
    };
    watched_ = blocker;
    watch_fired_ = false;
    blocker_deleted_ = false;
    deleted_first_ = false;
    // Bounded like the other requests. Should it time out after the server registered the watch, the session engine
    // removes that watch from the server when the late reply arrives (docs/protocol.md#deadlines), so a try-lock
    // loop cannot grow the server's watch table.
    std::string path = proto::child_path(self_->directory(), blocker);
    auto watched_get =
        bounded([&](auto token) { return c->async_get(std::move(path), std::move(on_change), std::move(token)); });
    auto [ec, unused] = co_await std::move(watched_get);
    if (ec) watch_fired_ = true;  // not armed
    if (out_of_time(ec)) co_return make_error_code(lock_errc::timeout);
    if (ec == server_error::no_node) {  // gone already: list again, or hold if it was the last one ahead
      blocker_deleted_ = true;  // not deleted_first_: the deletion fired the listing's child watch before this reply
      co_return std::error_code{};
    }
    if (is_connection_loss(ec)) {
      auto connected = wait_connected(self_->link());
      const std::error_code wait_ec = co_await std::move(connected);
      co_return wait_ec;
    }
    if (ec) co_return ec;
    // Wait without a coroutine: with many waiters their frames would be most of the memory they take. The blocker's
    // watch, a timeout, a cancellation or the lock's destruction sets the wakeup, which starts run() again.
    parked_ = a()->wake.park(
        [](std::shared_ptr<void> task) { launch(std::static_pointer_cast<acquire_task>(std::move(task))); },
        shared_from_this());
    co_return std::error_code{};
  }

  void on_blocker_event(std::uint32_t serial, const watch_event& e) {
    if (serial == watch_serial_) {
      watch_fired_ = true;
      if (!e.error && e.type == event_type::node_deleted) {
        blocker_deleted_ = true;
        // Judged now, as the event arrives: the server sends a deletion's NodeDeleted before the parent's
        // NodeChildrenChanged, and any earlier change of the directory fired the listing's child watch before this
        // (the client delivers replies, events and state changes in the server's order). Not after a state change:
        // the events a reconnect replays come data watches first.
        deleted_first_ = !listing_changed_ && state_changes() == listing_state_changes_;
      }
    }
    if (is_session_fatal(e.error)) session_end_ = e.error;
    // data_watch_removed: another waiter of this client on the same blocker gave up and removed the client's
    // watches on it; list again (and watch again) like after a real change, but it is no wakeup by a release.
    if (!e.error && e.type != event_type::data_watch_removed) self_->count_wakeup();
    a()->wake.set();
  }

  // For an election's listing (a rule not in sequence order): the child watch it sets on the directory, which marks
  // the listing changed at its first event of any kind. Only the latest listing's watch counts.
  watch_callback listing_watch() {
    listing_changed_ = false;
    listing_state_changes_ = state_changes();
    return [weak_task = weak_from_this(), serial = ++listing_serial_](const watch_event&) {
      if (auto task = weak_task.lock(); task && task->listing_serial_ == serial) task->listing_changed_ = true;
    };
  }

  [[nodiscard]] std::uint32_t state_changes() const noexcept {
    return static_cast<std::uint32_t>(self_->link()->state_changes);
  }

  void forget_node() {
    node_.reset();
    next_in_line_ = false;
    new_guid();
  }

  std::shared_ptr<lock_impl> self_;  // its link and directory are the task's too
  std::string prefix_;
  std::optional<owned_node> node_;
  // The session's end reaches a waiter only as its blocker watch's final delivery (no request of ours is pending).
  // The acquire ends with it: the client may already run a new session, and our node belongs to the old one, which
  // the server may keep alive until it expires (after auth_failed it does).
  std::error_code session_end_;
  // The name of the last blocker watched ("" before the first), the serial of that watch (each watch takes the next
  // one), and whether it has fired (or was never armed). The name, not the path: the session engine keeps the path
  // of every watch already, and a waiter's bytes are counted (README.md's 2 KiB).
  std::string watched_;
  // Serials are 32 bits, flags one bit each: every lock waiter carries them, and a waiter's bytes are counted
  // (README.md's 2 KiB). Only a serial's equality counts, and no acquire sets 2^32 watches.
  std::uint32_t watch_serial_ = 0;
  // An election's listings only (listing_watch): the latest one's child watch's serial, and the link's state changes
  // (their low 32 bits: 2^32 of them while one waits do not happen) when it was sent.
  std::uint32_t listing_serial_ = 0;
  std::uint32_t listing_state_changes_ = 0;
  bool watch_fired_ : 1 = false;
  bool parked_ : 1 = false;  // waiting for a()->wake: the coroutines end, the wakeup starts run() again
  // The last listing showed the watched blocker as the only contender that keeps us from holding, and the blocker
  // has since been deleted (its watch fired with NodeDeleted, or it was gone when we set the watch).
  bool next_in_line_ : 1 = false;
  bool blocker_deleted_ : 1 = false;
  // An election's listings only: whether the latest one's child watch has fired, and whether the blocker's deletion
  // came first, before any other change of the directory since that listing (the listing minus the blocker is then
  // the directory).
  bool listing_changed_ : 1 = true;
  bool deleted_first_ : 1 = false;
};

}  // namespace

std::shared_ptr<attempt> make_attempt(const std::shared_ptr<lock_impl>& impl) {
  return std::make_shared<acquire_task>(impl);
}

void spawn_acquire(const std::shared_ptr<attempt>& a) {
  acquire_task::launch(std::static_pointer_cast<acquire_task>(a));
}

}  // namespace zkwire::recipes::detail
