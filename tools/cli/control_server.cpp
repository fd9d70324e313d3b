#include "control_server.hpp"

#include <httplib.h>

#include <chrono>
#include <exception>
#include <string>
#include <thread>

namespace zkwire::cli {

namespace {

constexpr std::size_t worker_threads = 2;                       // test suites send one request at a time
constexpr std::size_t max_body_bytes = std::size_t{64} * 1024;  // a rule is one line
constexpr auto startup_timeout = std::chrono::seconds(10);

std::string status_text(int status) {
  switch (status) {
    case 400:
      return "malformed HTTP request";
    case 413:
      return "request body over " + std::to_string(max_body_bytes) + " bytes";
    case 414:
      return "request URI too long";
    default:
      return "HTTP status " + std::to_string(status);
  }
}

}  // namespace

struct control_server::impl {
  explicit impl(const proxy_controller& c) : controller(c) {
    // httplib's interface: the server takes ownership of the queue it gets from this factory.
    server.new_task_queue = [] {
      return new httplib::ThreadPool(worker_threads);  // NOLINT(cppcoreguidelines-owning-memory): see above
    };
    server.set_payload_max_length(max_body_bytes);
    // One request per connection: HTTP clients that pool connections (Go, Java, requests.Session) would otherwise
    // each hold one of the two workers for the keep-alive timeout.
    server.set_keep_alive_max_count(1);
    const auto serve = [this](const httplib::Request& request, httplib::Response& response) {
      const control_response answer = controller.handle(request.method, request.path, request.body);
      response.status = answer.status;
      if (!answer.allow.empty()) response.set_header("Allow", answer.allow);
      if (!answer.body.empty()) response.set_content(answer.body, "application/json");
    };
    // Every path goes to the controller, which knows the resources and answers 404/405 itself.
    server.Get(".*", serve);
    server.Post(".*", serve);
    server.Delete(".*", serve);
    server.Put(".*", serve);
    server.Patch(".*", serve);
    // What the library answers on its own (a malformed request, a body over the limit) gets a JSON body too.
    server.set_error_handler(
        httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& response) {
          if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
          response.set_content(error_body(status_text(response.status)), "application/json");
          return httplib::Server::HandlerResponse::Handled;
        }));
    server.set_exception_handler([](const httplib::Request&, httplib::Response& response, std::exception_ptr e) {
      std::string what = "internal error";
      try {
        std::rethrow_exception(std::move(e));
      } catch (const std::exception& ex) {
        what += std::string(": ") + ex.what();
      } catch (...) {  // NOLINT(bugprone-empty-catch): the generic message is the answer
      }
      response.status = 500;
      response.set_content(error_body(what), "application/json");
    });
  }

  const proxy_controller& controller;
  httplib::Server server;
  std::thread thread;
  int port = 0;
};

control_server::control_server(const proxy_controller& controller) : impl_(std::make_unique<impl>(controller)) {}

control_server::~control_server() { stop(); }

bool control_server::bind(const std::string& host, std::uint16_t port) {
  if (port == 0) {
    impl_->port = impl_->server.bind_to_any_port(host);
    return impl_->port > 0;
  }
  if (!impl_->server.bind_to_port(host, port)) return false;
  impl_->port = port;
  return true;
}

std::uint16_t control_server::port() const noexcept { return static_cast<std::uint16_t>(impl_->port); }

void control_server::start() {
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  // stop() before the loop has marked itself running would not stop it: wait until it has.
  const auto deadline = std::chrono::steady_clock::now() + startup_timeout;
  while (!impl_->server.is_running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void control_server::stop() {
  if (!impl_->thread.joinable()) return;
  impl_->server.stop();
  impl_->thread.join();
}

}  // namespace zkwire::cli
