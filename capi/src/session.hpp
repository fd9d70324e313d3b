#pragma once
// What the zookeeper_init* entry points share: one function that starts a handle's session (session.cpp).

#include <optional>
#include <string>

#include "zkwire/client/options.hpp"
#include "zkwire/client/tls_options.hpp"
#include "zookeeper.h"

namespace zkwire::capi {

// What distinguishes the entry points' sessions.
struct session_setup {
  std::optional<zkwire::tls_options> tls;        // zookeeper_init_ssl
  std::optional<zkwire::sasl_credentials> sasl;  // zookeeper_init_sasl
  // Non-empty: why the SASL login cannot start (zookeeper_init_sasl); the handle then starts in
  // ZOO_AUTH_FAILED_STATE without connecting, as one whose login the server refused.
  std::string refused;
};

// A new handle whose session starts at once (NULL with errno EINVAL for a bad host list or option).
zhandle_t* init_handle(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid, void* context,
                       int flags, log_callback_fn log_callback, session_setup setup);

}  // namespace zkwire::capi
