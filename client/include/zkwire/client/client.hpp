#pragma once
// zkwire::client: an asynchronous ZooKeeper client on an Asio executor, a thin driver over the socket-free session
// engine (zkwire/proto/session/session.hpp). Every operation is an `async_*` function taking a completion token:
// a callback, asio::use_future, asio::use_awaitable, asio::experimental::deferred, or anything else Asio accepts.
//
//   asio::io_context io;
//   zkwire::client c(io.get_executor(), zkwire::client_options(servers));  // e.g. "127.0.0.1:2181/app"
//   c.async_connect([&](std::error_code ec) {
//     if (ec) {
//       c.async_close([](std::error_code) {});  // io.run() returns once the client is closed
//       return;
//     }
//     c.async_get("/config", [&](std::error_code error, const zkwire::get_result& got) {
//       if (!error) std::printf("/config: %s\n", got.data.c_str());
//       c.async_close([](std::error_code) {});
//     });
//   });
//   io.run();
//
// Execution and thread safety
//   One executor per client, no threads of its own (except that a host *name* is looked up with getaddrinfo on a
//   thread that ends with the lookup; numeric addresses need none). A client is NOT thread-safe: call its member
//   functions and destroy it only from code running on its executor (or while nothing runs that executor). With a
//   multi-threaded io_context, give the client a strand. Completion handlers run on their associated executor
//   (the client's executor when they have none) and are never invoked from inside the initiating function.
//   Watch callbacks, the state listener and the logger run on the client's executor; they may start new
//   operations but must not block.
//
// Sessions
//   The first operation (or async_connect) starts the session: the client connects to the hosts of the connect
//   string (in a seeded shuffled order, round-robin), performs the handshake, replays credentials, re-arms watches
//   after a reconnect, and pings when idle. When a connection breaks, every request in flight completes with
//   client_error::connection_loss: its outcome is unknown and it is never resent.
//   A request started while there is no connection (before the first, while reconnecting) waits for one round of
//   connection attempts, each host once: the round under way, or the next if the client is pausing between two
//   (client_options::wait_for_connection: one_round by default; one_attempt, none). That is at most the pause
//   (up to 1 s) and the number of hosts times the host connect timeout: by default about the session timeout, and
//   milliseconds when every server refuses. It is sent if a connection is made in that round, else it fails with
//   client_error::connection_loss, never sent. No request waits for the servers' return
//   (docs/protocol.md#without-a-connection). To keep trying across an outage, retry (each retry waits for the next
//   round); for a limit of your own, see "Deadlines". Once the session has expired, authentication failed or the client
//   was closed, new requests complete at once with that error (is_session_fatal()); create a new client to continue, or
//   start a new session on this client with async_new_session.
//
// Errors
//   std::error_code: server codes in the "zookeeper" category with their wire values (server_error::no_node,
//   node_exists, bad_version, not_empty, no_auth, invalid_acl, bad_arguments, ...); conditions detected by the
//   engine in the "zkwire.proto" category (client_error::connection_loss, cancelled, closed, session_expired,
//   invalid_path, invalid_argument, ...); and client_errc for the few conditions of this layer. To decide on an
//   error, compare it with a zkwire::condition: `ec == zkwire::condition::connection_loss` (outcome unknown),
//   session_ended, timeout, cancelled, ... (the table is in zkwire/proto/error.hpp).
//
// Coroutines on GCC 12
//   GCC 12 (Debian 12's compiler) destroys an *aggregate* temporary built with braces inside a co_await expression
//   twice when the awaited operation throws (a double free). None of zkwire's option and value types is an
//   aggregate (create_options, acl, acl_id, multi_op, client_options, tls_options, credential, the recipes'
//   options), so `create_options{}`, `create_options{create_mode::ephemeral}` or `acl{perms::read, {"world",
//   "anyone"}}` are safe there. A braced *list* inside co_await does not compile on GCC 12 ("array used as
//   initializer"): pass ops::list(op, ...) to async_multi, async_multi_read and lock::async_guarded_multi, and
//   acl_list(acl, ...) to async_set_acl or create_options (types.hpp). Aggregates of your own still need a named
//   variable there.
//
// Lifetimes
//   Paths, data and other arguments are copied before the initiating function returns. When the client is closed
//   (async_close) or destroyed, every pending operation completes with client_error::closed and every watch gets
//   a final delivery with that error; nothing is left dangling. Destroying the client does not close the session
//   on the server (its ephemeral nodes live until it expires): use async_close for that. Destroy the client
//   before its execution context. A moved-from client may only be destroyed or assigned to.
//
// Deadlines
//   client_options::request_timeout gives every request a deadline; wrap a call's token to set its own:
//     auto got = co_await c.async_get("/config", zkwire::with_timeout(200ms, asio::use_awaitable));
//   It works with every request (the node, watch and session-information operations; not with async_connect,
//   async_new_session and async_close, which have options.connect_timeout and the read timeout, nor with
//   async_add_auth). Measured from the call, waiting for a connection included. A request with no reply by then
//   completes with client_error::operation_timeout (ec == zkwire::condition::timeout, and also
//   condition::connection_loss: outcome unknown). The connection and the session are not affected: the late reply
//   is dropped in order. A WRITE that timed out may still be applied by the server: read back to learn the
//   outcome, exactly as after a connection loss (docs/protocol.md#deadlines).
//
// Cancellation
//   Every operation supports terminal and partial cancellation through its associated cancellation slot
//   (asio::bind_cancellation_slot, awaitable operators, ...): it completes with client_error::cancelled. A
//   request already written to the server may still be applied by it (its late reply is dropped): after
//   cancelling a write, read back the node to learn the outcome. Cancelling async_connect or async_close only
//   stops the waiting; the session keeps connecting or closing.

#include <asio/any_io_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/cancellation_type.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "zkwire/client/clock.hpp"
#include "zkwire/client/connect_string.hpp"
#include "zkwire/client/detail/core.hpp"
#include "zkwire/client/detail/request_op.hpp"
#include "zkwire/client/ensemble_config.hpp"
#include "zkwire/client/errors.hpp"
#include "zkwire/client/options.hpp"
#include "zkwire/client/types.hpp"
#include "zkwire/client/watch.hpp"
#include "zkwire/client/with_timeout.hpp"

namespace zkwire {

class client {
 public:
  using executor_type = asio::any_io_executor;
  // The node holding the ensemble's dynamic configuration.
  static constexpr std::string_view config_path = "/zookeeper/config";

  // Does no I/O. Throws std::system_error (client_errc::invalid_connect_string or client_error::invalid_path,
  // what() saying where) if options.connect_string is invalid, std::invalid_argument for an option out of range
  // (options.hpp).
  client(executor_type executor, client_options options);
  // Fails pending operations with client_error::closed (posted to their executors) and drops the connection
  // without closing the session; see "Lifetimes" above.
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;
  client(client&&) noexcept = default;
  client& operator=(client&& other) noexcept;

  [[nodiscard]] executor_type get_executor() const noexcept { return detail::executor_of(*impl_); }

  // --- observers (on the client's executor) ---
  [[nodiscard]] session_state state() const noexcept { return detail::state_of(*impl_); }
  [[nodiscard]] std::int64_t session_id() const noexcept { return detail::session_id_of(*impl_); }
  // The session's password (16 bytes; zero bytes before the first handshake): with session_id(), what another
  // client needs to take the session over (client_options::resume_session_id).
  [[nodiscard]] std::string session_password() const { return detail::session_password_of(*impl_); }
  // The negotiated session timeout (the requested one before the first handshake).
  [[nodiscard]] std::chrono::milliseconds session_timeout() const noexcept {
    return detail::negotiated_timeout_of(*impl_);
  }
  // The hosts and chroot in use: the connect string's, or with client_options::follow_config the ensemble's
  // current configuration's hosts (the reference stays valid; its hosts change).
  [[nodiscard]] const zkwire::connect_string& servers() const noexcept { return detail::connect_string_of(*impl_); }
  // The server of the current connection (as written in the connect string), if connected.
  [[nodiscard]] std::optional<host_port> connected_host() const { return detail::connected_host_of(*impl_); }
  // Requests queued or in flight.
  [[nodiscard]] std::size_t pending_requests() const noexcept { return detail::pending_requests_of(*impl_); }
  // Watches this client keeps: one per watcher (a callback or a zkwire::watch) that still expects an event (a
  // one-shot watch that has not fired, a persistent watch not removed) or whose request is in flight. It grows
  // with every watch a caller sets and shrinks as they fire, are removed or the session ends: a count that stays
  // up while the application believes it has no watch left is a leak (each one is also held by the server).
  [[nodiscard]] std::size_t watch_count() const noexcept { return detail::watch_count_of(*impl_); }
  // When the request behind the most recent server answer (a reply or a ping reply) was written (steady clock);
  // empty before the first answer. The server keeps the session alive at least until this + session_timeout():
  // the base of a lock holder's safety margin (see recipes/).
  [[nodiscard]] std::optional<std::chrono::steady_clock::time_point> last_answered_send_time() const noexcept {
    return detail::last_answered_send_time_of(*impl_);
  }
  // Where this client takes its time from (client_options::clock; the steady clock by default). Code built on the
  // client (the recipes) takes its deadlines from it too, so a simulation drives everything in one virtual time.
  [[nodiscard]] const std::shared_ptr<zkwire::clock>& clock() const noexcept { return detail::clock_of(*impl_); }

  // Called on every session state change (connecting, connected, suspended, lost, expired, auth_failed, closed),
  // on the client's executor. Replaces the previous listener; pass {} to remove it.
  void set_state_listener(state_listener listener) { detail::set_state_listener(*impl_, std::move(listener)); }

  // Adds an observer of the same state changes, called after the state listener, so that libraries (recipes/)
  // can follow the session without taking the application's listener. Returns an id for remove_state_observer.
  // When the client object is destroyed (or assigned to), every observer is called one last time with
  // `to == closed` and reason client_error::closed, from inside that destructor: it must not call the client then.
  std::uint64_t add_state_observer(state_listener observer) {
    return detail::add_state_observer(*impl_, std::move(observer));
  }
  void remove_state_observer(std::uint64_t id) noexcept { detail::remove_state_observer(*impl_, id); }

  // --- hosts ---

  // Replaces the host list (the application's own zoo_set_servers; follow_config does it by itself). The client
  // rebalances as with follow_config: it stays on its server if that server remains and the list did not grow,
  // moves with probability 1 - old/new to an added one if it grew, and moves if its server was removed, keeping the
  // session (state suspended with reason client_errc::ensemble_changed, then connected). Throws
  // std::invalid_argument for an empty list. The chroot is unchanged.
  void set_hosts(std::vector<host_port> hosts) { detail::set_hosts(*impl_, std::move(hosts)); }
  // Reconnects now to servers().hosts[index], keeping the session (state suspended with reason
  // client_errc::host_switched; requests in flight complete with client_error::connection_loss). Ignored for an
  // index out of range or a session that ended.
  void switch_host(std::size_t index) { detail::switch_host(*impl_, index); }

  // --- session ---

  // Starts the session if needed and waits until it is connected. Signature void(std::error_code):
  // client_errc::connect_timeout after options.connect_timeout (the client keeps trying in the background),
  // session_expired / auth_failed / closed if the session ended (a rejected SASL login: client_error::sasl_failed
  // or sasl_exchange_failed, see client_options::sasl). Completes at once (posted) when connected. When every host
  // closes each connection before answering the handshake (a server at its maxClientCnxns limit), the error is
  // client_errc::closed_before_handshake instead, and a client that never had a session gets it after
  // closed_before_handshake_rounds whole rounds of the host list, about a second for one host, rather than at the
  // connect timeout (docs/protocol.md#closed-before-handshake).
  template <class CompletionToken>
  auto async_connect(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_wait{impl_, detail::wait_kind::connect}, token);
  }

  // After the session expired or authentication failed, starts a new session and waits until it is connected;
  // in any other state it is async_connect. The new session has a new id: the old one's watches are gone (they got
  // their final delivery when it ended). Its ephemeral nodes are gone after an expiry; after auth_failed the server
  // keeps the old session, and its ephemeral nodes, until it expires (the server only closed the connection). The
  // highest zxid seen so far is carried into the handshake, so a server that lags behind what this client has already
  // read refuses the connection instead of serving older data. Credentials given with async_add_auth are replayed
  // (after auth_failed the new session only works if the server now accepts them). Signature and errors as
  // async_connect; cancelling only stops the waiting.
  template <class CompletionToken>
  auto async_new_session(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_wait{impl_, detail::wait_kind::new_session}, token);
  }

  // Closes the session (closeSession: the server deletes its ephemeral nodes) and completes when it is closed.
  // Pending operations complete with client_error::closed. Signature void(std::error_code).
  template <class CompletionToken>
  auto async_close(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code)>(
        detail::initiate_wait{impl_, detail::wait_kind::close}, token);
  }

  // Adds a credential (replayed on every reconnect). Signature void(std::error_code); AUTHFAILED ends the
  // session. Without a connection its completion waits like a request's; client_error::connection_loss then says
  // only that it was not answered: the credential is kept and sent with the next connection.
  template <class CompletionToken>
  auto async_add_auth(std::string scheme, std::string credentials, CompletionToken&& token) {
    return initiate<detail::no_result>(token, detail::add_auth_spec{std::move(scheme), std::move(credentials)});
  }

  // --- nodes ---

  // Creates a node. Signature void(std::error_code, create_result). Errors: NODEEXISTS, NONODE (no parent),
  // NOCHILDRENFOREPHEMERALS, INVALIDACL (empty ACL, or auth ACL without credentials), NOAUTH, BADARGUMENTS,
  // UNIMPLEMENTED (TTL without extendedTypesEnabled), client_error::invalid_path / invalid_argument.
  // The forms without options or with a create_mode need no braced temporary (see "Coroutines on GCC 12"); a
  // literal `{}` in the options position picks the create_mode form (persistent, open ACL): same meaning.
  template <class CompletionToken>
  auto async_create(std::string path, std::string data, const create_options& options, CompletionToken&& token) {
    return initiate<create_result>(token, make_create(std::move(path), std::move(data), options));
  }
  template <class CompletionToken>
  auto async_create(std::string path, std::string data, create_mode mode, CompletionToken&& token) {
    return initiate<create_result>(token, make_create(std::move(path), std::move(data), mode));
  }
  template <class CompletionToken>
  auto async_create(std::string path, std::string data, CompletionToken&& token) {
    return async_create(std::move(path), std::move(data), create_mode::persistent,
                        std::forward<CompletionToken>(token));
  }

  // Deletes a node (version any_version: whatever it is). Signature void(std::error_code).
  // Errors: NONODE, BADVERSION, NOTEMPTY, NOAUTH.
  template <class CompletionToken>
  auto async_remove(std::string path, std::int32_t version, CompletionToken&& token) {
    return initiate<detail::no_result>(token,
                                       spec(proto::op_code::delete_, proto::delete_request{std::move(path), version}));
  }

  // The node's stat, or nullopt if it does not exist (NONODE is not an error here).
  // Signature void(std::error_code, std::optional<stat>).
  template <class CompletionToken>
  auto async_exists(std::string path, CompletionToken&& token) {
    return initiate<std::optional<zkwire::stat>>(token,
                                                 spec(proto::op_code::exists, proto::exists_request{std::move(path)}));
  }
  // The same, and a one-shot watch: NodeCreated if it does not exist yet, else NodeDataChanged / NodeDeleted.
  template <class CompletionToken>
  auto async_exists(std::string path, watch_callback on_event, CompletionToken&& token) {
    auto s = spec(proto::op_code::exists, proto::exists_request{std::move(path), true});
    s.watch = detail::watch_registration{std::move(on_event), nullptr, std::nullopt};
    return initiate<std::optional<zkwire::stat>>(token, std::move(s));
  }
  // The same with the watcher `key` (watcher_key): one watcher for every read of that key on this client.
  template <class CompletionToken>
  auto async_exists(std::string path, watcher_key key, watch_callback on_event, CompletionToken&& token) {
    return initiate<std::optional<zkwire::stat>>(
        token, keyed(spec(proto::op_code::exists, proto::exists_request{std::move(path), true}), key, on_event));
  }
  // Signature void(std::error_code, watched<std::optional<stat>>).
  template <class CompletionToken>
  auto async_exists_watch(std::string path, CompletionToken&& token) {
    auto s = spec(proto::op_code::exists, proto::exists_request{std::move(path), true});
    s.watch = detail::watch_registration{{}, std::make_shared<detail::watch_state>(), std::nullopt};
    return initiate<watched<std::optional<zkwire::stat>>>(token, std::move(s));
  }

  // Data and stat. Signature void(std::error_code, get_result). Errors: NONODE, NOAUTH.
  template <class CompletionToken>
  auto async_get(std::string path, CompletionToken&& token) {
    return initiate<get_result>(token, spec(proto::op_code::get_data, proto::get_data_request{std::move(path)}));
  }
  // The same, and a one-shot watch (NodeDataChanged or NodeDeleted), armed only if the read succeeds.
  template <class CompletionToken>
  auto async_get(std::string path, watch_callback on_event, CompletionToken&& token) {
    auto s = spec(proto::op_code::get_data, proto::get_data_request{std::move(path), true});
    s.watch = detail::watch_registration{std::move(on_event), nullptr, std::nullopt};
    return initiate<get_result>(token, std::move(s));
  }
  // The same with the watcher `key` (watcher_key).
  template <class CompletionToken>
  auto async_get(std::string path, watcher_key key, watch_callback on_event, CompletionToken&& token) {
    return initiate<get_result>(
        token, keyed(spec(proto::op_code::get_data, proto::get_data_request{std::move(path), true}), key, on_event));
  }
  // Signature void(std::error_code, watched<get_result>); co_await the watch's async_wait for the event.
  template <class CompletionToken>
  auto async_get_watch(std::string path, CompletionToken&& token) {
    auto s = spec(proto::op_code::get_data, proto::get_data_request{std::move(path), true});
    s.watch = detail::watch_registration{{}, std::make_shared<detail::watch_state>(), std::nullopt};
    return initiate<watched<get_result>>(token, std::move(s));
  }

  // Replaces the data. Signature void(std::error_code, stat). Errors: NONODE, BADVERSION, NOAUTH.
  template <class CompletionToken>
  auto async_set(std::string path, std::string data, std::int32_t version, CompletionToken&& token) {
    return initiate<zkwire::stat>(
        token, spec(proto::op_code::set_data, proto::set_data_request{std::move(path), std::move(data), version}));
  }
  // The same, storing null data (getData then reports null_data, as after a create with create_options::null_data).
  template <class CompletionToken>
  auto async_set(std::string path, std::nullopt_t /*null data*/, std::int32_t version, CompletionToken&& token) {
    return initiate<zkwire::stat>(
        token, spec(proto::op_code::set_data, proto::set_data_request{std::move(path), std::nullopt, version}));
  }

  // Child names and the parent's stat. Signature void(std::error_code, children_result). Errors: NONODE, NOAUTH.
  template <class CompletionToken>
  auto async_get_children(std::string path, CompletionToken&& token) {
    return initiate<children_result>(
        token, spec(proto::op_code::get_children2, proto::get_children2_request{std::move(path)}));
  }
  // The same, and a one-shot watch (NodeChildrenChanged or NodeDeleted), armed only if the read succeeds.
  template <class CompletionToken>
  auto async_get_children(std::string path, watch_callback on_event, CompletionToken&& token) {
    auto s = spec(proto::op_code::get_children2, proto::get_children2_request{std::move(path), true});
    s.watch = detail::watch_registration{std::move(on_event), nullptr, std::nullopt};
    return initiate<children_result>(token, std::move(s));
  }
  // The same with the watcher `key` (watcher_key).
  template <class CompletionToken>
  auto async_get_children(std::string path, watcher_key key, watch_callback on_event, CompletionToken&& token) {
    return initiate<children_result>(
        token,
        keyed(spec(proto::op_code::get_children2, proto::get_children2_request{std::move(path), true}), key, on_event));
  }
  // Signature void(std::error_code, watched<children_result>).
  template <class CompletionToken>
  auto async_get_children_watch(std::string path, CompletionToken&& token) {
    auto s = spec(proto::op_code::get_children2, proto::get_children2_request{std::move(path), true});
    s.watch = detail::watch_registration{{}, std::make_shared<detail::watch_state>(), std::nullopt};
    return initiate<watched<children_result>>(token, std::move(s));
  }

  // Signature void(std::error_code, acl_result). Errors: NONODE, NOAUTH.
  template <class CompletionToken>
  auto async_get_acl(std::string path, CompletionToken&& token) {
    return initiate<acl_result>(token, spec(proto::op_code::get_acl, proto::get_acl_request{std::move(path)}));
  }

  // Replaces the ACL; `version` is compared with the node's aversion. Signature void(std::error_code, stat).
  // Errors: NONODE, BADVERSION, NOAUTH (needs ADMIN), INVALIDACL. Inside co_await, pass acl_list(acl, ...) rather
  // than a braced list (see "Coroutines on GCC 12").
  template <class CompletionToken>
  auto async_set_acl(std::string path, std::vector<acl> acl_list, std::int32_t version, CompletionToken&& token) {
    return initiate<zkwire::stat>(
        token, spec(proto::op_code::set_acl, proto::set_acl_request{std::move(path), std::move(acl_list), version}));
  }

  // Waits until the server this client talks to has caught up with the leader. Signature void(std::error_code).
  template <class CompletionToken>
  auto async_sync(std::string path, CompletionToken&& token) {
    return initiate<detail::no_result>(token, spec(proto::op_code::sync, proto::sync_request{std::move(path)}));
  }

  // Applies create/remove/set/check ops (zkwire::ops) atomically. Signature
  // void(std::error_code, std::vector<op_result>): the error is the one that made the multi fail (the first op
  // error that is not RUNTIMEINCONSISTENCY), and the results say which op failed. An empty multi succeeds.
  // Inside co_await, pass ops::list(op, ...) rather than a braced list (see "Coroutines on GCC 12").
  template <class CompletionToken>
  auto async_multi(std::vector<multi_op> ops, CompletionToken&& token) {
    return initiate<std::vector<op_result>>(token, spec(proto::op_code::multi, proto::multi_request{std::move(ops)}));
  }
  // Reads with get/get_children ops (zkwire::ops) in one round trip; each op succeeds or fails on its own (see
  // op_result::error). Signature void(std::error_code, std::vector<op_result>); the error is the first failed
  // read's.
  template <class CompletionToken>
  auto async_multi_read(std::vector<multi_op> ops, CompletionToken&& token) {
    return initiate<std::vector<op_result>>(token,
                                            spec(proto::op_code::multi_read, proto::multi_request{std::move(ops)}));
  }

  // --- watches ---

  // Adds a persistent watch (the node itself) or a persistent recursive watch (the subtree; never
  // NodeChildrenChanged). `on_event` is called for every event until remove_watches or the session's end.
  // Signature void(std::error_code). Do not also set one-shot watches on the same path from the same client: a 3.8
  // server keeps one kind of watch per path and connection in each table (docs/protocol.md#watches).
  template <class CompletionToken>
  auto async_add_watch(std::string path, add_watch_mode mode, watch_callback on_event, CompletionToken&& token) {
    auto s = spec(proto::op_code::add_watch, proto::add_watch_request{std::move(path), mode});
    s.watch = detail::watch_registration{std::move(on_event), nullptr, std::nullopt};
    return initiate<detail::no_result>(token, std::move(s));
  }

  // Removes the server's watches of `type` on `path` (watcher_type::any also removes persistent ones) and this
  // client's watchers of them, which get a final *_watch_removed event. Signature void(std::error_code).
  // Errors: NOWATCHER when the server had none.
  template <class CompletionToken>
  auto async_remove_watches(std::string path, watcher_type type, CompletionToken&& token) {
    return initiate<detail::no_result>(token,
                                       detail::remove_watches_spec{std::move(path), type, std::nullopt, std::nullopt});
  }

  // Removes the watcher `key` (watcher_key) from `path`: its registrations of `type` there (watcher_type::any:
  // data, exist, child and persistent) once the server confirms it has such a watch (checkWatches). The path's other
  // watchers keep theirs: the server's watch stays, since the server keeps one per path and table for all of this
  // client's watchers (an event that reaches no watcher any more is dropped), as the C and Java clients' removal of
  // one watcher does. The watcher gets a final *_watch_removed event for what was removed, delivered before the
  // completion. Signature void(std::error_code). Errors: NOWATCHER at once, nothing sent, when the watcher has no
  // such registration; NOWATCHER from the server when its watch is gone (it fired and the event is on its way).
  template <class CompletionToken>
  auto async_remove_watcher(std::string path, watcher_type type, watcher_key key, CompletionToken&& token) {
    return initiate<detail::no_result>(token, detail::remove_watches_spec{std::move(path), type, std::nullopt, key});
  }

  // Removes this client's watchers of `type` on `path` without a request (it works without a connection): each gets
  // its final *_watch_removed event, delivered on the executor after this returns. The server keeps its watch
  // until it fires or the session reconnects; that event is then dropped. False when there was no such watcher.
  bool remove_local_watches(std::string_view path, watcher_type type) {
    return detail::remove_local_watches(*impl_, path, type);
  }
  // The same for the watcher `key` alone. False when it had no such registration.
  bool remove_local_watcher(std::string_view path, watcher_type type, watcher_key key) {
    return detail::remove_local_watches(*impl_, path, type, key);
  }
  // Whether the watcher `key` has a registration on `path` that a removal of `type` would take.
  [[nodiscard]] bool watching(std::string_view path, watcher_type type, watcher_key key) const {
    return detail::watching(*impl_, path, type, key);
  }
  // The keys of the keyed watchers registered now (not those whose only read is still in flight), in the order of
  // their first registration.
  [[nodiscard]] std::vector<watcher_key> watcher_keys() const { return detail::watcher_keys(*impl_); }

  // Whether the server has a watch of `type` on `path` for this session (checkWatches). Signature
  // void(std::error_code): success if it has, NOWATCHER if not. watcher_type::any matches one-shot data and child
  // watches. Nothing changes on either side.
  template <class CompletionToken>
  auto async_check_watches(std::string path, watcher_type type, CompletionToken&& token) {
    return initiate<detail::no_result>(
        token, spec(proto::op_code::check_watches, proto::check_watches_request{std::move(path), type}));
  }

  // --- dynamic configuration (docs/protocol.md#dynamic-reconfiguration) ---

  // The ensemble's configuration: the data of /zookeeper/config, read outside the chroot, and its stat. The text
  // parses with parse_ensemble_config (ensemble_config.hpp). Signature void(std::error_code, get_result). Errors:
  // NOAUTH (3.8 servers ACL the node: READ for everyone by default).
  template <class CompletionToken>
  auto async_get_config(CompletionToken&& token) {
    return initiate<get_result>(token, config_spec(false));
  }
  // The same, and a one-shot watch that fires (NodeDataChanged, path "/zookeeper/config") when a reconfiguration
  // commits. Not with a chroot: completes with client_error::invalid_argument (the watch could not be re-armed
  // correctly after a reconnect).
  template <class CompletionToken>
  auto async_get_config(watch_callback on_event, CompletionToken&& token) {
    auto s = config_spec(true);
    s.watch = detail::watch_registration{std::move(on_event), nullptr, std::nullopt};
    return initiate<get_result>(token, std::move(s));
  }
  // The same with the watcher `key` (watcher_key).
  template <class CompletionToken>
  auto async_get_config(watcher_key key, watch_callback on_event, CompletionToken&& token) {
    return initiate<get_result>(token, keyed(config_spec(true), key, on_event));
  }
  // Signature void(std::error_code, watched<get_result>).
  template <class CompletionToken>
  auto async_get_config_watch(CompletionToken&& token) {
    auto s = config_spec(true);
    s.watch = detail::watch_registration{{}, std::make_shared<detail::watch_state>(), std::nullopt};
    return initiate<watched<get_result>>(token, std::move(s));
  }

  // Changes the ensemble's membership (reconfig). Incremental: `joining` ("server.4=host:2888:3888;2181", several
  // separated by ','), `leaving` (member ids, "3" or "2,3"), `new_members` nullopt. Bulk: `new_members` is the
  // whole new member list, `joining`/`leaving` nullopt. `from_config`: the configuration version the change is
  // based on (ensemble_config::version; the server refuses with BADVERSION if it moved on), -1: any. Signature
  // void(std::error_code, get_result): the new configuration. Errors: RECONFIGDISABLED (reconfigEnabled=false),
  // NOAUTH (needs the super user or skipACL), NEWCONFIGNOQUORUM, RECONFIGINPROGRESS, BADARGUMENTS, BADVERSION.
  // The servers apply it; this client's host list follows only with client_options::follow_config.
  template <class CompletionToken>
  auto async_reconfig(std::optional<std::string> joining, std::optional<std::string> leaving,
                      std::optional<std::string> new_members, std::int64_t from_config, CompletionToken&& token) {
    return initiate<get_result>(
        token, spec(proto::op_code::reconfig, proto::reconfig_request{std::move(joining), std::move(leaving),
                                                                      std::move(new_members), from_config}));
  }

  // --- session information ---

  // This session's ephemeral nodes whose full server path starts with `prefix` ("/" for all). No chroot is
  // applied, either way (the Java client's rule). Signature void(std::error_code, std::vector<std::string>).
  template <class CompletionToken>
  auto async_get_ephemerals(std::string prefix, CompletionToken&& token) {
    return initiate<std::vector<std::string>>(
        token, spec(proto::op_code::get_ephemerals, proto::get_ephemerals_request{std::move(prefix)}));
  }

  // The number of all descendants of `path`. Signature void(std::error_code, std::int32_t).
  template <class CompletionToken>
  auto async_get_all_children_number(std::string path, CompletionToken&& token) {
    return initiate<std::int32_t>(
        token, spec(proto::op_code::get_all_children_number, proto::get_all_children_number_request{std::move(path)}));
  }

  // The identities of this connection, e.g. [("ip","127.0.0.1"), ("digest","bob")].
  // Signature void(std::error_code, std::vector<client_info>).
  template <class CompletionToken>
  auto async_whoami(CompletionToken&& token) {
    return initiate<std::vector<client_info>>(token, spec(proto::op_code::who_am_i, proto::no_body{}));
  }

 private:
  template <class Body>
  static detail::request_spec spec(proto::op_code op, Body body) {
    return detail::request_spec{op, proto::request_body(std::move(body)), std::nullopt, std::nullopt};
  }
  // `s` with the keyed watcher `key` (watcher_key).
  static detail::request_spec keyed(detail::request_spec s, watcher_key key, watch_callback& on_event) {
    s.watch = detail::watch_registration{std::move(on_event), nullptr, key};
    return s;
  }
  static detail::request_spec config_spec(bool watch) {
    auto s = spec(proto::op_code::get_data, proto::get_data_request{std::string(config_path), watch});
    s.server_path = true;
    return s;
  }
  static detail::request_spec make_create(std::string path, std::string data, const create_options& options);
  static detail::request_spec make_create(std::string path, std::string data, create_mode mode);  // open ACL

  template <class Result, class CompletionToken, class Spec>
  auto initiate(CompletionToken& token, Spec spec) {
    if constexpr (detail::is_timeout_token<std::remove_cvref_t<CompletionToken>>::value) {
      static_assert(!std::is_same_v<Spec, detail::add_auth_spec>, "async_add_auth takes no request timeout");
      if constexpr (!std::is_same_v<Spec, detail::add_auth_spec>) spec.timeout = token.timeout;
      return initiate<Result>(token.token, std::move(spec));
    } else {
      return asio::async_initiate<CompletionToken, detail::signature_t<Result>>(detail::initiate_request<Result>{impl_},
                                                                                token, std::move(spec));
    }
  }

  std::shared_ptr<detail::client_impl> impl_;
};

}  // namespace zkwire
