#include "host_resolver.hpp"

#include <asio/connect.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/address.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

namespace zkwire::detail {

struct host_resolver::lookup_state {
  lookup_state(std::string h, std::string s) : host(std::move(h)), service(std::move(s)) {}

  const std::string host;
  const std::string service;
  std::mutex mutex;  // guards the three below
  // Tracked while someone waits for the result, so that the executor's io_context keeps running for it (as for
  // Asio's resolver); reset by cancel() on the owner's thread, or after the post.
  std::optional<asio::any_io_executor> work;
  handler done;
  bool running = true;  // the thread has not finished getaddrinfo
};

namespace {

host_resolver::results asio_lookup(const std::string& host, const std::string& service, std::error_code& ec) {
  // A synchronous resolve calls getaddrinfo on this thread: the io_context here starts no thread of its own.
  asio::io_context context(1);
  asio::ip::tcp::resolver resolver(context);
  return resolver.resolve(host, service, ec);
}

}  // namespace

host_resolver::host_resolver(asio::any_io_executor executor, lookup_function lookup)
    : executor_(std::move(executor)), lookup_(lookup ? std::move(lookup) : lookup_function(asio_lookup)) {}

host_resolver::~host_resolver() { cancel(); }

void host_resolver::async_resolve(const std::string& host, std::uint16_t port, handler done) {
  // The new lookup's work first: between the two, the io_context must not see its work run out (and stop).
  asio::any_io_executor work = asio::prefer(executor_, asio::execution::outstanding_work_t::tracked);
  cancel();
  std::string service = std::to_string(port);
  // A lookup of the same host that was cancelled but is still in getaddrinfo (a DNS server that does not answer,
  // while the client moves on and comes back) takes this request instead of a new thread: at most one thread per
  // host name, however often the client retries.
  std::erase_if(started_, [](const std::shared_ptr<lookup_state>& l) {
    const std::lock_guard lock(l->mutex);
    return !l->running;
  });
  for (const auto& l : started_) {
    if (l->host != host || l->service != service) continue;
    const std::lock_guard lock(l->mutex);
    if (!l->running) break;
    l->work.emplace(std::move(work));
    l->done = std::move(done);
    current_ = l;
    return;
  }
  auto state = std::make_shared<lookup_state>(host, std::move(service));
  state->work.emplace(std::move(work));
  state->done = std::move(done);
  current_ = state;
  try {
    std::thread([state, lookup = lookup_] {
      std::error_code ec;
      results found = lookup(state->host, state->service, ec);
      const std::lock_guard lock(state->mutex);
      state->running = false;
      if (!state->work) return;  // cancelled
      asio::post(*state->work, [done = std::move(state->done), ec, found = std::move(found)] { done(ec, found); });
      state->work.reset();
    }).detach();
    started_.push_back(state);
  } catch (const std::system_error&) {
    current_.reset();
    asio::post(executor_, [done = std::move(state->done)] {
      done(make_error_code(std::errc::resource_unavailable_try_again), results());
    });
  }
}

void host_resolver::async_connect(asio::ip::tcp::socket::lowest_layer_type& socket, const host_port& host,
                                  std::function<void(const std::error_code&)> done) {
  std::error_code ec;
  const auto address = asio::ip::make_address(host.host, ec);
  if (!ec) {
    socket.async_connect(asio::ip::tcp::endpoint(address, host.port),
                         [done = std::move(done)](const std::error_code& error) { done(error); });
    return;
  }
  // `socket` outlives the lookup: `done` keeps it alive, and a cancelled lookup calls nothing.
  async_resolve(host.host, host.port,
                [&socket, done = std::move(done)](const std::error_code& error, const results& found) {
                  if (error) {
                    done(error);
                    return;
                  }
                  asio::async_connect(socket, found,
                                      [done](const std::error_code& connect_error,
                                             const asio::ip::tcp::endpoint& /*ep*/) { done(connect_error); });
                });
}

void host_resolver::cancel() noexcept {
  if (!current_) return;
  handler released;
  {
    const std::lock_guard lock(current_->mutex);
    current_->work.reset();
    released = std::move(current_->done);
  }
  current_.reset();
  // `released` (what the handler holds) goes here, on the owner's thread, outside the lock.
}

}  // namespace zkwire::detail
