// The TLS transport: one asio::ssl::stream over TCP (TCP_NODELAY) per connection, handshake included in the
// connect. An SSL object cannot be reused after its connection, so each connection is a fresh object kept alive
// by the handlers of its own operations (closing it while an operation is outstanding is safe); the context (CA,
// client certificate) is built once and shared. A connection generation filters stale completions, as in the
// TCP transport; reads and writes go through per-connection handler memory, so steady state allocates nothing.

#include <openssl/ssl.h>

#include <asio/ip/tcp.hpp>
#include <asio/post.hpp>
#include <asio/ssl/stream.hpp>
#include <asio/write.hpp>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "handler_memory.hpp"
#include "host_resolver.hpp"
#include "tls_context.hpp"
#include "zkwire/client/tls_options.hpp"

namespace zkwire {
namespace {

using tcp = asio::ip::tcp;

struct connection {
  connection(const asio::any_io_executor& executor, std::shared_ptr<asio::ssl::context> shared_context)
      : context(std::move(shared_context)), stream(executor, *context) {}

  [[nodiscard]] SSL* ssl() { return stream.native_handle(); }

  // Declared first: they outlive the stream whose operations use them.
  detail::handler_memory read_memory;
  detail::handler_memory write_memory;
  std::shared_ptr<asio::ssl::context> context;
  asio::ssl::stream<tcp::socket> stream;
};

class tls_transport final : public transport {
 public:
  tls_transport(const asio::any_io_executor& executor, transport_events& events,
                std::shared_ptr<asio::ssl::context> context, const tls_options& options)
      : state_(std::make_shared<state>(executor, events, std::move(context), options)) {}
  tls_transport(const tls_transport&) = delete;
  tls_transport& operator=(const tls_transport&) = delete;
  tls_transport(tls_transport&&) = delete;
  tls_transport& operator=(tls_transport&&) = delete;
  ~tls_transport() override {
    close();
    state_->events = nullptr;
  }

  void async_connect(const host_port& host) override {
    close();
    const auto generation = state_->generation;
    auto conn = std::make_shared<connection>(state_->executor, state_->context);
    state_->current = conn;
    if (!detail::set_tls_peer(conn->ssl(), host.host, state_->options)) {
      asio::post(state_->executor, [self = state_, generation] {
        self->handshaken(generation, make_error_code(tls_errc::handshake_failed));
      });
      return;
    }
    state_->resolver.async_connect(
        conn->stream.lowest_layer(), host,
        [self = state_, conn, generation](const std::error_code& error) { self->connected(generation, conn, error); });
  }

  void async_read_some(std::span<char> buffer) override {
    const auto& conn = state_->current;
    conn->stream.async_read_some(
        asio::buffer(buffer.data(), buffer.size()),
        detail::using_memory(conn->read_memory, [self = state_, conn, generation = state_->generation](
                                                    const std::error_code& error, std::size_t n) {
          if (self->stale(generation)) return;
          self->events->on_read(self->stream_error(*conn, error), n);
        }));
  }

  void async_write(std::span<const char> bytes) override {
    const auto& conn = state_->current;
    asio::async_write(conn->stream, asio::buffer(bytes.data(), bytes.size()),
                      detail::using_memory(conn->write_memory, [self = state_, conn, generation = state_->generation](
                                                                   const std::error_code& error, std::size_t /*n*/) {
                        if (self->stale(generation)) return;
                        self->events->on_written(self->stream_error(*conn, error));
                      }));
  }

  void close() noexcept override {
    ++state_->generation;
    state_->resolver.cancel();
    if (state_->current) {
      // No close_notify: the session's end is the protocol's CloseSession; the server sees the TCP close.
      std::error_code ignored;
      state_->current->stream.lowest_layer().close(ignored);
      state_->current.reset();  // outstanding operations keep their connection alive until they complete
    }
  }

 private:
  struct state : std::enable_shared_from_this<state> {
    state(const asio::any_io_executor& ex, transport_events& sink, std::shared_ptr<asio::ssl::context> ctx,
          tls_options opts)
        : events(&sink), executor(ex), context(std::move(ctx)), options(std::move(opts)), resolver(ex) {}

    [[nodiscard]] bool stale(std::uint64_t g) const noexcept { return events == nullptr || g != generation; }

    void connected(std::uint64_t g, const std::shared_ptr<connection>& conn, const std::error_code& error) {
      if (stale(g)) return;
      if (error) {
        handshaken(g, error);
        return;
      }
      std::error_code ignored;
      conn->stream.lowest_layer().set_option(tcp::no_delay(true), ignored);
      conn->stream.async_handshake(asio::ssl::stream_base::client, [self = shared_from_this(), conn,
                                                                    g](const std::error_code& handshake_error) {
        self->handshaken(g, handshake_error
                                ? detail::classify_tls_error(handshake_error, conn->ssl(), true, has_certificate(*self))
                                : handshake_error);
      });
    }

    void handshaken(std::uint64_t g, const std::error_code& error) const {
      if (!stale(g)) events->on_connected(error);
    }

    // A TLS 1.3 server checks the client certificate after the client's handshake is over: its refusal arrives
    // as an alert on the first read. A peer closing without close_notify is an ordinary end of stream here.
    [[nodiscard]] std::error_code stream_error(connection& conn, const std::error_code& error) const {
      if (!error) return error;
      if (error == asio::ssl::error::stream_truncated) return asio::error::eof;
      return detail::classify_tls_error(error, conn.ssl(), false, has_certificate(*this));
    }

    static bool has_certificate(const state& s) { return !s.options.cert_file.empty(); }

    transport_events* events;  // null once the transport is gone
    asio::any_io_executor executor;
    std::shared_ptr<asio::ssl::context> context;
    tls_options options;
    detail::host_resolver resolver;
    std::shared_ptr<connection> current;
    std::uint64_t generation = 0;
  };

  std::shared_ptr<state> state_;
};

}  // namespace

transport_factory make_tls_transport_factory(const tls_options& options) {
  std::error_code error;
  std::string detail;
  auto context = detail::make_tls_context(options, error, detail);
  if (!context) throw std::system_error(error, detail);
  return [context = std::move(context), options](const asio::any_io_executor& executor, transport_events& events) {
    return std::make_unique<tls_transport>(executor, events, context, options);
  };
}

}  // namespace zkwire
