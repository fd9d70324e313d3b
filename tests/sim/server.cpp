// The simulated server's connections and sessions: framing, the handshake, session expiry, closing, and how
// replies and watch notifications are written. The request handlers are in server_ops.cpp.

#include "server.hpp"

#include <algorithm>

#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/message.hpp"

namespace zkwire::sim {
namespace {

using proto::server_error;

// A session's password: derived from its id (the real server derives it from the id and a secret, so it too can
// check a resume without storing anything).
std::string password_of(std::int64_t session) {
  std::string out(proto::password_length, '\0');
  auto x = static_cast<std::uint64_t>(session) ^ 0x9e3779b97f4a7c15ULL;
  for (char& byte : out) {
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ULL;
    byte = static_cast<char>(x >> 56);
  }
  return out;
}

bool is_auth_packet(std::string_view payload) {
  if (payload.size() < 4) return false;
  std::uint32_t xid = 0;
  for (std::size_t i = 0; i < 4; ++i) xid = (xid << 8) | static_cast<unsigned char>(payload[i]);
  return static_cast<std::int32_t>(xid) == proto::special_xid::auth;
}

}  // namespace

server::server(server_config config) : config_(config), random_(config.seed) {
  if (config_.min_session_timeout.count() == 0) config_.min_session_timeout = 2 * config_.tick_time;
  if (config_.max_session_timeout.count() == 0) config_.max_session_timeout = 20 * config_.tick_time;
  next_container_check_ = config_.container_check_interval;
}

connection_id server::open_connection() {
  const connection_id id = next_connection_++;
  connections_.try_emplace(id);
  return id;
}

std::optional<std::int64_t> server::session_of(connection_id c) const {
  const auto it = connections_.find(c);
  if (it == connections_.end() || it->second.session == 0) return std::nullopt;
  return it->second.session;
}

void server::receive(connection_id id, std::string_view bytes, sim_time now) {
  const auto it = connections_.find(id);
  if (it == connections_.end() || it->second.closed) return;
  connection& conn = it->second;
  conn.reader.feed(bytes);
  while (!conn.closed) {
    const auto payload = conn.reader.next();
    if (!payload) break;
    if (conn.blocked && conn.handshaken && is_auth_packet(*payload)) {
      // The real server answers an auth packet on its connection thread, ahead of the requests still in its
      // pipeline: those are applied afterwards, and after a failed auth (connection closed) their replies are lost.
      process(id, conn, *payload, now);
    } else if (conn.blocked) {
      conn.queued.emplace_back(*payload);
    } else if (conn.handshaken) {
      if (!forwarded(id, conn, *payload, now)) process(id, conn, *payload, now);
    } else {
      handshake(id, conn, *payload, now);
    }
  }
  if (conn.reader.error()) close(id, conn);
}

std::string server::take_output(connection_id c) {
  const auto it = connections_.find(c);
  if (it == connections_.end()) return {};
  return std::exchange(it->second.output, {});
}

bool server::is_closed(connection_id c) const {
  const auto it = connections_.find(c);
  return it == connections_.end() || it->second.closed;
}

void server::close_connection(connection_id c, sim_time /*now*/) {
  const auto it = connections_.find(c);
  if (it == connections_.end()) return;
  close(c, it->second);
  connections_.erase(it);
}

// The connection ends (by either side): its watches go, its session stays until it expires.
void server::close(connection_id id, connection& conn) {
  if (conn.closed) return;
  conn.closed = true;
  watches_.drop_connection(id);
  if (const auto s = sessions_.find(conn.session); s != sessions_.end() && s->second.connection == id) {
    s->second.connection.reset();
  }
}

void server::handshake(connection_id id, connection& conn, std::string_view payload, sim_time now) {
  proto::connect_request request;
  if (proto::decode_connect_request(payload, request)) {
    close(id, conn);
    return;
  }
  // A server that has not seen the client's last zxid closes without a reply: the client tries another server.
  if (request.last_zxid_seen > zxid_) {
    close(id, conn);
    return;
  }
  const bool with_read_only = payload.size() >= proto::connect_request_size;
  const sim_time timeout =
      std::clamp(sim_time{request.timeout}, config_.min_session_timeout, config_.max_session_timeout);
  proto::connect_response response;
  response.read_only = false;
  if (ensemble_ != nullptr) {
    if (request.session_id == 0) {
      // createSession is a transaction: the connect response comes when this member applies it.
      txn t;
      t.what = txn::kind::create_session;
      t.origin = member_;
      t.connection = id;
      t.session = (config_.server_id << 56) + next_session_++;
      t.at = now;
      t.timeout = timeout;
      t.with_read_only = with_read_only;
      conn.blocked = true;
      ensemble_->forward(std::move(t));
    } else {
      resume_at_member(id, conn, request, timeout, with_read_only, now);
    }
    return;
  }
  if (request.session_id == 0) {
    const std::int64_t session = (config_.server_id << 56) + next_session_++;
    next_zxid();  // createSession is a transaction
    sessions_[session] = session_info{session, password_of(session), timeout, now, id};
    response = {proto::wire_protocol_version, static_cast<std::int32_t>(timeout.count()), session, password_of(session),
                false};
  } else {
    const auto s = sessions_.find(request.session_id);
    if (s != sessions_.end() && s->second.connection && *s->second.connection != id) {
      // The server first closes any other connection of the session, even when the password turns out wrong.
      if (const auto other = connections_.find(*s->second.connection); other != connections_.end()) {
        close(other->first, other->second);
      }
    }
    if (s == sessions_.end() || s->second.password != request.passwd) {
      response = {proto::wire_protocol_version, 0, 0, std::string(proto::password_length, '\0'), false};
    } else {
      s->second.timeout = timeout;
      s->second.last_heard = now;
      s->second.connection = id;
      response = {proto::wire_protocol_version, static_cast<std::int32_t>(timeout.count()), s->first,
                  s->second.password, false};
    }
  }
  answer_connect(id, conn, response, with_read_only);
}

void server::answer_connect(connection_id id, connection& conn, const proto::connect_response& response,
                            bool with_read_only) {
  std::string frame;
  proto::encode_frame(frame, response);
  if (!with_read_only) {  // the reply has the read-only byte only when the request had it
    frame.pop_back();
    const auto length = static_cast<std::uint32_t>(frame.size() - 4);
    for (int i = 0; i < 4; ++i) frame[static_cast<std::size_t>(i)] = static_cast<char>(length >> (8 * (3 - i)));
  }
  conn.output += frame;
  if (response.timeout == 0) {
    close(id, conn);
    return;
  }
  conn.handshaken = true;
  conn.session = response.session_id;
}

void server::tick(sim_time now) {
  if (ensemble_ != nullptr) return;  // the leader expires sessions and reaps containers, by transactions
  std::vector<std::int64_t> expired;
  for (const auto& [id, s] : sessions_) {
    // Expiry is bucketed by tickTime on the real server: a session goes at the first tick after its deadline.
    if (now >= tick_after(s.last_heard + s.timeout, config_.tick_time)) expired.push_back(id);
  }
  for (const auto id : expired) expire_session(id, now);
  if (now >= next_container_check_) {
    next_container_check_ = now + config_.container_check_interval;
    for (const auto& path : tree_.reapable_containers()) {
      triggers t;
      const std::int64_t zxid = next_zxid();
      if (!tree_.remove(path, -1, zxid, t, nullptr)) fire(t);
    }
  }
}

std::optional<sim_time> server::session_expiry(std::int64_t session) const {
  const auto s = sessions_.find(session);
  if (s == sessions_.end()) return std::nullopt;
  return s->second.last_heard + s->second.timeout;
}

sim_time server::next_deadline() const {
  if (ensemble_ != nullptr) return sim_time::max();
  sim_time next = next_container_check_;
  for (const auto& [id, s] : sessions_) next = std::min(next, tick_after(s.last_heard + s.timeout, config_.tick_time));
  return next;
}

// Expiry closes the session's connection without a word; the client learns it at its next handshake.
void server::expire_session(std::int64_t session, sim_time now) {
  const auto s = sessions_.find(session);
  if (s == sessions_.end()) return;
  const auto bound = s->second.connection;
  end_session(session, now);
  if (bound) {
    if (const auto c = connections_.find(*bound); c != connections_.end()) close(c->first, c->second);
  }
}

// One closeSession transaction: the session's ephemerals are deleted (firing their watches) and it is forgotten.
void server::end_session(std::int64_t session, sim_time /*now*/) {
  const auto s = sessions_.find(session);
  if (s == sessions_.end()) return;
  const std::int64_t zxid = next_zxid();
  for (const auto& path : tree_.ephemerals(session, "/")) {
    triggers t;
    if (!tree_.remove(path, -1, zxid, t, nullptr)) fire(t);
  }
  sessions_.erase(s);
}

// Ensemble members (ensemble.hpp).

void server::join(replication& ensemble, std::size_t index) {
  ensemble_ = &ensemble;
  member_ = index;
  config_.server_id = static_cast<std::int64_t>(index) + 1;  // session ids carry the member that created them
}

// A session resumed at a member: the leader's session table decides (a member may not have applied its creation or
// its expiry yet), and any connection of the session at another member is closed.
void server::resume_at_member(connection_id id, connection& conn, const proto::connect_request& request,
                              sim_time timeout, bool with_read_only, sim_time now) {
  const std::int64_t session = request.session_id;
  if (const auto s = sessions_.find(session);
      s != sessions_.end() && s->second.connection && *s->second.connection != id) {
    if (const auto other = connections_.find(*s->second.connection); other != connections_.end()) {
      close(other->first, other->second);
    }
  }
  if (!ensemble_->session_alive(session) || password_of(session) != request.passwd) {
    answer_connect(id, conn, {proto::wire_protocol_version, 0, 0, std::string(proto::password_length, '\0'), false},
                   with_read_only);
    return;
  }
  auto& s = sessions_[session];  // created here if this member has not applied createSession yet
  s.id = session;
  s.password = password_of(session);
  s.timeout = timeout;
  s.connection = id;
  ensemble_->touch(session, now);
  ensemble_->moved(session, member_);
  answer_connect(id, conn,
                 {proto::wire_protocol_version, static_cast<std::int32_t>(timeout.count()), session, s.password, false},
                 with_read_only);
}

void server::disconnect_session(std::int64_t session) {
  const auto s = sessions_.find(session);
  if (s == sessions_.end() || !s->second.connection) return;
  if (const auto c = connections_.find(*s->second.connection); c != connections_.end()) close(c->first, c->second);
}

// At a member, a write (and sync, and closeSession) goes to the leader; the connection waits for it to be applied.
bool server::forwarded(connection_id id, connection& conn, std::string_view payload, sim_time now) {
  if (ensemble_ == nullptr || applying_) return false;
  ensemble_->touch(conn.session, now);
  proto::request_header header;
  jute::reader r(payload, payload.size());
  proto::decode(r, header);
  if (!r.ok()) return false;
  switch (header.type) {
    case proto::op_code::create:
    case proto::op_code::create2:
    case proto::op_code::create_container:
    case proto::op_code::create_ttl:
    case proto::op_code::delete_:
    case proto::op_code::set_data:
    case proto::op_code::set_acl:
    case proto::op_code::multi:
    case proto::op_code::sync:
    case proto::op_code::close_session:
      break;
    default:
      return false;
  }
  txn t;
  t.what = header.type == proto::op_code::close_session ? txn::kind::close_session : txn::kind::request;
  t.origin = member_;
  t.connection = id;
  t.session = conn.session;
  t.digest_ids = conn.digest_ids;
  t.payload = std::string(payload);
  t.at = now;
  conn.blocked = true;
  ensemble_->forward(std::move(t));
  return true;
}

void server::apply(const txn& t, sim_time now) {
  const auto origin = t.origin == member_ && t.connection != 0 ? connections_.find(t.connection) : connections_.end();
  const bool answer = origin != connections_.end() && !origin->second.closed;
  applying_ = true;
  switch (t.what) {
    case txn::kind::create_session: {
      next_zxid();
      auto& s = sessions_[t.session];  // a resume here may have come first
      s.id = t.session;
      s.password = password_of(t.session);
      s.timeout = t.timeout;
      if (answer) {
        s.connection = origin->first;
        answer_connect(
            origin->first, origin->second,
            {proto::wire_protocol_version, static_cast<std::int32_t>(t.timeout.count()), t.session, s.password, false},
            t.with_read_only);
      }
      break;
    }
    case txn::kind::reap: {
      // The leader saw an empty container; every member re-checks on the same state, so all agree.
      const auto reapable = tree_.reapable_containers();
      if (std::find(reapable.begin(), reapable.end(), t.payload) != reapable.end()) {
        triggers out;
        const std::int64_t zxid = next_zxid();
        if (!tree_.remove(t.payload, -1, zxid, out, nullptr)) fire(out);
      }
      break;
    }
    case txn::kind::close_session:
      if (t.connection == 0 || !answer) {
        expire_session(t.session, t.at);
        break;
      }
      [[fallthrough]];
    case txn::kind::request: {
      if (t.session_gone) {
        const std::int64_t zxid = next_zxid();
        proto::request_header header;
        jute::reader r(t.payload, t.payload.size());
        proto::decode(r, header);
        if (answer) fail(origin->second, header.xid, zxid, server_error::session_expired);
        break;
      }
      connection scratch;  // the request as its connection sent it; the reply is kept only at the origin
      scratch.handshaken = true;
      scratch.session = t.session;
      scratch.digest_ids = t.digest_ids;
      process(0, scratch, t.payload, t.at);
      if (answer) {
        origin->second.output += scratch.output;
        if (scratch.closed) close(origin->first, origin->second);
      }
      break;
    }
  }
  applying_ = false;
  if (answer) {
    origin->second.blocked = false;
    drain(origin->first, origin->second, now);
  }
}

// What a connection sent while its forwarded request was pending, in order, until the next one blocks it again.
void server::drain(connection_id id, connection& conn, sim_time now) {
  while (!conn.blocked && !conn.closed && !conn.queued.empty()) {
    const std::string payload = std::move(conn.queued.front());
    conn.queued.pop_front();
    if (!conn.handshaken) {
      handshake(id, conn, payload, now);
    } else if (!forwarded(id, conn, payload, now)) {
      process(id, conn, payload, now);
    }
  }
}

void server::fire(const triggers& t) {
  std::vector<fired_event> events;
  std::set<connection_id> notified;
  const trigger* previous = nullptr;
  for (const trigger& one : t) {
    // The data and child tables hear of a deleted node together: a connection is told once.
    if (!previous || previous->path != one.path || previous->type != one.type) notified.clear();
    watches_.fire(one, notified, events);
    previous = &one;
  }
  for (const auto& e : events) {
    const auto c = connections_.find(e.connection);
    if (c == connections_.end() || c->second.closed) continue;
    proto::encode_reply_frame(c->second.output, proto::reply_header{proto::special_xid::notification, -1, 0}, e.event);
  }
}

void server::fail(connection& conn, std::int32_t xid, std::int64_t zxid, std::error_code err) {
  proto::encode_reply_frame(conn.output, proto::reply_header{xid, zxid, err.value()}, proto::no_body{});
}

std::vector<std::string> server::listing(std::string_view path) {
  auto names = tree_.children(path);
  std::shuffle(names.begin(), names.end(), random_);
  return names;
}

// The ACL as the server stores it: an entry of scheme "auth" becomes one entry per digest id of the connection
// (the ids a client authenticated with), with the same permissions; none makes the ACL invalid.
std::error_code server::fix_acl(const connection& conn, std::vector<proto::acl>& acl) {
  if (acl.empty()) return server_error::invalid_acl;
  std::vector<proto::acl> fixed;
  for (const auto& entry : acl) {
    const auto& [scheme, id] = entry.id;
    if (scheme == "auth") {
      if (conn.digest_ids.empty()) return server_error::invalid_acl;
      for (const auto& mine : conn.digest_ids) fixed.push_back({entry.perms, {"digest", mine}});
      continue;
    }
    const bool ok = (scheme == "world" && id == "anyone") ||
                    (scheme == "digest" && std::count(id.begin(), id.end(), ':') == 1) || scheme == "ip";
    if (!ok) return server_error::invalid_acl;
    fixed.push_back(entry);
  }
  acl = std::move(fixed);
  return {};
}

}  // namespace zkwire::sim
