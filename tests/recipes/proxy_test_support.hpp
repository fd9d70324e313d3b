#pragma once
// The fault-injection proxy (faults/) in front of a test's server, for the recipe tests that break connections.

#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"
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

// A proxy in front of the suite's standalone server, an admin client straight to the server, and the directory
// root()/<name> (created, empty) for the test's recipe objects.
class proxied_directory_test : public standalone_test {
 protected:
  explicit proxied_directory_test(std::string name) : name_(std::move(name)) {}

  void SetUp() override {
    standalone_test::SetUp();
    proxy_ = start_proxy(io_, cluster().client_port(0));
    ASSERT_TRUE(proxy_);
    admin_ = new_client(io_, connect_string());
    dir_ = root() + "/" + name_;
    run_co(io_, [&]() -> asio::awaitable<void> {
      co_await admin_->async_create(root(), "", asio::use_awaitable);
      co_await admin_->async_create(dir_, "", asio::use_awaitable);
    }());
  }
  void TearDown() override {
    admin_.reset();
    proxy_.reset();
  }

  asio::io_context io_;
  std::unique_ptr<faults::proxy> proxy_;
  std::unique_ptr<client> admin_;
  std::string dir_;

 private:
  std::string name_;
};

}  // namespace zkwire::test
