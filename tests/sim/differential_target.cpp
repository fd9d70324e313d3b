// The two sides of the differential test: sessions, their transcripts, and the real and virtual clocks
// (differential_target.hpp).

#include "differential_target.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <thread>
#include <utility>

#include "text.hpp"

namespace zkwire::sim::differential {

using proto::op_code;

socket_link::socket_link(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd_ < 0 || ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) closed_ = true;
}

socket_link::~socket_link() {
  if (fd_ >= 0) ::close(fd_);
}

void socket_link::send(std::string_view bytes) {
  while (!bytes.empty() && !closed_) {
    const auto n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) {
      closed_ = true;
      return;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string socket_link::receive() {
  if (closed_) return {};
  pollfd p{fd_, POLLIN, 0};
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(std::max(std::exchange(wait_, default_wait), micros{0}));
  if (::poll(&p, 1, static_cast<int>(ms.count())) <= 0) return {};
  char buf[65536];
  const auto n = ::recv(fd_, buf, sizeof buf, 0);
  if (n <= 0) {
    closed_ = true;
    return {};
  }
  return {buf, static_cast<std::size_t>(n)};
}

void target::connect(std::size_t i, std::int32_t timeout_ms, std::size_t member) {
  if (sessions_.size() <= i) sessions_.resize(i + 1);
  auto& s = sessions_[i];
  s.sent = pace_.step();
  s.link = make_(member);
  s.peer = std::make_unique<testing::wire_peer>(*s.link);
  if (s.timeout == 0) s.timeout = timeout_ms;  // a resume asks for what the session had
  // A new session has seen nothing; a resumed one tells the server the last zxid it saw, and a server that has
  // not applied that far refuses it (closes the connection without a reply).
  const auto response = s.peer->connect(s.timeout, s.id, s.passwd, s.last_zxid);
  s.answered = pace_.now();
  if (!response) {
    log(cat("c", i, " connect -> connection closed"));
    return;
  }
  if (s.id == 0) owners_[response->session_id] = i;
  s.id = response->session_id;
  s.passwd = response->passwd;
  if (response->timeout > 0) s.timeout = response->timeout;
  log(cat("c", i, " connected timeout=", response->timeout));
}

void target::reconnect(std::size_t i, std::size_t member) {
  sessions_.at(i).peer.reset();
  sessions_.at(i).link.reset();
  connect(i, 0, member);
}

void target::pipeline(std::size_t i, const std::vector<std::pair<op_code, proto::request_body>>& requests) {
  auto& s = sessions_.at(i);
  s.sent = pace_.step();
  std::string frames;
  std::vector<std::pair<op_code, std::int32_t>> expected;
  for (const auto& request : requests) {
    const op_code op = request.first;
    std::int32_t xid = 0;
    frames += std::visit([&](const auto& b) { return s.peer->encode(op, b, xid); }, request.second);
    expected.emplace_back(op, xid);
  }
  s.link->send(frames);
  const std::int32_t first = expected.front().second;
  for (const auto& [op, xid] : expected) {
    auto result = s.peer->receive(op);
    if (result && result->reply.header.xid != xid) {
      log(cat("c", i, " reply for xid +", result->reply.header.xid - first, " where +", xid - first, " was next"));
      result.reset();
    }
    log_result(i, op, result);
    if (!result) break;
  }
  s.answered = pace_.now();
}

void target::cut(std::size_t i, op_code op, const proto::request_body& body, bool whole) {
  auto& s = sessions_.at(i);
  s.sent = pace_.step();
  std::int32_t xid = 0;
  std::string frame = std::visit([&](const auto& b) { return s.peer->encode(op, b, xid); }, body);
  if (!whole) frame.resize(frame.size() / 2);
  s.link->send(frame);
  s.peer.reset();
  s.link.reset();  // a socket_link closes its socket; a sim_link tells the model the connection is gone
  log(cat("c", i, " cut ", proto::op_code_name(op), whole ? " after the whole request" : " in the middle of it"));
}

void target::await_events(std::size_t i, std::size_t count, micros within) {
  auto& s = sessions_.at(i);
  const micros until = pace_.step() + within;
  // Logged sorted: events of independent changes (sessions in one expiry bucket, or in buckets whose order depends
  // on the server's tick phase) come in an order no client can rely on.
  std::vector<std::string> lines;
  while (lines.size() < count && !s.link->closed() && pace_.now() < until) {
    pace_.idle(*s.link, until);
    for (const auto& e : s.peer->poll_events()) {
      lines.push_back(cat("c", i, " event ", static_cast<int>(e.type), ' ', e.path));
      events_.push_back({i, e, pace_.now()});
    }
  }
  std::sort(lines.begin(), lines.end());
  for (auto& line : lines) log(std::move(line));
  if (lines.size() < count) log(cat("c", i, " saw ", lines.size(), " of ", count, " events"));
}

void target::await_closed(std::size_t i, micros within) {
  auto& s = sessions_.at(i);
  const micros until = pace_.step() + within;
  while (!s.link->closed() && pace_.now() < until) {
    pace_.idle(*s.link, until);
    for (const auto& e : s.peer->poll_events()) log_event(i, e, pace_.now());
  }
  log(cat("c", i, s.link->closed() ? " connection closed by the server" : " connection still open"));
}

void target::close_all() {
  for (auto& s : sessions_) {
    if (s.link && !s.link->closed() && s.peer) s.peer->call(op_code::close_session, proto::no_body{});
  }
}

void target::log_result(std::size_t i, op_code op, const std::optional<testing::call_result>& result) {
  std::ostringstream line;
  line << 'c' << i << ' ' << proto::op_code_name(op);
  if (!result) {
    line << " -> connection closed";
    log(line.str());
    return;
  }
  for (const auto& e : result->events) log_event(i, e, pace_.now());
  const auto& h = result->reply.header;
  if (h.zxid > 0) sessions_.at(i).last_zxid = std::max(sessions_.at(i).last_zxid, h.zxid);
  line << " err=" << h.err << " zxid=" << relative(h.zxid) << ' ' << describe(result->reply.body);
  log(line.str());
}

void target::log_event(std::size_t i, const proto::watcher_event& e, micros at) {
  log(cat("c", i, " event ", static_cast<int>(e.type), ' ', e.path));
  events_.push_back({i, e, at});
}

std::string target::relative(std::int64_t zxid) {
  if (zxid <= 0) return std::to_string(zxid);
  if (!base_) base_ = zxid;
  return cat("+", zxid - *base_);
}

std::string target::describe(const proto::stat& s) {
  std::ostringstream out;
  const auto owner = owners_.find(s.ephemeral_owner);
  out << "{c" << relative(s.czxid) << " m" << relative(s.mzxid) << " p" << relative(s.pzxid) << " v" << s.version
      << " cv" << s.cversion << " av" << s.aversion << " owner="
      << (s.ephemeral_owner == 0   ? std::string("-")
          : owner == owners_.end() ? std::string("?")
                                   : cat("s", owner->second))
      << " len" << s.data_length << " n" << s.num_children << '}';
  return out.str();
}

namespace {

std::string sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::string out = "[";
  for (const auto& n : names) out += cat(n, ",");
  return cat(out, "]");
}

}  // namespace

std::string target::describe(const proto::multi_result& r) {
  std::string out = cat(static_cast<int>(r.type), "/", r.err);
  std::visit(
      [this, &out](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, proto::create_response>) out += cat(' ', b.path);
        if constexpr (std::is_same_v<T, proto::create2_response>) out += cat(' ', b.path, this->describe(b.stat));
        if constexpr (std::is_same_v<T, proto::set_data_response>) out += this->describe(b.stat);
        if constexpr (std::is_same_v<T, proto::get_data_response>)
          out += cat(' ', b.data.value_or(""), this->describe(b.stat));
        if constexpr (std::is_same_v<T, proto::get_children_response>) out += cat(' ', sorted(b.children));
      },
      r.body);
  return out;
}

std::string target::describe(const proto::response_body& body) {
  return std::visit(
      [this](const auto& b) -> std::string {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, proto::create_response> || std::is_same_v<T, proto::sync_response>) {
          return b.path;
        } else if constexpr (std::is_same_v<T, proto::create2_response>) {
          return cat(b.path, this->describe(b.stat));
        } else if constexpr (std::is_same_v<T, proto::exists_response> || std::is_same_v<T, proto::set_data_response> ||
                             std::is_same_v<T, proto::set_acl_response>) {
          return this->describe(b.stat);
        } else if constexpr (std::is_same_v<T, proto::get_data_response>) {
          return cat("'", b.data.value_or("<null>"), "'", this->describe(b.stat));
        } else if constexpr (std::is_same_v<T, proto::get_acl_response>) {
          std::string out;
          for (const auto& a : b.acl) out += cat(a.perms, ":", a.id.scheme, ":", a.id.id, " ");
          return cat(out, this->describe(b.stat));
        } else if constexpr (std::is_same_v<T, proto::get_children_response>) {
          return sorted(b.children);
        } else if constexpr (std::is_same_v<T, proto::get_children2_response>) {
          return cat(sorted(b.children), this->describe(b.stat));
        } else if constexpr (std::is_same_v<T, proto::get_ephemerals_response>) {
          return sorted(b.ephemerals);
        } else if constexpr (std::is_same_v<T, proto::get_all_children_number_response>) {
          return cat(b.total_number);
        } else if constexpr (std::is_same_v<T, proto::who_am_i_response>) {
          std::vector<std::string> ids;
          for (const auto& info : b.client_info) ids.push_back(cat(info.auth_scheme, ":", info.user));
          return sorted(ids);
        } else if constexpr (std::is_same_v<T, proto::multi_response>) {
          std::string out;
          for (const auto& r : b.results) out += cat(this->describe(r), "; ");
          return out;
        } else if constexpr (std::is_same_v<T, proto::error_response>) {
          return cat("error_response ", b.err);
        } else {
          return "";
        }
      },
      body);
}

micros real_pace::step() {
  const micros t = now();
  timeline_.push_back(t);
  return t;
}

micros real_pace::now() const { return std::chrono::duration_cast<micros>(std::chrono::steady_clock::now() - start_); }

void real_pace::idle(testing::byte_link& link, micros until) {
  if (auto* socket = dynamic_cast<socket_link*>(&link)) socket->set_wait(until - now());
}

void real_pace::pass(micros at) {
  if (const micros left = at - now(); left > micros{0}) std::this_thread::sleep_for(left);
}

micros model_pace::step() {
  // The real side took this step at timeline_[next_]: the model's clock (whole milliseconds) goes there first.
  if (next_ < timeline_.size()) advance_to(std::chrono::floor<sim_time>(timeline_[next_]));
  ++next_;
  return now_;
}

void model_pace::idle(testing::byte_link& /*link*/, micros until) {
  advance_to(std::min(now_ + sim_time{1}, std::chrono::ceil<sim_time>(until)));
}

void model_pace::advance_to(sim_time t) {
  while (now_ < t) {
    now_ += sim_time{1};
    tick_(now_);
  }
}

std::optional<micros> model_pace::deadline(std::int64_t session) const {
  const auto d = deadline_(session);
  if (!d) return std::nullopt;
  return micros{*d};
}

}  // namespace zkwire::sim::differential
