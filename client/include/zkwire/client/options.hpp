#pragma once
// Options of zkwire::client and zkwire::blocking_client. Plain values, except the transport factory and the
// clock, which tests and other transports (TLS) replace.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkwire/client/clock.hpp"
#include "zkwire/client/tls_options.hpp"
#include "zkwire/client/transport.hpp"
#include "zkwire/jute/limits.hpp"
#include "zkwire/proto/session/session.hpp"

namespace zkwire {

using connection_wait = proto::connection_wait;

enum class log_level { debug, info, warning, error };
std::string_view log_level_name(log_level level) noexcept;  // "debug", "info", "warning", "error"

// Called on the client's executor (the blocking client: on its loop thread); must not block or throw.
using log_function = std::function<void(log_level level, std::string_view message)>;

// One credential, sent after every (re)connect before any request: auth is per connection on the server.
// Like every option type here, not an aggregate (types.hpp, create_options, says why).
struct credential {
  std::string scheme;       // "digest" (the credentials are "user:password"), "ip", ...
  std::string credentials;  // an unknown scheme or bad credentials end the session with AUTHFAILED

  credential();
  credential(std::string scheme_name, std::string secret);

  bool operator==(const credential&) const = default;
};

// SASL DIGEST-MD5 credentials (docs/protocol.md#sasl): a user of the server's JAAS `Server` section
// (`user_<name>="<password>"`). Authenticated connections carry the ACL id `sasl:<user>`.
struct sasl_credentials {
  std::string user;      // must not be empty (the client constructor throws std::invalid_argument)
  std::string password;  // UTF-8

  sasl_credentials();
  sasl_credentials(std::string user_name, std::string secret);

  bool operator==(const sasl_credentials&) const = default;
};

// Set the fields by name on a variable (`zkwire::client_options o("127.0.0.1:2181"); o.request_timeout = 2s;`).
// The client constructor checks the values (std::invalid_argument naming the option and what it must be): a session
// timeout of 0 or less, a negative time limit or a max_frame_size below 16 bytes is refused before anything starts.
struct client_options {
  client_options();
  explicit client_options(std::string servers);  // the connect_string

  // "host:port[,host:port...][/chroot]", see connect_string.hpp.
  std::string connect_string = "127.0.0.1:2181";
  // Requested session timeout; the server clamps it to [minSessionTimeout, maxSessionTimeout].
  std::chrono::milliseconds session_timeout{10000};
  // async_connect gives up (client_errc::connect_timeout) when no session is established within this time.
  // 0: the session timeout (the CLI's default for --connect-timeout). The client keeps trying in the background
  // until it is closed; a later async_connect waits again. Servers that close every connection before answering
  // (maxClientCnxns) end the wait earlier, with client_errc::closed_before_handshake (client::async_connect).
  std::chrono::milliseconds connect_timeout{0};
  // Per host attempt (TCP connect plus handshake) before the next host is tried. 0: the engine's default,
  // max(min(session timeout / number of hosts, session timeout / 3), 250 ms) (docs/protocol.md#session-timers).
  std::chrono::milliseconds host_connect_timeout{0};
  // Shuffle the host list once (then round-robin). `seed` makes the shuffle and the reconnect jitter
  // deterministic (tests); 0 picks a random seed.
  bool shuffle_hosts = true;
  std::uint64_t seed = 0;
  // Added at start and replayed on every reconnect, in order (add_auth adds more later).
  std::vector<credential> auth;
  // Non-zero: take over this existing session (client::session_id() and session_password() of the client that
  // made it) instead of starting a new one; its ephemeral nodes and the server's watches stay. A session the
  // server no longer knows ends at the first handshake with client_error::session_expired (state expired).
  std::int64_t resume_session_id = 0;
  std::string resume_session_password;  // 16 bytes (shorter is padded with zero bytes)
  // Largest reply frame accepted (docs/protocol.md#limits): 64 MiB, enough to list directories of about a million
  // children. A longer reply fails only its own request, with client_error::frame_too_large; the session goes on.
  // Memory is taken as a reply's bytes arrive, never for the announced length alone.
  std::size_t max_frame_size = jute::default_max_reply_size;
  // --- SASL ---
  // When set, every connection (the first and each reconnect, same session or new) runs a SASL DIGEST-MD5
  // exchange right after the handshake; requests issued meanwhile wait, and the session counts as connected
  // (async_connect completes, state connected) only once it succeeded. A rejection — wrong user or password, or
  // a server unable to prove it knows the password — ends the session: state auth_failed, and every pending and
  // later operation, async_connect included, fails with proto::client_error::sasl_failed (or
  // sasl_exchange_failed), both `== proto::condition::session_ended`. The client does not retry on its own;
  // async_new_session tries again with the same credentials. Copied when the client is constructed (the client
  // keeps the password in memory for the reconnects); not changeable afterwards.
  std::optional<sasl_credentials> sasl;
  // --- end SASL ---
  // --- request deadlines and read-only mode ---
  // Request deadline (docs/protocol.md#deadlines): a request with no reply within this time after it was started
  // completes with client_error::operation_timeout (== condition::timeout), waiting for a connection included;
  // the session and connection are not affected. For a write the outcome is then UNKNOWN: if it had been
  // written, the server may still apply it (read back to learn the outcome). 0: no deadline (the default; a
  // request then waits until it is answered or the connection breaks, and without a connection as
  // wait_for_connection says). Per call: zkwire::with_timeout.
  std::chrono::milliseconds request_timeout{0};
  // How long a request started while there is no connection (before the first, while reconnecting) waits for one
  // (docs/protocol.md#without-a-connection). one_round (the default): until the round of connection attempts
  // under way, each host of the list once, has ended (the next round, if the client is pausing between two): sent
  // if an attempt succeeded, else it fails with client_error::connection_loss (== condition::connection_loss; it
  // was never sent, so nothing was applied). A round takes at most the number of hosts times the host connect
  // timeout, by default about the session timeout, and the pause before it at most 1 s; refused connections end a
  // round within milliseconds. one_attempt: until the attempt under way (one host) has ended, at once while
  // pausing, as ZooKeeper's C client. none: fail at once (fail fast). A deadline that comes first (request_timeout,
  // with_timeout) still ends the wait with operation_timeout.
  connection_wait wait_for_connection = connection_wait::one_round;
  // Accept read-only servers (ConnectRequest readOnly=true): with its quorum lost, a member started with
  // -Dreadonlymode.enabled=true serves reads (state connected_read_only; writes fail with NOTREADONLY).
  bool can_be_read_only = false;
  // While connected read-only, the client searches for a read-write server in the background
  // (docs/protocol.md#read-only): every round it asks the next other host of the list, on a connection of its own
  // made by the same transport (TLS included), with the `isro` four-letter word, and gives each host
  // max(host_connect_timeout, 1 s) to answer. The first pause is read_write_probe_interval; it doubles after every
  // round up to read_write_probe_max_interval. When a host answers "rw", the client leaves the read-only server
  // (state suspended with reason client_errc::read_write_server_found; requests in flight complete with
  // client_error::connection_loss) and connects to that host: state connected once its handshake succeeds. The
  // servers must allow `isro` (4lw.commands.whitelist; it is allowed by default in read-only mode). The search
  // stops in any other state, and with the client (close or destruction). 0: no search (the client then moves
  // only when the read-only server drops the connection, as it does when it rejoins a quorum). A single-host
  // connect string has nothing to search.
  std::chrono::milliseconds read_write_probe_interval{100};
  std::chrono::milliseconds read_write_probe_max_interval{60000};
  // --- dynamic ensembles ---
  // Follow the ensemble's configuration (docs/protocol.md#dynamic-reconfiguration): once connected, the client
  // reads /zookeeper/config with a watch, and again whenever it changes; the members' client addresses
  // (ensemble_config::client_hosts) then replace the host list (client::servers() shows it). The session is kept.
  // When the list changes, the client rebalances as ZooKeeper's own clients do (choose_host_after_reconfig): it
  // stays on its member if that member remains and the ensemble did not grow, moves with probability
  // 1 - old/new to an added member if it grew, and always moves if its member was removed — by reconnecting to the
  // chosen member with the same session (state suspended with reason client_errc::ensemble_changed, then
  // connected; requests in flight complete with client_error::connection_loss). A configuration that cannot be
  // parsed, or lists no client address, is logged (warning) and ignored. Not with a chroot in the connect string
  // (the client constructor throws std::invalid_argument): the configuration watch lives outside the chroot.
  // With a `seed`, the choices are those of choose_host_after_reconfig drawing from std::mt19937_64(seed), one
  // call per change of the list, in order (repeatable).
  bool follow_config = false;
  // Receives connection and session events; nothing is logged when empty.
  log_function logger;
  // The byte stream to the servers (transport.hpp); empty: TCP (make_tcp_transport), or TLS when `tls` is set.
  transport_factory transport;
  // Advanced. A request is written by the call that starts it, when the connection is free and the client has
  // nothing else to do, instead of by a handler posted to the executor: a caller on another thread need not wake
  // the executor's thread to send. Only the write moves: completion handlers still run from the executor, never
  // from the initiating call. Calls from other threads are safe only under a lock that the executor also holds
  // around every handler it runs (zkwire's C library does this). With an ordinary executor leave it off, so that
  // a loop of requests goes out in one write rather than in one write each.
  bool start_requests_inline = false;
  // --- TLS ---
  // Set: TLS to every host (tls_options.hpp), with the server's certificate and host name verified by default.
  // The files are read when the client is constructed, which throws std::system_error (a tls_errc) when they
  // are unreadable or invalid; a failed handshake fails async_connect with its tls_errc. Ignored when
  // `transport` is set (make_tls_transport_factory makes a TLS factory to combine with other transports).
  std::optional<tls_options> tls;
  // --- end TLS ---
  // Where time comes from (clock.hpp); null: steady_clock_source(). A simulation shares one virtual clock.
  std::shared_ptr<zkwire::clock> clock;
};

}  // namespace zkwire
