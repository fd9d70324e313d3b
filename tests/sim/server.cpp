// The simulated server's connections and sessions: framing, the handshake, session expiry, closing, and how
// replies and watch notifications are written. The request handlers are in server_ops.cpp.

#include "server.hpp"

#include <algorithm>

#include "zkwire/proto/connect.hpp"

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

sim_time round_up(sim_time t, sim_time step) {
  if (step.count() <= 0) return t;
  return (t + step - sim_time{1}) / step * step;
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
    if (conn.handshaken) {
      process(id, conn, *payload, now);
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
  std::vector<std::int64_t> expired;
  for (const auto& [id, s] : sessions_) {
    // Expiry is bucketed by tickTime on the real server: a session goes at the first tick after its deadline.
    if (now >= round_up(s.last_heard + s.timeout, config_.tick_time)) expired.push_back(id);
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

sim_time server::next_deadline() const {
  sim_time next = next_container_check_;
  for (const auto& [id, s] : sessions_) next = std::min(next, round_up(s.last_heard + s.timeout, config_.tick_time));
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

std::error_code server::fix_acl(const connection& conn, std::vector<proto::acl>& acl) const {
  if (acl.empty()) return server_error::invalid_acl;
  for (const auto& entry : acl) {
    const auto& [scheme, id] = entry.id;
    const bool ok = (scheme == "world" && id == "anyone") ||
                    (scheme == "digest" && std::count(id.begin(), id.end(), ':') == 1) || scheme == "ip" ||
                    (scheme == "auth" && !conn.digest_users.empty());
    if (!ok) return server_error::invalid_acl;
  }
  return {};
}

}  // namespace zkwire::sim
