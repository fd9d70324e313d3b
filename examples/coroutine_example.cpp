// zkwire::client with C++20 coroutines: connect, create an ephemeral node, read it with a watch, change it, observe
// the event, close. Usage: coroutine_example [host:port[,host:port...][/chroot]]
// (default: $ZKWIRE_SERVERS, else 127.0.0.1:2181).

#include <unistd.h>
// Asio 1.22 looks for <experimental/coroutine> under clang, which libstdc++ does not have; clang 14 implements
// C++20 coroutines and libstdc++'s <coroutine> works with it (this matters for clang-tidy and clang builds).
#if defined(__clang__) && defined(__cpp_impl_coroutine) && __has_include(<coroutine>)
#define ASIO_HAS_CO_AWAIT 1       // NOLINT(cppcoreguidelines-macro-usage): Asio's configuration macro
#define ASIO_HAS_STD_COROUTINE 1  // NOLINT(cppcoreguidelines-macro-usage)
#endif

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <system_error>

#include "zkwire/client/client.hpp"

namespace {

asio::awaitable<void> run(zkwire::client& zk) {
  using asio::use_awaitable;
  co_await zk.async_connect(use_awaitable);
  std::printf("connected, session 0x%llx\n", static_cast<unsigned long long>(zk.session_id()));

  const std::string path = "/zkwire-coroutine-example-" + std::to_string(::getpid());
  zkwire::create_options options;
  options.mode = zkwire::create_mode::ephemeral;
  const zkwire::create_result created = co_await zk.async_create(path, "hello", options, use_awaitable);
  std::printf("created %s\n", created.path.c_str());

  // Read the node and arm a one-shot watch on it.
  auto [got, change] = co_await zk.async_get_watch(created.path, use_awaitable);
  std::printf("data '%s' (version %d)\n", got.data.c_str(), got.stat.version);

  const zkwire::stat after = co_await zk.async_set(created.path, "world", got.stat.version, use_awaitable);
  std::printf("set, now version %d\n", after.version);

  const zkwire::watch_event event = co_await change.async_wait(use_awaitable);
  std::printf("event %s on %s\n", std::string(zkwire::proto::event_type_name(event.type)).c_str(), event.path.c_str());

  co_await zk.async_close(use_awaitable);  // the server deletes the ephemeral node
  std::printf("closed\n");
}

int run_example(int argc, char** argv) {
  const char* env = std::getenv("ZKWIRE_SERVERS");
  zkwire::client_options options;
  options.connect_string = argc > 1 ? argv[1] : (env != nullptr ? env : "127.0.0.1:2181");
  options.session_timeout = std::chrono::seconds(10);

  asio::io_context io;
  int status = 0;
  zkwire::client zk(io.get_executor(), options);
  asio::co_spawn(io, run(zk), [&status](const std::exception_ptr& error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "coroutine_example: %s\n", e.what());
      status = 1;
    }
  });
  io.run();  // returns once the session is closed and nothing is left to do
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_example(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "coroutine_example: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "coroutine_example: unknown exception\n");
  }
  return 2;
}
