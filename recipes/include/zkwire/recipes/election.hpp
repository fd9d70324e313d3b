#pragma once
// zkwire::recipes::election: leader election on a directory, with the lock's guarantees, in the node names of
// Curator's LeaderLatch (default), Curator's LeaderSelector or Kazoo's Election so that their participants and ours
// elect one leader together. Every operation is an `async_*` taking a completion token (callback, asio::use_future,
// asio::use_awaitable, ...), like the client; blocking_election.hpp has the form for threads.
//
//   zkwire::recipes::election e(c, "/services/scheduler", zkwire::recipes::election_options::with_id("node-7"));
//   e.set_listener([&](const zkwire::recipes::leadership_event& ev) {
//     if (ev.change == zkwire::recipes::leadership_change::gained) start_leading(ev.fencing_token);
//     if (ev.change == zkwire::recipes::leadership_change::lost) stop_leading();  // ev.reason says why
//   });
//   co_await e.async_join(asio::use_awaitable);  // queued; the listener says when we lead
//   co_await e.async_await_leadership(std::chrono::seconds(30), asio::use_awaitable);  // or wait for it
//   co_await e.async_relinquish(asio::use_awaitable);  // step down, queue again at the back
//   co_await e.async_leave(asio::use_awaitable);       // out of the election, our node deleted
//
// How it works
//   A participant is a lock (lock.hpp) on the election directory whose node carries the participant id as its data
//   and whose order is the election's (election_order.hpp): it leads while it holds that lock. So everything the
//   lock guarantees holds for leadership: our node is created with the first listing in one round trip, a create
//   whose reply was lost is recovered only if the found node's ephemeralOwner is the client's current session
//   (a node of another session is never taken for ours), only the participant right before ours is watched (one
//   participant wakes per change, no herd), and nothing is left behind by a timeout, a cancellation or an error.
//   A participant leads only when no contender of any known naming is ahead of it AND the peer rule of its naming
//   puts it first (election_order.hpp); after the node it waits for changes, it lists again (one round trip) and
//   decides again, as the peers do.
//
// Leadership
//   Gained when our node is first (leadership_event::fencing_token = our node's czxid, larger than any earlier
//   leader's). Kept while the connection is down, as long as the session may still be alive: the lock's safety
//   margin ends it at last_answered_send_time() + session_timeout() - margin at the latest, before the server can
//   expire the session and another participant can lead (lock.hpp "States" has the one case no client can see: a
//   paused ZooKeeper leader; fencing is the guard there). Lost, with the reason in leadership_event::reason:
//     lock_errc::relinquished         async_relinquish, async_leave, close() (this object gave it up)
//     lock_errc::safety_margin_passed no server answered for session_timeout - margin: the session may expire
//     client_error::session_expired   the session expired (also closed, connection_loss, auth_failed: it ended)
//     lock_errc::node_deleted         our node was deleted by someone else
//     lock_errc::session_changed      the client runs another session than the one that owns our node
//   The listener hears `lost` before anything else happens, and a participant that lost leadership stops acting on
//   it at once: it is never told `gained` again for the same node.
//
// Staying in the election (election_options::rejoin, on by default)
//   A participant that joined stays in the election until async_leave or close(). After losing leadership, or its
//   place in the queue, by anything but its own relinquish or leave, it joins again like lock_keeper re-acquires
//   (lock_keeper.hpp): a new session if the old one ended (client::async_new_session), the old node deleted if its
//   session may live on, then a new node at the back of the queue. The old leadership is always reported lost first,
//   and a leadership gained again has a new node and so a larger token. A participant that cannot join again
//   (keeper_options::max_failures failures in a row, or the client closed) leaves the election: state() is idle and
//   last_error() says why. With rejoin off, any loss leaves the election.
//
// Thread safety and lifetime
//   Like the lock: use an election only on the client's executor (with a multi-threaded io_context, give the client a
//   strand). Handlers run on their associated executor (the client's when they have none) and are never invoked from
//   inside the initiating function. The client must outlive the election object. Destroying it leaves the election
//   in the background (our node is deleted, pending operations complete with lock_errc::cancelled) without calling
//   the listener again.
//
// Cancellation
//   async_join and async_await_leadership support terminal and partial cancellation (lock_errc::cancelled): a
//   cancelled call that joined the election leaves it and leaves nothing behind (its node, if any, is deleted in the
//   background); one that found the participant already joined ends its own wait only. async_relinquish, async_leave:
//   cancelling stops the waiting only. async_wait_lost: completes with client_error::cancelled.

#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/async_result.hpp>
#include <asio/cancellation_signal.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "zkwire/client/client.hpp"
#include "zkwire/client/detail/cancellation.hpp"
#include "zkwire/client/detail/completion.hpp"
#include "zkwire/recipes/detail/named_option.hpp"
#include "zkwire/recipes/election_order.hpp"
#include "zkwire/recipes/errors.hpp"
#include "zkwire/recipes/lock_keeper.hpp"
#include "zkwire/recipes/lock_metrics.hpp"
#include "zkwire/recipes/node_name.hpp"

namespace zkwire::recipes {

// Where a participant is.
enum class election_state {
  idle,       // not in the election (never joined, left, or could not join again)
  candidate,  // in the election, not leading: joining, queued, or joining again after a loss
  leader,     // leading (also while the connection is down within the safety margin)
};
std::string_view election_state_name(election_state s) noexcept;  // "idle", "candidate", "leader"

enum class leadership_change { gained, lost };
std::string_view leadership_change_name(leadership_change c) noexcept;  // "gained", "lost"

struct leadership_event {
  leadership_change change = leadership_change::gained;
  // gained: the new leadership's fencing token (our node's czxid); lost: the token of the leadership that ended.
  std::int64_t fencing_token = 0;
  // lost: why (see "Leadership" above); empty for gained.
  std::error_code reason;
};
// Called on the client's executor; must not throw. May call the election (e.g. start async_leave).
using leadership_listener = std::function<void(const leadership_event&)>;

// Not an aggregate (client/types.hpp, create_options, says why): set the fields by name on a variable, or take a
// named one inline (`election_options::with_id("node-7")`).
struct election_options {
  election_options();

  // Named options: the defaults with one field set.
  static election_options with_id(std::string participant_id) {
    return detail::with_field(&election_options::id, std::move(participant_id));
  }
  static election_options with_naming(election_naming format) {
    return detail::with_field(&election_options::name_format, format);
  }
  static election_options with_safety_margin(std::chrono::milliseconds margin) {
    return detail::with_field(&election_options::safety_margin, margin);
  }

  // The participant id (any bytes), stored as our node's data as Curator and Kazoo store theirs; what
  // participants() and `zkwire leader` show. default_lock_data() ("<hostname>:<pid>") when empty.
  std::string id;
  // The node names we create, and so the peer recipe we agree with (election_order.hpp). Default: Curator's
  // LeaderLatch.
  election_naming name_format = election_naming::latch;
  // As lock_options::safety_margin: leadership is lost at last_answered_send_time() + session_timeout() - margin at
  // the latest. Empty: a quarter of the negotiated session timeout.
  std::optional<std::chrono::milliseconds> safety_margin;
  // ACL of our node and of the directories created for it.
  std::vector<zkwire::acl> acl = zkwire::open_acl_unsafe();
  // Join again after a loss (see "Staying in the election"); off: a loss leaves the election.
  bool rejoin = true;
  // How joining again retries (lock_keeper.hpp: retry_delay, max_failures, and acquire_timeout for each attempt).
  keeper_options keep;
  // Also count this participant's events here (lock_metrics.hpp "Ownership"; election.hpp's metrics() says how
  // the lock's counters read for an election).
  std::shared_ptr<lock_metrics> metrics;
  // The random bits of our node's guid (node_name.hpp guid_source).
  guid_source guids;
};

// One participant of an election, as async_participants reports it.
struct participant {
  std::string id;    // its node's data: the participant id (Curator: the id, or an IP address by default; Kazoo:
                     // its identifier, "" when none)
  std::string node;  // child name
  std::string path;  // full path (client path)
  std::int32_t sequence = 0;
  node_family family = node_family::unknown;
  std::optional<election_naming> naming;  // the election naming of its node; nullopt for another recipe's node
  std::int64_t session = 0;               // ephemeralOwner (0 for a persistent node)
  std::int64_t czxid = 0;                 // the fencing token it leads with
  std::int64_t ctime = 0;                 // ms since the epoch
  // The leader (election_view::leader): at most one participant of a listing.
  bool leader = false;
  // The rule of its own naming makes it a leader although it is not the first (election_view::also_leading): on a
  // path that mixes namings, a peer's participant here leads as well.
  bool also_leading = false;
};

namespace detail {

// The client's type-erased completion, shared with the recipes: delivered like the client's own operations.
using zkwire::detail::complete;
using zkwire::detail::completion_ptr;
using zkwire::detail::make_completion;
using zkwire::detail::on_cancel;

class election_core;
using election_ptr = std::shared_ptr<election_core>;
using election_weak_ptr = std::weak_ptr<election_core>;

election_ptr make_election(client& c, std::string path, election_options options);
// The object goes away: leave in the background without telling the listener.
void abandon_election(election_core& e) noexcept;
void close_election(election_core& e) noexcept;
asio::any_io_executor executor_of(const election_core& e);

std::uint64_t start_join(const election_ptr& e, completion_ptr<> done);
void cancel_join(const election_weak_ptr& e, std::uint64_t id);
// Negative timeout: no limit; 0: try once (as lock::async_acquire).
std::uint64_t start_await_leadership(const election_ptr& e, std::chrono::milliseconds timeout, completion_ptr<> done);
void cancel_await_leadership(const election_weak_ptr& e, std::uint64_t id);
std::uint64_t start_relinquish(const election_ptr& e, completion_ptr<> done);
std::uint64_t start_leave(const election_ptr& e, completion_ptr<> done);
// Stops waiting for a relinquish or a leave (the node is deleted regardless).
void cancel_waiting(const election_weak_ptr& e, std::uint64_t id);
std::uint64_t start_election_wait_lost(const election_ptr& e, completion_ptr<> done);
void cancel_election_wait_lost(const election_weak_ptr& e, std::uint64_t id);
void start_election_guarded_multi(const election_ptr& e, std::vector<multi_op> ops,
                                  completion_ptr<std::vector<op_result>> done);
void start_participants(client& c, std::string path, completion_ptr<std::vector<participant>> done);

election_state state_of(const election_core& e) noexcept;
std::int64_t fencing_token_of(const election_core& e) noexcept;
std::string node_path_of(const election_core& e);
std::int64_t session_of(const election_core& e) noexcept;
const std::string& path_of(const election_core& e) noexcept;
const std::string& id_of(const election_core& e) noexcept;
election_naming naming_of(const election_core& e) noexcept;
std::uint64_t rejoins_of(const election_core& e) noexcept;
std::error_code last_error_of(const election_core& e) noexcept;
std::shared_ptr<const lock_metrics> metrics_of(const election_core& e) noexcept;
client& client_of(const election_core& e) noexcept;
void set_leadership_listener(election_core& e, leadership_listener listener);
asio::cancellation_slot lost_slot_of(election_core& e) noexcept;

template <std::uint64_t (*Start)(const election_ptr&, completion_ptr<>),
          void (*Cancel)(const election_weak_ptr&, std::uint64_t)>
struct initiate_election_op {
  election_ptr core;
  template <class Handler>
  void operator()(Handler&& handler) const {
    auto slot = asio::get_associated_cancellation_slot(handler);
    const auto id = Start(core, make_completion<>(std::forward<Handler>(handler), executor_of(*core)));
    on_cancel(slot, [weak = election_weak_ptr(core), id] { Cancel(weak, id); });
  }
};

struct initiate_await_leadership {
  election_ptr core;
  template <class Handler>
  void operator()(Handler&& handler, std::chrono::milliseconds timeout) const {
    auto slot = asio::get_associated_cancellation_slot(handler);
    const auto id =
        start_await_leadership(core, timeout, make_completion<>(std::forward<Handler>(handler), executor_of(*core)));
    on_cancel(slot, [weak = election_weak_ptr(core), id] { cancel_await_leadership(weak, id); });
  }
};

struct initiate_election_guarded_multi {
  election_ptr core;
  template <class Handler>
  void operator()(Handler&& handler, std::vector<multi_op> ops) const {
    start_election_guarded_multi(
        core, std::move(ops),
        make_completion<std::vector<op_result>>(std::forward<Handler>(handler), executor_of(*core)));
  }
};

struct initiate_participants {
  client* target;
  std::string path;
  template <class Handler>
  void operator()(Handler&& handler) const {
    start_participants(
        *target, path,
        make_completion<std::vector<participant>>(std::forward<Handler>(handler), target->get_executor()));
  }
};

}  // namespace detail

// The participants of the election on `path`, usable without joining: every contender of a known naming (the
// peers' too, with their ids read from their nodes' data) in election order, the leader first when there is one
// (election_view in election_order.hpp). Signature void(std::error_code, std::vector<participant>). A snapshot: the
// directory is listed, then every child read in one pipelined batch; children deleted in between are left out.
// Errors: server_error::no_node (no such directory), no_auth, the session's end, client_error::invalid_path;
// connection loss is reported (a read: the caller may retry). Thread safety: call on the client's executor; the
// handler runs on its associated executor, never inside this function. Cancellation is not supported.
template <class CompletionToken>
auto async_participants(client& c, std::string path, CompletionToken&& token) {
  return asio::async_initiate<CompletionToken, void(std::error_code, std::vector<participant>)>(
      detail::initiate_participants{&c, std::move(path)}, token);
}

class election {
 public:
  // A participant of the election on `path` (a valid absolute path; created with container parents when missing).
  // Does no I/O.
  election(client& c, std::string path, election_options options = {});
  // Leaves in the background (see "Thread safety and lifetime").
  ~election();
  election(const election&) = delete;
  election& operator=(const election&) = delete;
  election(election&&) noexcept = default;
  election& operator=(election&&) = delete;

  [[nodiscard]] asio::any_io_executor get_executor() const { return detail::executor_of(*core_); }

  // Joins the election: creates our node (data: the participant id) and completes once it is queued (or leads).
  // From then on the participant stays in the election (see "Staying in the election"); the listener and
  // has_leadership() say when it leads. Completes at once (posted) when already in the election. Signature
  // void(std::error_code). Errors: lock_errc::cancelled, lock_errc::acquire_in_progress (an async_await_leadership
  // that joined with a time limit is pending: it decides whether the participant stays), the session's end
  // (client_error::session_expired, closed, server_error::auth_failed), server errors about the directory (no_auth,
  // invalid_acl, no_children_for_ephemerals), client_error::invalid_path. Connection loss is not an error: joining
  // continues after the reconnect. After an error nothing is left behind.
  template <class CompletionToken>
  auto async_join(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_election_op<detail::start_join, detail::cancel_join>{core_}, token);
  }

  // Completes when this participant leads (at once, posted, if it does). Signature void(std::error_code).
  // Not in the election: joins it as async_join does, with `timeout` as lock::async_acquire's (0: try once; the
  // requests carry what is left of it as their deadline); on lock_errc::timeout, lock_errc::cancelled or an error
  // the participant leaves again and nothing is left behind. Already in the election: waits at most `timeout`
  // (negative: no limit) and completes with lock_errc::timeout or lock_errc::cancelled without leaving.
  // Errors besides: those of async_join; and when the participation ends while waiting (async_leave, or joining
  // again failed for good), the error that ended it (lock_errc::cancelled after a leave).
  template <class CompletionToken>
  auto async_await_leadership(std::chrono::milliseconds timeout, CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(detail::initiate_await_leadership{core_}, token,
                                                                        timeout);
  }
  // Waits without a time limit.
  template <class CompletionToken>
  auto async_await_leadership(CompletionToken&& token) {
    return async_await_leadership(std::chrono::milliseconds(-1), std::forward<CompletionToken>(token));
  }

  // The leader steps down and queues again: deletes our node (the listener hears `lost` with
  // lock_errc::relinquished before this call returns), and once the delete is done joins again at the back of the
  // queue (with rejoin off as well). Signature void(std::error_code): completes when the old node is deleted (or its
  // session ended, which deleted it). Errors: lock_errc::not_held (not leading; nothing changes),
  // client_error::cancelled (the delete and the re-join go on).
  template <class CompletionToken>
  auto async_relinquish(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_election_op<detail::start_relinquish, detail::cancel_waiting>{core_}, token);
  }

  // Leaves the election: stops joining again, deletes our node (a leader's listener hears `lost` with
  // lock_errc::relinquished), completes when the delete is done (retried across reconnects; the session's end
  // deletes it too). A join or await that joined and is still pending completes with lock_errc::cancelled; the node
  // it may have created is deleted in the background. Signature void(std::error_code). Errors: lock_errc::not_held
  // (not in the election), client_error::cancelled (the delete goes on).
  template <class CompletionToken>
  auto async_leave(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_election_op<detail::start_leave, detail::cancel_waiting>{core_}, token);
  }

  // async_leave without waiting (the delete goes on in the background). The object may join again later.
  void close() noexcept { detail::close_election(*core_); }

  // Completes when the current leadership ends. Signature void(std::error_code): lock_errc::lock_lost when it was
  // lost (anything but this object's relinquish or leave), lock_errc::not_held when it was given up or this
  // participant does not lead (at once), client_error::cancelled.
  template <class CompletionToken>
  auto async_wait_lost(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_election_op<detail::start_election_wait_lost, detail::cancel_election_wait_lost>{core_},
        token);
  }

  // As lock::async_guarded_multi: runs `ops` atomically only if our node still exists (lock_errc::not_held when not
  // leading; lock_errc::lock_lost when the node is gone and nothing was applied).
  template <class CompletionToken>
  auto async_guarded_multi(std::vector<multi_op> ops, CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code, std::vector<op_result>)>(
        detail::initiate_election_guarded_multi{core_}, token, std::move(ops));
  }

  // async_participants of this election's path (no need to have joined).
  template <class CompletionToken>
  auto async_participants(CompletionToken&& token) {
    return recipes::async_participants(detail::client_of(*core_), path(), std::forward<CompletionToken>(token));
  }

  // --- observers (on the client's executor) ---
  [[nodiscard]] election_state state() const noexcept { return detail::state_of(*core_); }
  [[nodiscard]] bool has_leadership() const noexcept { return state() == election_state::leader; }
  // In the election (candidate or leader).
  [[nodiscard]] bool joined() const noexcept { return state() != election_state::idle; }
  // Our node's czxid while leading; 0 otherwise.
  [[nodiscard]] std::int64_t fencing_token() const noexcept { return detail::fencing_token_of(*core_); }
  // Full path of our node while leading; "" otherwise.
  [[nodiscard]] std::string node_path() const { return detail::node_path_of(*core_); }
  // The session that owns our node while leading; 0 otherwise.
  [[nodiscard]] std::int64_t session_id() const noexcept { return detail::session_of(*core_); }
  [[nodiscard]] const std::string& path() const noexcept { return detail::path_of(*core_); }
  // The participant id (the default filled in).
  [[nodiscard]] const std::string& id() const noexcept { return detail::id_of(*core_); }
  [[nodiscard]] election_naming naming() const noexcept { return detail::naming_of(*core_); }
  // Joins after a loss (or a relinquish) that succeeded so far.
  [[nodiscard]] std::uint64_t rejoins() const noexcept { return detail::rejoins_of(*core_); }
  // Why the participant left the election on its own (joining again failed for good); empty otherwise.
  [[nodiscard]] std::error_code last_error() const noexcept { return detail::last_error_of(*core_); }
  // The lock's metrics (lock_metrics.hpp) of this participant: acquisitions are leaderships, wait_time the time from
  // joining (or joining again) to leadership, hold_time how long each leadership lasted, releases the leaderships
  // given up (relinquish, leave), losses the others by reason; timeouts, cancellations and failures count the joins
  // and awaits that ended without leadership. snapshot() from any thread, also after the election object is gone.
  [[nodiscard]] std::shared_ptr<const lock_metrics> metrics() const noexcept { return detail::metrics_of(*core_); }

  // Called on every leadership change. Replaces the previous listener; {} removes it.
  void set_listener(leadership_listener listener) { detail::set_leadership_listener(*core_, std::move(listener)); }
  // Emits terminal cancellation when leadership is lost (not when this object gives it up). Bind it to the work
  // only a leader may do; one slot per election object, valid while the object lives.
  [[nodiscard]] asio::cancellation_slot lost_slot() noexcept { return detail::lost_slot_of(*core_); }

 private:
  detail::election_ptr core_;
};

}  // namespace zkwire::recipes
