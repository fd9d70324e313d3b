#include "connection.hpp"

#include <algorithm>
#include <asio/co_spawn.hpp>
#include <asio/connect.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/socket_base.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <sstream>
#include <utility>

namespace zkwire::faults::detail {

namespace {

constexpr auto as_tuple_awaitable = asio::experimental::as_tuple(asio::use_awaitable);
constexpr std::size_t read_size = std::size_t{64} * 1024;
constexpr std::size_t request_header_bytes = 8;  // xid, type
constexpr std::size_t reply_header_bytes = 16;   // xid, zxid, err

std::string length_prefix(std::size_t n) {
  const auto v = static_cast<std::uint32_t>(n);
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// The header that starts a frame's payload: none on the handshake frames.
std::size_t header_bytes(const frame_info& info) noexcept {
  if (info.handshake) return 0;
  return info.direction == rule_direction::request ? request_header_bytes : reply_header_bytes;
}

std::string endpoint_text(const tcp::endpoint& e) {
  std::ostringstream s;
  s << e;
  return s.str();
}

tcp::endpoint remote_of(const tcp::socket& s) {
  std::error_code ec;
  auto e = s.remote_endpoint(ec);
  return ec ? tcp::endpoint{} : e;
}

std::string actions_text(const std::vector<action_step>& steps) {
  std::string out;
  for (const auto s : steps) {
    if (!out.empty()) out += "-then-";
    out += action_step_name(s);
  }
  return out;
}

}  // namespace

std::int64_t monotonic_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(steady::now().time_since_epoch()).count();
}

connection::connection(std::shared_ptr<proxy_shared> shared, std::uint64_t id, tcp::socket client)
    : shared_(std::move(shared)),
      id_(id),
      client_endpoint_(remote_of(client)),
      tracker_(id),
      sides_{side(std::move(client), shared_->max_frame_size),
             side(tcp::socket(shared_->strand), shared_->max_frame_size)} {
  sides_[client_side].open = true;
}

connection_snapshot connection::snapshot() const {
  return {id_, client_endpoint_, requests_.load(), replies_.load(), blackholed_.load(), held_.load()};
}

void connection::log_event(std::string_view event, std::string_view detail) const {
  std::string line = "{\"t_us\":" + std::to_string(monotonic_us()) + ",\"conn\":" + std::to_string(id_);
  if (shared_->member != 0) line += ",\"member\":" + std::to_string(shared_->member);
  line += ",\"event\":" + json_quote(event);
  if (!detail.empty()) line += ",\"detail\":" + json_quote(detail);
  line += '}';
  shared_->write_log(line);
}

void connection::start(const std::optional<fired_rule>& on_accept) {
  log_event("accept", endpoint_text(client_endpoint_));
  std::chrono::milliseconds delay{0};
  if (on_accept) {
    frame_info info;
    info.direction = rule_direction::accept;
    info.connection = id_;
    info.member = shared_->member;
    shared_->write_log(frame_log_line(monotonic_us(), info, on_accept->id, actions_text(on_accept->rule.steps)));
    for (const auto step : on_accept->rule.steps) {
      if (step == action_step::delay) delay += on_accept->rule.ms;
    }
    const auto last = on_accept->rule.steps.back();
    if (last == action_step::rst) return reset("refused by rule");
    if (last == action_step::fin) return fin("refused by rule");
    if (last == action_step::blackhole) {
      // Never connect upstream: read and discard what the client sends until it gives up.
      blackhole("accept rule");
      asio::co_spawn(shared_->strand, pump(client_side), asio::detached);
      return;
    }
  }
  asio::co_spawn(shared_->strand, run(delay), asio::detached);
}

asio::awaitable<void> connection::run(std::chrono::milliseconds connect_delay) {
  auto self = shared_from_this();
  if (connect_delay.count() > 0) {
    asio::steady_timer timer(shared_->strand, connect_delay);
    co_await timer.async_wait(as_tuple_awaitable);
  }
  if (closed_) co_return;
  auto [ec, endpoint] = co_await asio::async_connect(sides_[server_side].socket, shared_->upstream, as_tuple_awaitable);
  if (closed_) co_return;
  if (ec) {
    close("upstream connect failed: " + ec.message());
    co_return;
  }
  sides_[server_side].open = true;
  std::error_code ignored;
  sides_[client_side].socket.set_option(tcp::no_delay(true), ignored);
  sides_[server_side].socket.set_option(tcp::no_delay(true), ignored);
  log_event("upstream", endpoint_text(endpoint));
  asio::co_spawn(shared_->strand, pump(client_side), asio::detached);
  asio::co_spawn(shared_->strand, pump(server_side), asio::detached);
  asio::co_spawn(shared_->strand, writer(client_side), asio::detached);
  asio::co_spawn(shared_->strand, writer(server_side), asio::detached);
}

asio::awaitable<void> connection::pump(side_index from) {
  auto self = shared_from_this();
  side& in = sides_[from];
  while (!closed_) {
    auto space = in.reader.prepare(read_size);
    auto [ec, n] = co_await in.socket.async_read_some(asio::buffer(space.data(), space.size()), as_tuple_awaitable);
    if (closed_) co_return;
    if (ec) {
      close(std::string(from == client_side ? "client" : "server") + " closed: " + ec.message());
      co_return;
    }
    in.reader.commit(n);
    // Once blackholed or finishing, what arrives is read (so the peer is not stalled by a full window) and
    // discarded.
    while (!blackholed_ && !fin_requested_ && !closed_) {
      auto payload = in.reader.next();
      if (!payload) break;
      handle_frame(from, *payload);
    }
    if (blackholed_ || fin_requested_) {
      in.reader.reset();
    } else if (auto error = in.reader.error()) {
      reset(std::string("unparseable stream from ") + (from == client_side ? "client" : "server") + ": " +
            error.message());
      co_return;
    }
  }
}

void connection::handle_frame(side_index from, std::string_view payload) {
  const bool is_request = from == client_side;
  const side_index to = is_request ? server_side : client_side;
  frame_info info = is_request ? tracker_.on_request(payload) : tracker_.on_reply(payload);
  info.member = shared_->member;
  ++(is_request ? requests_ : replies_);
  ++(is_request ? shared_->request_frames : shared_->reply_frames);
  (is_request ? shared_->request_bytes : shared_->reply_bytes) += 4 + payload.size();
  const auto now = steady::now();
  std::string frame = length_prefix(payload.size());
  frame.append(payload);

  const auto fired = shared_->rules->decide(info, now);
  if (!fired) {
    shared_->write_log(frame_log_line(monotonic_us(), info, 0, "forward"));
    enqueue(to, std::move(frame), now);
    release_parked(to, now);
    return;
  }
  const rule& r = fired->rule;
  shared_->write_log(frame_log_line(monotonic_us(), info, fired->id, actions_text(r.steps)));
  bool forward = true;
  bool park = false;
  int copies = 1;
  auto release = now;
  for (const auto step : r.steps) {
    switch (step) {
      case action_step::pass:
        break;
      case action_step::drop:
        forward = false;
        break;
      case action_step::delay:
        release = now + r.ms;
        break;
      case action_step::hold:
        held_until_ = r.ms.count() > 0 ? now + r.ms : steady::time_point::max();
        held_ = true;
        break;
      case action_step::corrupt: {
        // The body if there is one, else the xid (the first 4 bytes); never a reply's zxid: a client that saw a
        // zxid from the future is refused by every server from then on, which tests nothing useful.
        const std::size_t header = header_bytes(info);
        const bool has_body = payload.size() > header;
        const std::size_t first = has_body ? header : 0;
        const std::size_t span = has_body ? payload.size() - header : std::min<std::size_t>(4, payload.size());
        if (span > 0) {
          const std::size_t at = 4 + first + static_cast<std::size_t>(fired->random % span);
          frame[at] = static_cast<char>(frame[at] ^ static_cast<char>(1 + (fired->random >> 32) % 255));
        }
        break;
      }
      case action_step::truncate:
        frame.resize(4 + payload.size() / 2);
        break;
      case action_step::duplicate:
        copies = 2;
        break;
      case action_step::inject:
        enqueue(to, r.inject_bytes, release);
        break;
      case action_step::rewrite: {
        const std::size_t header = header_bytes(info);
        std::string body = frame.substr(4, std::min(header, frame.size() - 4)) + r.inject_bytes;
        frame = length_prefix(body.size()) + body;
        break;
      }
      case action_step::reorder:
        park = true;
        break;
      case action_step::rst:
        return reset("rule " + std::to_string(fired->id));
      case action_step::fin:
        return fin("rule " + std::to_string(fired->id));
      case action_step::blackhole:
        return blackhole("rule " + std::to_string(fired->id));
    }
  }
  if (!forward) return;
  side& out = sides_[to];
  if (park) {
    release_parked(to, release);
    out.parked = std::move(frame);
    return;
  }
  for (int i = 1; i < copies; ++i) enqueue(to, frame, release);
  enqueue(to, std::move(frame), release);
  release_parked(to, release);
}

void connection::release_parked(side_index to, steady::time_point release) {
  // A parked (reordered) frame goes out right after the frame that overtook it.
  side& out = sides_[to];
  if (!out.parked) return;
  std::string parked = std::move(*out.parked);
  out.parked.reset();
  enqueue(to, std::move(parked), release);
}

void connection::enqueue(side_index to, std::string bytes, steady::time_point release) {
  side& out = sides_[to];
  // A delayed frame holds back the ones behind it: the stream keeps its order.
  release = std::max(release, out.last_release);
  out.last_release = release;
  out.out.push_back({release, std::move(bytes)});
  out.wake.cancel();
}

void connection::wake_writers() {
  for (auto& s : sides_) s.wake.cancel();
}

asio::awaitable<void> connection::writer(side_index to) {
  auto self = shared_from_this();
  side& out = sides_[to];
  while (!closed_) {
    if (blackholed_) out.out.clear();
    if (out.out.empty()) {
      if (fin_requested_) {
        std::error_code ignored;
        out.socket.shutdown(tcp::socket::shutdown_send, ignored);
        co_return;
      }
      out.wake.expires_at(steady::time_point::max());
      co_await out.wake.async_wait(as_tuple_awaitable);
      continue;
    }
    // A connection being closed with FIN is flushed even while held.
    const auto at = fin_requested_ ? out.out.front().release : std::max(out.out.front().release, held_until_);
    if (at > steady::now()) {
      out.wake.expires_at(at);
      co_await out.wake.async_wait(as_tuple_awaitable);
      continue;
    }
    std::string bytes = std::move(out.out.front().bytes);
    out.out.pop_front();
    auto [ec, n] = co_await asio::async_write(out.socket, asio::buffer(bytes), as_tuple_awaitable);
    if (closed_) co_return;
    if (ec) {
      close(std::string("write to ") + (to == client_side ? "client" : "server") + " failed: " + ec.message());
      co_return;
    }
  }
}

void connection::close(std::string_view reason) {
  if (closed_.exchange(true)) return;
  log_event("close", reason);
  std::error_code ignored;
  for (auto& s : sides_) {
    s.socket.close(ignored);
    s.wake.cancel();
  }
}

void connection::reset(std::string_view reason) {
  if (closed_) return;
  std::error_code ignored;
  for (auto& s : sides_) {
    if (s.socket.is_open()) s.socket.set_option(asio::socket_base::linger(true, 0), ignored);
  }
  close(std::string("rst: ") + std::string(reason));
}

void connection::fin(std::string_view reason) {
  if (closed_ || fin_requested_) return;
  fin_requested_ = true;
  log_event("fin", reason);
  std::error_code ignored;
  // A side without a running writer (no upstream yet) is shut down here; the writers do it after flushing.
  if (!sides_[server_side].open) {
    sides_[client_side].socket.shutdown(tcp::socket::shutdown_send, ignored);
    asio::co_spawn(shared_->strand, pump(client_side), asio::detached);
  }
  wake_writers();
}

void connection::blackhole(std::string_view reason) {
  if (closed_ || blackholed_) return;
  blackholed_ = true;
  log_event("blackhole", reason);
  for (auto& s : sides_) s.parked.reset();
  wake_writers();
}

void connection::cut(cut_kind how) {
  switch (how) {
    case cut_kind::rst:
      return reset("cut");
    case cut_kind::fin:
      return fin("cut");
    case cut_kind::blackhole:
      return blackhole("cut");
  }
}

}  // namespace zkwire::faults::detail
