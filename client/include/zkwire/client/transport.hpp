#pragma once
// The byte stream a zkwire::client runs its session over: TCP by default (make_tcp_transport), another class for
// TLS, or an in-memory connection for a deterministic simulation. Chosen by client_options::transport.
//
// The client owns one transport for its lifetime and uses one connection at a time:
//
//   async_connect(host)          -> events.on_connected(ec)      (closes any current connection first)
//   async_read_some(buffer)      -> events.on_read(ec, n)        (at most one read outstanding)
//   async_write(bytes)           -> events.on_written(ec)        (all of `bytes`; at most one write outstanding)
//   try_write(bytes)             no event; returns how much it wrote at once (optional: the default writes nothing)
//   close()                      no event; operations started before it never report
//
// Completion is reported through the transport_events interface the client implements, so that a transport can
// complete an operation without allocating per operation (make_tcp_transport allocates nothing in steady state).
//
// Execution and thread safety: every member function is called on the client's executor, and every event must
// be delivered on that executor, never from inside the initiating call (the client is not reentrant there).
// A transport is not thread-safe.
//
// Lifetimes: the events object outlives the transport. After close() or the transport's destruction no event
// of an operation started before it may be delivered (stale completions are the transport's to filter; the
// client does not check). `buffer` of async_read_some and `bytes` of async_write stay valid and untouched by the
// client until the matching event or close(). A transport may be destroyed with operations outstanding.
//
// Errors: on_connected reports why no connection could be established (resolution or connect failure); on_read
// reports asio::error::eof (or another error) when the peer closed or the connection broke; on_read with n == 0
// and no error is allowed and means nothing arrived. Errors are std::error_code, any category.

#include <asio/any_io_executor.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <system_error>

#include "zkwire/client/connect_string.hpp"

namespace zkwire {

// Implemented by the client: where a transport reports completions.
class transport_events {
 public:
  transport_events() = default;
  transport_events(const transport_events&) = delete;
  transport_events& operator=(const transport_events&) = delete;
  transport_events(transport_events&&) = delete;
  transport_events& operator=(transport_events&&) = delete;

  virtual void on_connected(std::error_code ec) = 0;
  virtual void on_read(std::error_code ec, std::size_t n) = 0;
  virtual void on_written(std::error_code ec) = 0;

 protected:
  ~transport_events() = default;
};

class transport {
 public:
  transport() = default;
  transport(const transport&) = delete;
  transport& operator=(const transport&) = delete;
  transport(transport&&) = delete;
  transport& operator=(transport&&) = delete;
  virtual ~transport() = default;

  // Opens a connection to `host`, first closing any current one. Reports with on_connected.
  virtual void async_connect(const host_port& host) = 0;
  // Reads at least one byte (or an error) into `buffer`. Reports with on_read. Only while connected.
  virtual void async_read_some(std::span<char> buffer) = 0;
  // Writes all of `bytes`. Reports with on_written. Only while connected.
  virtual void async_write(std::span<const char> bytes) = 0;
  // Writes what the connection takes of `bytes` now, without waiting, and returns how many bytes that was: 0 when
  // it would have to wait or the write failed (the client then calls async_write for the rest, which reports the
  // error). Only while connected and with no async_write outstanding. Saves the completion of a write the socket
  // takes at once, the usual case for requests; the default writes nothing.
  virtual std::size_t try_write(std::span<const char> bytes) {
    static_cast<void>(bytes);
    return 0;
  }
  // Closes the connection, if any, and abandons its outstanding operations (they never report).
  virtual void close() noexcept = 0;
};

// Makes the transport of one client: called from the client's constructor (on any thread) for the session, and
// once more, on the client's executor, for the read-write probe of a read-only session (client_options::
// read_write_probe_interval). Each call returns an independent transport.
using transport_factory =
    std::function<std::unique_ptr<transport>(const asio::any_io_executor& executor, transport_events& events)>;

// TCP with TCP_NODELAY. A host name is looked up with getaddrinfo on a thread that ends with the lookup (Asio's
// resolver would keep one per io_context for good); numeric addresses are connected to directly. Reads, writes
// and their completions allocate nothing in steady state.
std::unique_ptr<transport> make_tcp_transport(const asio::any_io_executor& executor, transport_events& events);

}  // namespace zkwire
