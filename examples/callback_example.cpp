// zkwire::client with plain callbacks: connect, create an ephemeral node, read it with a watch callback, change
// it, observe the event, close. Usage: callback_example [host:port[,host:port...][/chroot]]
// (default: $ZKWIRE_SERVERS, else 127.0.0.1:2181).

#include <unistd.h>
#include <asio/io_context.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <system_error>

#include "zkwire/client/client.hpp"

namespace {

// The steps, each started from the previous one's completion handler.
class example {
 public:
  explicit example(zkwire::client& zk) : zk_(zk), path_("/zkwire-callback-example-" + std::to_string(::getpid())) {}

  void start() {
    zk_.set_state_listener([](const zkwire::state_event& e) {
      std::printf("session state: %s\n", std::string(zkwire::proto::session_state_name(e.to)).c_str());
    });
    zk_.async_connect([this](std::error_code ec) {
      if (failed("connect", ec)) return;
      create();
    });
  }

  [[nodiscard]] int status() const { return status_; }

 private:
  void create() {
    zkwire::create_options options;
    options.mode = zkwire::create_mode::ephemeral;
    zk_.async_create(path_, "hello", options, [this](std::error_code ec, const zkwire::create_result& created) {
      if (failed("create", ec)) return;
      std::printf("created %s\n", created.path.c_str());
      get();
    });
  }

  void get() {
    auto on_change = [this](const zkwire::watch_event& event) {
      std::printf("event %s on %s\n", std::string(zkwire::proto::event_type_name(event.type)).c_str(),
                  event.path.c_str());
      close();
    };
    zk_.async_get(path_, on_change, [this](std::error_code ec, const zkwire::get_result& got) {
      if (failed("get", ec)) return;
      std::printf("data '%s' (version %d)\n", got.data.c_str(), got.stat.version);
      set(got.stat.version);
    });
  }

  void set(std::int32_t version) {
    zk_.async_set(path_, "world", version, [this](std::error_code ec, const zkwire::stat& after) {
      if (failed("set", ec)) return;
      std::printf("set, now version %d\n", after.version);  // the watch event follows
    });
  }

  void close() {
    zk_.async_close([this](std::error_code ec) {
      if (failed("close", ec)) return;
      std::printf("closed\n");
    });
  }

  bool failed(const char* what, std::error_code ec) {
    if (!ec) return false;
    std::fprintf(stderr, "callback_example: %s: %s\n", what, ec.message().c_str());
    status_ = 1;
    zk_.async_close([](std::error_code) {});
    return true;
  }

  zkwire::client& zk_;
  std::string path_;
  int status_ = 0;
};

int run_example(int argc, char** argv) {
  const char* env = std::getenv("ZKWIRE_SERVERS");
  zkwire::client_options options;
  options.connect_string = argc > 1 ? argv[1] : (env != nullptr ? env : "127.0.0.1:2181");
  options.session_timeout = std::chrono::seconds(10);

  asio::io_context io;
  zkwire::client zk(io.get_executor(), options);
  example run(zk);
  run.start();
  io.run();  // returns once the session is closed and nothing is left to do
  return run.status();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_example(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "callback_example: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "callback_example: unknown exception\n");
  }
  return 2;
}
