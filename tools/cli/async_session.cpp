#include "async_session.hpp"

#include <asio/steady_timer.hpp>
#include <memory>

#include "session.hpp"

namespace zkwire::cli {

async_session::async_session(const global_options& global)
    : connect_timeout_(global.connect_timeout.value_or(global.session_timeout)), servers_(global.servers) {
  auto options = make_client_options(global);
  try {
    client_.emplace(io_.get_executor(), std::move(options));
  } catch (const std::system_error& e) {
    throw usage_error("--servers '" + servers_ + "': " + e.what());
  }
}

async_session::~async_session() {
  // Drop the client first: it fails what is pending, and those handlers must still find the loop.
  client_.reset();
}

void async_session::connect() {
  const auto [ec, unused] =
      wait<bool>([this](auto handler) { client_->async_connect([handler](std::error_code e) { handler(e, true); }); });
  if (ec) throw operation_error(ec, servers_);
}

bool async_session::try_connect() {
  const auto [ec, unused] =
      wait<bool>([this](auto handler) { client_->async_connect([handler](std::error_code e) { handler(e, true); }); });
  return !ec;
}

void async_session::close(std::chrono::milliseconds limit) {
  if (closed_) return;
  closed_ = true;
  // Shared: whichever of the two handlers runs second may run after this function returned.
  auto done = std::make_shared<bool>(false);
  asio::steady_timer timer(io_, limit);
  timer.async_wait([done](std::error_code) { *done = true; });
  client_->async_close([done](std::error_code) { *done = true; });
  run_until([&] { return *done; });
}

}  // namespace zkwire::cli
