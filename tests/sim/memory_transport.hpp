#pragma once
// In-memory connections for driving zkwire::client in unit tests: a memory_network maps host:port to
// memory_servers that the test plays (read what the client wrote, send bytes back, accept or refuse connections,
// break them), with no latency. Every completion is posted to the client's executor, like a socket's.
// Single-threaded. The simulation's own network (network.hpp) adds virtual latency, faults and the server model.
//
//   memory_network net;
//   memory_server& server = net.add("10.0.0.1:2181");
//   options.transport = net.factory();
//   server.on_receive = [&](memory_server& s) { s.send(reply_to(s.take_received())); };

#include <algorithm>
#include <asio/error.hpp>
#include <asio/post.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "zkwire/client/transport.hpp"

namespace zkwire::test {

class memory_server;

namespace sim_detail {
// One client end of a connection; shared with the handlers posted for it.
struct link {
  asio::any_io_executor executor;
  transport_events* events = nullptr;  // null once the transport is gone
  memory_server* server = nullptr;     // null when not connected
  std::uint64_t generation = 0;
  std::string inbound;       // sent by the server, not yet read
  bool peer_closed = false;  // the server dropped the connection: reads end with eof
  std::span<char> read_buffer;
  bool read_pending = false;
  bool read_posted = false;

  void pump_read(const std::shared_ptr<link>& self);
};
}  // namespace sim_detail

class memory_server {
 public:
  memory_server() = default;
  memory_server(const memory_server&) = delete;
  memory_server& operator=(const memory_server&) = delete;
  memory_server(memory_server&&) = delete;
  memory_server& operator=(memory_server&&) = delete;
  ~memory_server() { drop(); }

  bool accepting = true;        // false: connects are refused
  std::size_t connections = 0;  // accepted so far
  // Called after bytes arrived from the client (in `received`); a scripted server answers from here.
  std::function<void(memory_server&)> on_receive;

  [[nodiscard]] bool connected() const noexcept { return peer_ != nullptr; }
  // The size of the client's outstanding read (0 when none is outstanding).
  [[nodiscard]] std::size_t read_space() const noexcept {
    return peer_ && peer_->read_pending ? peer_->read_buffer.size() : 0;
  }
  std::string take_received() { return std::exchange(received_, {}); }

  // Bytes to the client; ignored when no client is connected.
  void send(std::string_view bytes) {
    if (!peer_) return;
    peer_->inbound.append(bytes);
    peer_->pump_read(peer_);
  }
  // Breaks the connection: the client's read ends with eof.
  void drop() {
    if (!peer_) return;
    auto p = std::exchange(peer_, nullptr);
    p->server = nullptr;
    p->peer_closed = true;
    p->pump_read(p);
  }

 private:
  friend class memory_transport;
  void attach(const std::shared_ptr<sim_detail::link>& peer) {
    drop();
    peer_ = peer;
    received_.clear();
    ++connections;
  }
  void detach(const sim_detail::link* peer) {
    if (peer_.get() == peer) peer_.reset();
  }
  void receive(std::string_view bytes) {
    received_.append(bytes);
    if (on_receive) on_receive(*this);
  }

  std::shared_ptr<sim_detail::link> peer_;
  std::string received_;
};

inline void sim_detail::link::pump_read(const std::shared_ptr<link>& self) {
  if (!read_pending || read_posted || (inbound.empty() && !peer_closed)) return;
  read_posted = true;
  asio::post(executor, [self, generation = generation] {
    if (self->events == nullptr || generation != self->generation) return;
    self->read_posted = false;
    self->read_pending = false;
    if (self->inbound.empty()) {
      self->events->on_read(asio::error::eof, 0);
      return;
    }
    const std::size_t n = std::min(self->read_buffer.size(), self->inbound.size());
    std::copy_n(self->inbound.data(), n, self->read_buffer.data());
    self->inbound.erase(0, n);
    self->events->on_read({}, n);
  });
}

class memory_network;

class memory_transport final : public transport {
 public:
  memory_transport(memory_network& net, const asio::any_io_executor& executor, transport_events& events)
      : net_(&net), link_(std::make_shared<sim_detail::link>()) {
    link_->executor = executor;
    link_->events = &events;
  }
  memory_transport(const memory_transport&) = delete;
  memory_transport& operator=(const memory_transport&) = delete;
  memory_transport(memory_transport&&) = delete;
  memory_transport& operator=(memory_transport&&) = delete;
  ~memory_transport() override {
    close();
    link_->events = nullptr;
  }

  void async_connect(const host_port& host) override;

  void async_read_some(std::span<char> buffer) override {
    link_->read_buffer = buffer;
    link_->read_pending = true;
    link_->pump_read(link_);
  }

  void async_write(std::span<const char> bytes) override {
    const std::string copy(bytes.data(), bytes.size());
    asio::post(link_->executor, [l = link_, generation = link_->generation, copy] {
      if (l->events == nullptr || generation != l->generation) return;
      if (l->server == nullptr) {
        l->events->on_written(asio::error::broken_pipe);
        return;
      }
      l->server->receive(copy);
      if (l->events != nullptr && generation == l->generation) l->events->on_written({});
    });
  }

  void close() noexcept override {
    ++link_->generation;
    if (link_->server != nullptr) link_->server->detach(link_.get());
    link_->server = nullptr;
    link_->inbound.clear();
    link_->peer_closed = false;
    link_->read_pending = false;
    link_->read_posted = false;
  }

 private:
  memory_network* net_;
  std::shared_ptr<sim_detail::link> link_;
};

class memory_network {
 public:
  // A server reachable at `address` ("host:port"); stable address for the network's lifetime.
  memory_server& add(const std::string& address) {
    auto& slot = servers_[address];
    if (!slot) slot = std::make_unique<memory_server>();
    return *slot;
  }
  [[nodiscard]] memory_server* find(const host_port& host) {
    auto it = servers_.find(to_string(host));
    return it == servers_.end() ? nullptr : it->second.get();
  }
  transport_factory factory() {
    return [this](const asio::any_io_executor& executor, transport_events& events) -> std::unique_ptr<transport> {
      return std::make_unique<memory_transport>(*this, executor, events);
    };
  }

 private:
  std::map<std::string, std::unique_ptr<memory_server>> servers_;
};

inline void memory_transport::async_connect(const host_port& host) {
  close();
  memory_server* server = net_->find(host);
  asio::post(link_->executor, [l = link_, generation = link_->generation, server] {
    if (l->events == nullptr || generation != l->generation) return;
    if (server == nullptr || !server->accepting) {
      l->events->on_connected(asio::error::connection_refused);
      return;
    }
    server->attach(l);
    l->server = server;
    l->events->on_connected({});
  });
}

}  // namespace zkwire::test
