#include "network.hpp"

#include <asio/error.hpp>
#include <asio/post.hpp>
#include <cstdio>

#include "text.hpp"
#include "zkwire/proto/connect.hpp"
#include "zkwire/proto/frame_reader.hpp"
#include "zkwire/proto/message.hpp"

namespace zkwire::sim {

// One TCP connection between a client's transport and a server connection.
struct network::wire {
  connection_id id = 0;
  std::size_t process = 0;
  std::size_t member = 0;
  std::weak_ptr<link> client;
  bool server_open = true;  // the server side has not closed it
  bool dead = false;        // died silently: nothing gets through either way
  // Held while the process is partitioned: TCP retransmits what it could not deliver once the path heals, so a
  // connection that survives a partition loses nothing.
  std::vector<std::string> held_to_server;
  std::string held_to_client;
  proto::frame_reader frames{std::size_t{16} << 20};  // client -> server bytes, split into frames
  bool handshaken = false;                            // the first frame (ConnectRequest) went through
  sim_time last_to_server{0};                         // deliveries keep their order: TCP is FIFO
  sim_time last_to_client{0};
};

// The client end: what the transport shares with the deliveries scheduled for it.
struct network::link {
  std::size_t process = 0;
  asio::any_io_executor executor;
  transport_events* events = nullptr;  // null once the transport is gone
  std::shared_ptr<wire> current;       // the connection, while open at the client
  std::uint64_t generation = 0;        // bumped by connect/close: voids deliveries for an earlier connection
  std::string inbound;                 // arrived from the server, not yet read
  std::error_code end;                 // eof or reset, once the peer is gone and inbound is drained
  std::span<char> read_buffer;
  bool read_pending = false;
  bool read_posted = false;

  void pump(const std::shared_ptr<link>& self) {
    if (!read_pending || read_posted || (inbound.empty() && !end)) return;
    read_posted = true;
    asio::post(executor, [self, generation = generation] {
      if (self->events == nullptr || generation != self->generation) return;
      self->read_posted = false;
      self->read_pending = false;
      if (self->inbound.empty()) {
        self->events->on_read(self->end, 0);
        return;
      }
      const std::size_t n = std::min(self->read_buffer.size(), self->inbound.size());
      std::copy_n(self->inbound.data(), n, self->read_buffer.data());
      self->inbound.erase(0, n);
      self->events->on_read({}, n);
    });
  }
};

class sim_transport final : public transport {
 public:
  sim_transport(network& net, std::size_t process, const asio::any_io_executor& executor, transport_events& events)
      : net_(net), link_(std::make_shared<network::link>()) {
    link_->process = process;
    link_->executor = executor;
    link_->events = &events;
  }
  sim_transport(const sim_transport&) = delete;
  sim_transport& operator=(const sim_transport&) = delete;
  sim_transport(sim_transport&&) = delete;
  sim_transport& operator=(sim_transport&&) = delete;
  ~sim_transport() override {
    close();
    link_->events = nullptr;
  }

  void async_connect(const host_port& host) override {
    net_.connect(link_, static_cast<std::size_t>(host.port - network::base_port));
  }
  void async_read_some(std::span<char> buffer) override {
    link_->read_buffer = buffer;
    link_->read_pending = true;
    link_->pump(link_);
  }
  void async_write(std::span<const char> bytes) override {
    net_.send(link_, std::string(bytes.data(), bytes.size()));
    // The bytes are in the network now (a socket's send buffer): the write completes on the next turn.
    asio::post(link_->executor, [l = link_, generation = link_->generation] {
      if (l->events != nullptr && generation == l->generation) l->events->on_written({});
    });
  }
  void close() noexcept override { net_.close(link_); }

 private:
  network& net_;
  std::shared_ptr<network::link> link_;
};

std::string trace::format(sim_time at) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%8lld.%03lld", static_cast<long long>(at.count() / 1000),
                static_cast<long long>(at.count() % 1000));
  return buf;
}

std::string trace::text() const {
  std::string out;
  for (const auto& line : lines_) out += cat(line, '\n');
  return out;
}

network::network(std::shared_ptr<virtual_clock> clock, ensemble& srv, asio::any_io_executor server_executor,
                 std::uint64_t seed, trace& log)
    : clock_(std::move(clock)),
      server_(srv),
      server_executor_(std::move(server_executor)),
      random_(seed),
      trace_(log),
      crashed_until_(srv.members(), sim_time{-1}) {
  server_tick_ = clock_->make_wakeup(server_executor_, [this] {
    server_.tick(now());
    flush_all();
    arm_server_tick();
  });
  arm_server_tick();
}

network::~network() {
  server_tick_.reset();
  pending_.clear();
}

transport_factory network::factory(std::size_t process) {
  return [this, process](const asio::any_io_executor& executor, transport_events& events) {
    return std::unique_ptr<transport>(std::make_unique<sim_transport>(*this, process, executor, events));
  };
}

sim_time network::latency() {
  const auto span = static_cast<std::uint64_t>((rates_.max_latency - rates_.min_latency).count()) + 1;
  return rates_.min_latency + sim_time{static_cast<sim_time::rep>(random_() % span)};
}

sim_time network::latency(std::size_t process) {
  const sim_time base = latency();
  const auto it = slow_.find(process);
  return it != slow_.end() && now() < it->second.second ? base + it->second.first : base;
}

void network::slow(std::size_t process, sim_time extra, sim_time until) {
  trace_.add(now(),
             cat("process ", process, "'s path slows down by ", extra.count(), " ms until ", until.count(), " ms"));
  slow_[process] = {extra, until};
}

bool network::chance(double p) {
  if (p <= 0) return false;
  return std::uniform_real_distribution<double>(0, 1)(random_) < p;
}

void network::at(const asio::any_io_executor& executor, sim_time when, std::function<void()> fn) {
  const std::uint64_t id = next_pending_++;
  auto w = clock_->make_wakeup(executor, [this, id, fn = std::move(fn)] {
    const auto keep = std::move(pending_[id]);  // destroyed after fn: a wakeup may be destroyed by its own fire
    pending_.erase(id);
    fn();
  });
  w->expires_at(clock_->now() + (when - now()));
  pending_.emplace(id, std::move(w));
}

void network::arm_server_tick() { server_tick_->expires_at(clock_->now() + (server_.next_deadline() - now())); }

void network::connect(const std::shared_ptr<link>& l, std::size_t member) {
  close(l);
  const auto generation = l->generation;
  const sim_time arrive = now() + latency();
  if (member >= server_.members()) {  // nobody listens there
    at(l->executor, arrive, [l, generation] {
      if (l->events != nullptr && generation == l->generation) l->events->on_connected(asio::error::connection_refused);
    });
    return;
  }
  at(server_executor_, arrive, [this, l, generation, member] {
    if (cut(l->process, member)) return;  // the SYN is lost: the client's connect timeout notices
    if (now() < crashed_until_[member]) {
      at(l->executor, now() + latency(), [l, generation] {
        if (l->events != nullptr && generation == l->generation)
          l->events->on_connected(asio::error::connection_refused);
      });
      return;
    }
    auto w = std::make_shared<wire>();
    w->id = server_.open_connection(member);
    w->process = l->process;
    w->member = member;
    w->client = l;
    wires_.emplace(w->id, w);
    at(l->executor, now() + latency(), [this, l, w, generation] {
      if (l->events == nullptr || generation != l->generation || !w->server_open) {
        close(l);  // the client gave up meanwhile (or the server is gone): the connection is dropped
        if (l->events != nullptr && generation == l->generation) l->events->on_connected(asio::error::connection_reset);
        return;
      }
      l->current = w;
      l->end.clear();
      trace_.add(now(), cat("process ", l->process, " connected (connection ", w->id, ", member ", w->member, ")"));
      l->events->on_connected({});
    });
  });
}

void network::send(const std::shared_ptr<link>& l, std::string bytes) {
  const auto w = l->current;
  if (!w) return;
  w->frames.feed(bytes);
  while (auto payload = w->frames.next()) {
    std::string frame(4, '\0');
    const auto n = static_cast<std::uint32_t>(payload->size());
    for (int i = 0; i < 4; ++i) frame[static_cast<std::size_t>(i)] = static_cast<char>(n >> (8 * (3 - i)));
    frame.append(*payload);
    const bool first = !w->handshaken;
    w->handshaken = true;
    w->last_to_server = std::max(w->last_to_server, now() + latency(w->process));
    at(server_executor_, w->last_to_server,
       [this, w, frame = std::move(frame), first]() mutable { to_server(w, std::move(frame), first); });
  }
}

void network::to_server(const std::shared_ptr<wire>& w, std::string frame, bool first) {
  if (!w->server_open || w->dead) return;
  if (cut(w->process, w->member)) {
    w->held_to_server.push_back(std::move(frame));
    return;
  }
  if (!first) {
    if (chance(rates_.reset)) {
      reset_wire(w, "reset before a request");
      return;
    }
    if (chance(rates_.drop_request)) {
      trace_.add(now(), cat("connection ", w->id, ": dies silently at a request"));
      w->dead = true;
      return;
    }
    if (chance(rates_.drop_reply_then_reset)) {
      server_.receive(w->id, frame, now());
      (void)server_.take_output(w->id);
      reset_wire(w, "request applied, reply dropped, reset");
      arm_server_tick();
      return;
    }
  }
  if (trace_frames_) {
    proto::request req;
    if (!first && !proto::decode_request(std::string_view(frame).substr(4), req)) {
      std::string path;
      std::visit(
          [&](const auto& body) {
            if constexpr (requires { body.path; }) path = body.path;
          },
          req.body);
      trace_.add(now(), cat("connection ", w->id, " <- ", proto::op_code_name(req.header.type), " xid ", req.header.xid,
                            ' ', path));
    } else {
      trace_.add(now(), cat("connection ", w->id, first ? " <- ConnectRequest" : " <- undecodable frame"));
    }
  }
  server_.receive(w->id, frame, now());
  flush_all();  // watch events of other connections go out now too
  arm_server_tick();
}

void network::flush_all() {
  for (auto it = wires_.begin(); it != wires_.end();) {
    const auto w = (it++)->second;  // flush may erase it
    flush(w);
  }
}

// What the server wrote goes to the client, and a connection the server closed ends after it.
void network::flush(const std::shared_ptr<wire>& w) {
  if (!w->server_open) return;
  std::string out = server_.take_output(w->id);
  const bool closing = server_.is_closed(w->id);
  if (out.empty() && !closing) return;
  if (w->dead) out.clear();  // lost on the way
  if (trace_frames_) trace_replies(w->id, out);
  if (cut(w->process, w->member) && !closing) {
    w->held_to_client += out;
    return;
  }
  w->last_to_client = std::max(w->last_to_client, now() + latency(w->process));
  if (closing) {
    w->server_open = false;
    server_.close_connection(w->id, now());
    wires_.erase(w->id);
  }
  at(w->client.lock() ? w->client.lock()->executor : server_executor_, w->last_to_client,
     [w, out = std::move(out), closing] {
       const auto l = w->client.lock();
       if (!l || l->current != w) return;
       l->inbound += out;
       if (closing) l->end = asio::error::eof;
       l->pump(l);
     });
}

void network::trace_replies(connection_id id, std::string_view bytes) {
  proto::frame_reader frames;
  frames.feed(bytes);
  while (auto payload = frames.next()) {
    proto::reply_header h;
    if (payload->size() == proto::connect_response_size ||
        payload->size() == proto::connect_response_size_without_read_only || proto::decode_reply_header(*payload, h)) {
      trace_.add(now(), cat("connection ", id, " -> ConnectResponse or other"));
      continue;
    }
    if (h.xid == proto::special_xid::notification) {
      proto::watcher_event e;
      if (!proto::decode_notification(*payload, e)) {
        trace_.add(now(), cat("connection ", id, " -> event ", static_cast<int>(e.type), ' ', e.path));
        continue;
      }
    }
    trace_.add(now(), cat("connection ", id, " -> reply xid ", h.xid, " zxid ", h.zxid, " err ", h.err));
  }
}

void network::reset_wire(const std::shared_ptr<wire>& w, const char* why) {
  trace_.add(now(), cat("connection ", w->id, ": ", why));
  if (w->server_open) {
    w->server_open = false;
    server_.close_connection(w->id, now());
    wires_.erase(w->id);
  }
  const auto l = w->client.lock();
  if (!l) return;
  at(l->executor, now() + latency(), [w] {
    const auto c = w->client.lock();
    if (!c || c->current != w) return;
    c->inbound.clear();  // an RST discards what was not read yet
    c->end = asio::error::connection_reset;
    c->pump(c);
  });
}

void network::close(const std::shared_ptr<link>& l) {
  ++l->generation;
  l->inbound.clear();
  l->end.clear();
  l->read_pending = false;
  l->read_posted = false;
  const auto w = std::exchange(l->current, nullptr);
  if (!w) return;
  w->client.reset();
  // The FIN reaches the server after the bytes already on their way.
  at(server_executor_, std::max(w->last_to_server, now() + latency()), [this, w] {
    if (!w->server_open) return;
    w->server_open = false;
    server_.close_connection(w->id, now());
    wires_.erase(w->id);
  });
}

void network::partition(std::size_t process, bool cut) {
  trace_.add(now(), cat("process ", process, cut ? " partitioned" : " healed"));
  for (std::size_t m = 0; m < server_.members(); ++m) partition(process, m, cut);
}

void network::partition(std::size_t process, std::size_t member, bool cut) {
  if (server_.members() > 1) {
    trace_.add(now(), cat("process ", process, cut ? " partitioned from member " : " healed to member ", member));
  }
  if (cut) {
    cut_.insert({process, member});
    return;
  }
  if (cut_.erase({process, member}) == 0) return;
  // What was held goes through now, in order, on the connections that survived.
  std::vector<std::shared_ptr<wire>> healed;
  for (const auto& [id, w] : wires_) {
    if (w->process == process && w->member == member) healed.push_back(w);
  }
  for (const auto& w : healed) {
    for (auto& frame : std::exchange(w->held_to_server, {})) {
      w->last_to_server = std::max(w->last_to_server, now() + latency());
      at(server_executor_, w->last_to_server,
         [this, w, frame = std::move(frame)]() mutable { to_server(w, std::move(frame), false); });
    }
    if (const auto l = w->client.lock(); l && !w->held_to_client.empty()) {
      w->last_to_client = std::max(w->last_to_client, now() + latency());
      at(l->executor, w->last_to_client, [w, out = std::exchange(w->held_to_client, {})] {
        const auto c = w->client.lock();
        if (!c || c->current != w) return;
        c->inbound += out;
        c->pump(c);
      });
    }
  }
}

void network::reset(std::size_t process) {
  std::vector<std::shared_ptr<wire>> hit;
  for (const auto& [id, w] : wires_) {
    if (w->process == process) hit.push_back(w);
  }
  for (const auto& w : hit) reset_wire(w, "reset");
}

void network::crash_server(sim_time until) {
  trace_.add(now(), cat("server crashed until ", until.count(), " ms"));
  for (std::size_t m = 0; m < server_.members(); ++m) crash_member(m, until);
}

void network::crash_member(std::size_t member, sim_time until) {
  if (server_.members() > 1) trace_.add(now(), cat("member ", member, " crashed until ", until.count(), " ms"));
  // Without its leader no member serves clients until a new one is elected: they all close their connections.
  const bool election = member == 0 && server_.members() > 1;
  for (std::size_t m = 0; m < server_.members(); ++m) {
    if (m == member || election) crashed_until_.at(m) = std::max(crashed_until_.at(m), until);
  }
  server_.crash(member, now(), until);
  std::vector<std::shared_ptr<wire>> hit;
  for (const auto& [id, w] : wires_) {
    if (w->member == member || election) hit.push_back(w);
  }
  for (const auto& w : hit) reset_wire(w, "server crash");
  arm_server_tick();
}

void network::expire(std::int64_t session) {
  trace_.add(now(), cat("session 0x", std::hex, session, " expired by the fault schedule"));
  server_.expire_session(session, now());
  flush_all();
  arm_server_tick();
}

}  // namespace zkwire::sim
