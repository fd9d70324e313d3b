// The default transport: one TCP connection (TCP_NODELAY) at a time, host names looked up by host_resolver (no
// thread kept for them). Asio's handlers keep the shared state alive (socket, resolver, handler memory) so that the
// transport can be destroyed with operations outstanding; a connection generation filters the completions of
// operations started before close().

#include <asio/ip/tcp.hpp>
#include <asio/write.hpp>
#include <cstdint>
#include <memory>
#include <utility>

#include "handler_memory.hpp"
#include "host_resolver.hpp"
#include "zkwire/client/transport.hpp"

namespace zkwire {
namespace {

using tcp = asio::ip::tcp;

class tcp_transport final : public transport {
 public:
  tcp_transport(const asio::any_io_executor& executor, transport_events& events)
      : state_(std::make_shared<state>(executor, events)) {}
  tcp_transport(const tcp_transport&) = delete;
  tcp_transport& operator=(const tcp_transport&) = delete;
  tcp_transport(tcp_transport&&) = delete;
  tcp_transport& operator=(tcp_transport&&) = delete;
  ~tcp_transport() override {
    close();
    state_->events = nullptr;
  }

  void async_connect(const host_port& host) override {
    close();
    state_->resolver.async_connect(state_->socket, host,
                                   [self = state_, generation = state_->generation](const std::error_code& error) {
                                     self->connected(generation, error);
                                   });
  }

  void async_read_some(std::span<char> buffer) override {
    state_->socket.async_read_some(
        asio::buffer(buffer.data(), buffer.size()),
        detail::using_memory(state_->read_memory, [self = state_, generation = state_->generation](
                                                      const std::error_code& error, std::size_t n) {
          if (!self->stale(generation)) self->events->on_read(error, n);
        }));
  }

  void async_write(std::span<const char> bytes) override {
    asio::async_write(state_->socket, asio::buffer(bytes.data(), bytes.size()),
                      detail::using_memory(state_->write_memory, [self = state_, generation = state_->generation](
                                                                     const std::error_code& error, std::size_t /*n*/) {
                        if (!self->stale(generation)) self->events->on_written(error);
                      }));
  }

  std::size_t try_write(std::span<const char> bytes) override {
    std::error_code ec;
    // Without it the socket's synchronous write would wait until the connection takes the bytes.
    if (!state_->socket.non_blocking()) state_->socket.non_blocking(true, ec);
    if (ec) return 0;
    const std::size_t n = state_->socket.write_some(asio::buffer(bytes.data(), bytes.size()), ec);
    return ec ? 0 : n;
  }

  void close() noexcept override {
    ++state_->generation;
    state_->resolver.cancel();
    if (state_->socket.is_open()) {
      std::error_code ignored;
      state_->socket.close(ignored);
    }
  }

 private:
  struct state {
    state(const asio::any_io_executor& executor, transport_events& sink)
        : events(&sink), socket(executor), resolver(executor) {}

    [[nodiscard]] bool stale(std::uint64_t g) const noexcept { return events == nullptr || g != generation; }

    void connected(std::uint64_t g, const std::error_code& error) {
      if (stale(g)) return;
      if (!error) {
        std::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
      }
      events->on_connected(error);
    }

    // Declared first: they outlive the socket whose operations use them.
    detail::handler_memory read_memory;
    detail::handler_memory write_memory;
    transport_events* events;  // null once the transport is gone
    tcp::socket socket;
    detail::host_resolver resolver;
    std::uint64_t generation = 0;
  };

  std::shared_ptr<state> state_;
};

}  // namespace

std::unique_ptr<transport> make_tcp_transport(const asio::any_io_executor& executor, transport_events& events) {
  return std::make_unique<tcp_transport>(executor, events);
}

}  // namespace zkwire
