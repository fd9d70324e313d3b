#pragma once
// A simulated ZooKeeper 3.8 server that speaks the real wire bytes, for deterministic simulation of the zkwire
// client and recipes (and as a reference model checked against a real server by tests/sim/differential_test.cpp).
//
// Byte interface, one call per event, no sockets and no clock of its own:
//   auto c = server.open_connection();          // a client connected
//   server.receive(c, bytes, now);              // bytes arrived from that client
//   std::string out = server.take_output(c);    // bytes the server sends back (replies and notifications)
//   server.is_closed(c)                         // the server closed the connection (after sending its output)
//   server.close_connection(c, now);            // the network or the client dropped it
//   server.tick(now);                           // time passed: expire silent sessions, reap containers
//
// What it models (what clients depend on): the znode tree with full stats, sequential suffixes from the parent's
// creation counter, containers and their reaper, ephemerals owned by sessions, sessions created, resumed (with the
// password check and the move of a session to a new connection) and expired server-side after the negotiated
// timeout without a frame, one-shot/persistent/recursive watches with their firing rules, SetWatches/SetWatches2
// catch-up, multi and multiRead with 3.8.0's result shapes, sync, getChildren2, whoAmI, getEphemerals,
// getAllChildrenNumber, check/removeWatches, closeSession, pings, auth packets, and zxids (every write, failed ones
// included, consumes one, as do session creation and close).
// ACLs are stored, validated and enforced for world, ip and digest ids (the auth scheme stands for the connection's
// digest ids). What it leaves out: SASL, TTL nodes
// (createTTL answers UNIMPLEMENTED as a server without extended types does), reconfig and quotas.
//
// Thread safety: none; the simulation runs on one thread.

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "data_tree.hpp"
#include "watch_table.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/frame_reader.hpp"
#include "zkwire/proto/message.hpp"

namespace zkwire::sim {

using sim_time = std::chrono::milliseconds;  // virtual time since the simulation started

// The first multiple of `step` strictly after `t`. A ZooKeeper server keeps sessions in buckets one tickTime wide:
// a session last heard at L goes in the bucket of the first boundary after L + timeout (one exactly on a boundary
// goes in the next), and is expired when that boundary comes. The boundaries are multiples of tickTime on the
// server's own monotonic clock; the model's are multiples of tickTime of virtual time.
inline sim_time tick_after(sim_time t, sim_time step) {
  if (step.count() <= 0) return t;
  return (t / step + 1) * step;
}

struct server_config {
  sim_time tick_time{200};
  sim_time min_session_timeout{0};  // 0: 2 × tick_time, as the real server
  sim_time max_session_timeout{0};  // 0: 20 × tick_time
  sim_time container_check_interval{1000};
  std::int64_t server_id = 1;                 // the top byte of session ids
  std::uint64_t seed = 1;                     // children are listed in a seeded order (the real server lists unsorted)
  std::int64_t epoch_ms = 1'700'000'000'000;  // wall-clock ms at virtual time 0, for ctime/mtime
};

struct session_info {
  std::int64_t id = 0;
  std::string password;
  sim_time timeout{0};
  sim_time last_heard{0};
  std::optional<connection_id> connection;
};

// A write as an ensemble's leader orders it (ensemble.hpp): every member applies the same transactions in the same
// order, so their trees, zxids and sequential names stay identical; only when each applies them differs.
struct txn {
  enum class kind { request, create_session, close_session, reap };
  kind what = kind::request;
  std::size_t origin = 0;        // the member the client sent it to, which replies when it applies it
  connection_id connection = 0;  // at the origin; 0 for the leader's own (expiry, the container reaper)
  std::int64_t session = 0;
  std::vector<std::string> digest_ids;  // the connection's, for ACL checks at every member
  std::string payload;                  // request: the request's payload; reap: the container's path
  sim_time at{0};                       // when the leader ordered it: ctime and mtime
  sim_time timeout{0};                  // create_session: the negotiated timeout
  bool with_read_only = false;          // create_session: the connect request had the read-only byte
  bool session_gone = false;  // request: the leader no longer knew the session when it ordered it (it had expired)
};

// How an ensemble member reaches its ensemble. A member forwards every write (and sync, closeSession and session
// creation) instead of applying it, and applies what the ensemble hands back with apply().
class replication {
 public:
  virtual void forward(txn t) = 0;
  [[nodiscard]] virtual bool session_alive(std::int64_t session) const = 0;  // the leader's word
  virtual void touch(std::int64_t session, sim_time now) = 0;                // the leader hears of the session
  virtual void moved(std::int64_t session, std::size_t member) = 0;          // the session now lives at member

 protected:
  ~replication() = default;
};

class server {
 public:
  explicit server(server_config config = {});

  connection_id open_connection();
  void receive(connection_id c, std::string_view bytes, sim_time now);
  std::string take_output(connection_id c);
  [[nodiscard]] bool is_closed(connection_id c) const;
  void close_connection(connection_id c, sim_time now);
  void tick(sim_time now);

  // Ensemble membership: from now on this server is member `index` of `ensemble` (which outlives it). A member
  // forwards writes and applies transactions; it neither expires sessions nor reaps containers (the leader does).
  void join(replication& ensemble, std::size_t index);
  // Applies one ordered transaction; at its origin the reply goes to the client, and requests queued behind it on
  // that connection run.
  void apply(const txn& t, sim_time now);
  // The session's connection here, if any, is closed (the session moved to another member).
  void disconnect_session(std::int64_t session);

  // Faults and inspection.
  void expire_session(std::int64_t session, sim_time now);
  // The authentication provider of scheme "ext" (one backed by an outside service, e.g. a directory server) is
  // down until `until`: its auth packets fail meanwhile (see "auth" in server_ops.cpp).
  void set_auth_outage(sim_time until) { auth_outage_until_ = until; }
  [[nodiscard]] const data_tree& tree() const noexcept { return tree_; }
  [[nodiscard]] const watch_table& watches() const noexcept { return watches_; }
  [[nodiscard]] const std::map<std::int64_t, session_info>& sessions() const noexcept { return sessions_; }
  [[nodiscard]] std::int64_t last_zxid() const noexcept { return zxid_; }
  [[nodiscard]] std::optional<std::int64_t> session_of(connection_id c) const;
  // The earliest virtual time at which tick() has something to do (a session may expire, a container be reaped).
  [[nodiscard]] sim_time next_deadline() const;
  // Standalone: the earliest moment a ZooKeeper server may expire `session` if nothing more is heard from it (last
  // frame + negotiated timeout); empty if it is not alive. A real server expires it at a tick boundary after that,
  // up to a tick later, whose phase no client can know: so this is the deadline a client must respect. tick() expires
  // it at the first multiple of tickTime after it (tick_after).
  [[nodiscard]] std::optional<sim_time> session_expiry(std::int64_t session) const;

 private:
  struct connection {
    proto::frame_reader reader;
    std::string output;
    bool handshaken = false;
    bool closed = false;
    std::int64_t session = 0;
    std::vector<std::string> digest_ids;  // from auth packets (user:base64(sha1(user:password))): ACLs, whoAmI
    // Ensemble member: a forwarded request of this connection is not applied yet; what follows waits behind it, as a
    // ZooKeeper server answers a session's requests in order.
    bool blocked = false;
    std::deque<std::string> queued;
  };
  struct context {  // the request being processed
    connection_id id;
    connection& conn;
    sim_time now;
    std::int32_t xid;
  };

  void handshake(connection_id id, connection& conn, std::string_view payload, sim_time now);
  void process(connection_id id, connection& conn, std::string_view payload, sim_time now);
  bool forwarded(connection_id id, connection& conn, std::string_view payload, sim_time now);
  void answer_connect(connection_id id, connection& conn, const proto::connect_response& response, bool with_read_only);
  void resume_at_member(connection_id id, connection& conn, const proto::connect_request& request, sim_time timeout,
                        bool with_read_only, sim_time now);
  void drain(connection_id id, connection& conn, sim_time now);
  void close(connection_id id, connection& conn);
  void end_session(std::int64_t session, sim_time now);  // expiry or closeSession: one transaction
  std::int64_t next_zxid() { return ++zxid_; }
  [[nodiscard]] std::int64_t wall_ms(sim_time now) const { return config_.epoch_ms + now.count(); }
  void fire(const triggers& t);
  void fail(connection& conn, std::int32_t xid, std::int64_t zxid, std::error_code err);
  template <class Body>
  void reply(connection& conn, std::int32_t xid, std::int64_t zxid, const Body& body);
  std::vector<std::string> listing(std::string_view path);
  static std::error_code fix_acl(const connection& conn, std::vector<proto::acl>& acl);

  // One handler per request kind (server_ops.cpp).
  void op_create(context& ctx, proto::op_code op, const proto::create_request& req);
  void op_delete(context& ctx, const proto::delete_request& req);
  void op_set_data(context& ctx, const proto::set_data_request& req);
  void op_set_acl(context& ctx, const proto::set_acl_request& req);
  void op_read(context& ctx, proto::op_code op, const proto::request_body& body);
  void op_multi(context& ctx, const proto::multi_request& req);
  void op_multi_read(context& ctx, const proto::multi_request& req);
  void op_set_watches(context& ctx, const proto::set_watches2& req);
  void op_watches(context& ctx, proto::op_code op, const proto::request_body& body);
  std::error_code apply_create(context& ctx, proto::op_code op, const proto::create_request& req, std::int64_t zxid,
                               std::string* created, triggers& out);

  server_config config_;
  data_tree tree_;
  watch_table watches_;
  access who_;  // the connection of the request being processed (every simulated client is 127.0.0.1)
  std::map<connection_id, connection> connections_;
  std::map<std::int64_t, session_info> sessions_;
  sim_time auth_outage_until_{0};
  connection_id next_connection_ = 1;
  std::int64_t next_session_ = 1;
  std::int64_t zxid_ = 0;
  sim_time next_container_check_{0};
  std::mt19937_64 random_;
  replication* ensemble_ = nullptr;  // null: standalone
  std::size_t member_ = 0;
  bool applying_ = false;  // a transaction is being applied: writes run here instead of being forwarded
};

template <class Body>
void server::reply(connection& conn, std::int32_t xid, std::int64_t zxid, const Body& body) {
  proto::encode_reply_frame(conn.output, proto::reply_header{xid, zxid, 0}, body);
}

}  // namespace zkwire::sim
