// The driver's connection to one server: opening it, reading and writing its bytes for the engine, and what its
// errors mean (a host that cannot be resolved, a server that closes before the handshake: maxClientCnxns).

#include <asio/error.hpp>
#include <span>
#include <string>
#include <string_view>

#include "client_impl.hpp"
#include "zkwire/client/errors.hpp"
#include "zkwire/client/tls_options.hpp"

namespace zkwire::detail {
namespace {

// The most bytes asked of the engine per read: large enough for a burst of replies, small next to max_frame_size.
// A client starts at 1 KiB (client_impl.hpp), so an idle session holds and zero-fills that, not a burst's worth.
constexpr std::size_t max_read_chunk = std::size_t{64} * 1024;

}  // namespace

void client_impl::close_connection() noexcept {
  transport_->close();
  link_ = link::closed;
  writing_ = false;
}

void client_impl::open_connection(std::size_t index) {
  close_connection();
  if (index >= servers_.hosts.size()) {
    engine_.connect_failed(now(), proto::client_error::invalid_argument);
    schedule_pump();
    return;
  }
  // The streak of attempts closed before the handshake ends with any other kind of attempt.
  if (!attempt_closed_early_) closed_before_handshake_ = 0;
  attempt_closed_early_ = false;
  attempt_received_ = false;
  const host_port& host = servers_.hosts[index];
  log(log_level::debug, [&] { return "connecting to " + to_string(host); });
  link_ = link::connecting;
  transport_->async_connect(host);
}

void client_impl::on_connected(std::error_code ec) {
  if (life_ == lifecycle::shut_down || link_ != link::connecting) return;
  const auto self = shared_from_this();
  if (ec.category() == tls_category()) last_tls_error_ = ec;
  if (ec == asio::error::host_not_found || ec == asio::error::host_not_found_try_again || ec == asio::error::no_data ||
      ec.category() == asio::error::get_addrinfo_category()) {
    last_tls_error_ = client_errc::host_not_found;
  }
  if (ec) {
    log(log_level::warning, [&] { return "connect failed: " + ec.message(); });
    close_connection();
    engine_.connect_failed(now(), ec);
    pump();
    return;
  }
  link_ = link::open;
  engine_.connected(now());
  start_read();
  pump();
}

void client_impl::start_read() {
  const std::span<char> space = engine_.prepare_read(read_chunk_);
  read_space_ = space.size();
  transport_->async_read_some(space);
}

void client_impl::on_read(std::error_code ec, std::size_t n) {
  if (life_ == lifecycle::shut_down || link_ != link::open) return;
  const auto self = shared_from_this();
  if (ec) {
    connection_error(ec);
    return;
  }
  if (n > 0) attempt_received_ = true;
  if (n >= read_space_ && read_chunk_ < max_read_chunk) read_chunk_ *= 2;  // more was waiting: read more at once
  engine_.commit_read(now(), n);
  pump();
  // Still open means still the same connection: a new one cannot have been established from inside pump().
  if (life_ != lifecycle::shut_down && link_ == link::open) start_read();
}

void client_impl::start_write(std::string_view bytes) {
  // Most writes are small and the socket takes them at once: then there is no completion to wait for.
  const std::size_t n = transport_->try_write(std::span<const char>(bytes.data(), bytes.size()));
  if (n == bytes.size()) {
    engine_.written(now());
    return;
  }
  writing_ = true;
  transport_->async_write(std::span<const char>(bytes.data() + n, bytes.size() - n));
}

void client_impl::on_written(std::error_code ec) {
  if (life_ == lifecycle::shut_down || link_ != link::open) return;
  const auto self = shared_from_this();
  writing_ = false;
  if (ec) {
    connection_error(ec);
    return;
  }
  engine_.written(now());
  pump();
}

void client_impl::connection_error(const std::error_code& error) {
  if (error.category() == tls_category()) last_tls_error_ = error;
  log(log_level::warning, [&] {
    return error == asio::error::eof ? std::string("the server closed the connection")
                                     : "connection error: " + error.message();
  });
  // The server accepted the connection and closed it before sending anything: a server at maxClientCnxns closes
  // each connection over the limit right after accepting it (docs/protocol.md#closed-before-handshake).
  const auto state = engine_.state();
  const bool handshake_done = state == session_state::connected || state == session_state::connected_read_only;
  if (!handshake_done && !attempt_received_ &&
      (error == asio::error::eof || error == asio::error::connection_reset || error == asio::error::broken_pipe)) {
    attempt_closed_early_ = true;
    ++closed_before_handshake_;
  }
  close_connection();
  engine_.disconnected(now(), error);
  // A client that never had a session gives up waiting after a few whole rounds of such closes rather than at its
  // connect timeout: nothing is coming back. It keeps trying in the background, as after a connect timeout.
  const std::size_t give_up_after = servers_.hosts.size() * static_cast<std::size_t>(closed_before_handshake_rounds);
  if (attempt_closed_early_ && closed_before_handshake_ >= give_up_after &&
      engine_.state() == session_state::connecting) {
    // Logged when the streak reaches the bound and whenever it ends a wait, not at every attempt after it.
    const std::size_t ended = waiters_.fail_connects(client_errc::closed_before_handshake);
    if (ended > 0 || closed_before_handshake_ == give_up_after) {
      log(log_level::error, [&] {
        return "no session: " + std::to_string(closed_before_handshake_) +
               " connections in a row were closed by the server before it answered the handshake; " +
               make_error_code(client_errc::closed_before_handshake).message();
      });
    }
  }
  pump();
}

}  // namespace zkwire::detail
