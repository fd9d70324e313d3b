#pragma once
// The fault-injection proxy (faults/) in front of a test's server, for the recipe tests that break connections.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <system_error>

#include "zkwire/faults/proxy.hpp"

namespace zkwire::test {

// A proxy on a free loopback port to the server's `upstream_port`, listening; null after a test failure if it
// cannot listen.
inline std::unique_ptr<faults::proxy> start_proxy(asio::io_context& io, std::uint16_t upstream_port) {
  faults::proxy_options options;
  options.upstream_port = upstream_port;
  auto proxy = std::make_unique<faults::proxy>(io.get_executor(), options);
  if (const std::error_code ec = proxy->listen()) {
    ADD_FAILURE() << "the proxy cannot listen: " << ec.message();
    return nullptr;
  }
  return proxy;
}

}  // namespace zkwire::test
