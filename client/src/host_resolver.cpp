#include "host_resolver.hpp"

#include <asio/execution/outstanding_work.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace zkwire::detail {

struct host_resolver::lookup_state {
  std::mutex mutex;  // guards the two below
  // Tracked while the lookup is out, so that the executor's io_context keeps running for the result (as for
  // Asio's resolver); reset by cancel() on the owner's thread, or after the post.
  std::optional<asio::any_io_executor> work;
  handler done;
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
  cancel();
  auto state = std::make_shared<lookup_state>();
  state->work.emplace(asio::prefer(executor_, asio::execution::outstanding_work_t::tracked));
  state->done = std::move(done);
  current_ = state;
  try {
    std::thread([state, lookup = lookup_, host, service = std::to_string(port)] {
      std::error_code ec;
      results found = lookup(host, service, ec);
      const std::lock_guard lock(state->mutex);
      if (!state->work) return;  // cancelled
      asio::post(*state->work, [done = std::move(state->done), ec, found = std::move(found)] { done(ec, found); });
      state->work.reset();
    }).detach();
  } catch (const std::system_error&) {
    current_.reset();
    asio::post(executor_, [done = std::move(state->done)] {
      done(make_error_code(std::errc::resource_unavailable_try_again), results());
    });
  }
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
