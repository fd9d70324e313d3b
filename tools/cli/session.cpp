#include "session.hpp"

#include <cstdio>

#include "errors.hpp"
#include "zkwire/client/errors.hpp"

namespace zkwire::cli {

client_options make_client_options(const global_options& global) {
  client_options options;
  options.connect_string = global.servers;
  options.session_timeout = global.session_timeout;
  options.connect_timeout = global.connect_timeout.value_or(global.session_timeout);
  // --- request deadlines and read-only mode ---
  options.request_timeout = global.request_timeout.value_or(std::chrono::milliseconds(0));
  options.can_be_read_only = global.read_only;
  if (global.max_frame_size) options.max_frame_size = *global.max_frame_size;
  options.tls = global.tls;
  for (const auto& auth : global.auth) {
    const std::size_t colon = auth.find(':');
    options.auth.emplace_back(auth.substr(0, colon),
                              colon == std::string::npos ? std::string() : auth.substr(colon + 1));
  }
  if (global.sasl_user) options.sasl = sasl_credentials{*global.sasl_user, global.sasl_password};
  // -v: session events and reconnects on stderr.
  if (global.verbose) {
    options.logger = [](log_level level, std::string_view message) {
      std::fprintf(stderr, "zkwire: [%.*s] %.*s\n", static_cast<int>(log_level_name(level).size()),
                   log_level_name(level).data(), static_cast<int>(message.size()), message.data());
    };
  }
  return options;
}

session::session(const global_options& global)
    : connect_timeout_(global.connect_timeout.value_or(global.session_timeout)), servers_(global.servers) {
  auto options = make_client_options(global);
  try {
    client_ = std::make_unique<blocking_client>(std::move(options));
  } catch (const std::system_error& e) {
    throw usage_error("--servers '" + servers_ + "': " + e.what());
  }
  // With -v the client's logger already reports every session transition (with the session id, timeout and
  // server), so the state listener only feeds the command's own observer (watch).
  client_->set_state_listener([mutex = listener_mutex_, extra = extra_listener_](const state_event& event) {
    const std::lock_guard lock(*mutex);
    if (*extra) (*extra)(event);
  });
  try {
    client_->connect();
  } catch (const std::system_error& e) {
    throw operation_error(e.code(), servers_);
  }
  connected_ = true;
}

session::~session() {
  if (!client_) return;
  try {
    if (connected_) client_->close();
  } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): the session is gone either way
  }
}

void session::on_state_change(state_listener listener) {
  const std::lock_guard lock(*listener_mutex_);
  *extra_listener_ = std::move(listener);
}

bool session::reconnect() {
  try {
    client_->connect();
    return true;
  } catch (const std::system_error&) {
    return false;
  }
}

}  // namespace zkwire::cli
