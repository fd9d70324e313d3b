#pragma once
// Host names to addresses for the transports, on a thread that lives only as long as its lookup.
//
// Asio's resolver runs its lookups on a thread of the io_context's own, started at the first lookup and kept until
// the io_context is destroyed. With one io_context per client, as the C library has, that is one more thread (and
// its stack) for the whole life of every client whose servers are named by host name. A lookup here starts a thread
// that calls getaddrinfo and ends; the result reaches the owner's executor, as Asio's would.
//
// Used from the owner's executor only (like the transport it belongs to). The lookup thread touches nothing of the
// owner's but the shared state below, under its mutex, and the executor, only while the lookup is not cancelled:
// cancel() (also the destructor, and a new lookup) makes the result go nowhere, releases the handler on the
// owner's thread at once, and lets the executor's io_context stop counting the lookup as outstanding work. A
// cancelled lookup's thread finishes getaddrinfo (it cannot be interrupted) and ends; a new lookup of the same host
// meanwhile waits for that one rather than starting another thread.

#include <asio/any_io_executor.hpp>
#include <asio/ip/tcp.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "zkwire/client/connect_string.hpp"

namespace zkwire::detail {

class host_resolver {
 public:
  using results = asio::ip::tcp::resolver::results_type;
  using handler = std::function<void(const std::error_code&, const results&)>;
  // The blocking lookup, run on the lookup's thread: getaddrinfo through asio::ip::tcp::resolver by default; tests
  // give their own.
  using lookup_function = std::function<results(const std::string& host, const std::string& service, std::error_code&)>;

  explicit host_resolver(asio::any_io_executor executor, lookup_function lookup = {});
  host_resolver(const host_resolver&) = delete;
  host_resolver& operator=(const host_resolver&) = delete;
  host_resolver(host_resolver&&) = delete;
  host_resolver& operator=(host_resolver&&) = delete;
  ~host_resolver();

  // Looks `host` up for `port` and calls `done` on the executor with the addresses or the error (a thread that
  // cannot be started: std::errc::resource_unavailable_try_again), unless cancelled first. Cancels the lookup in
  // progress, if any.
  void async_resolve(const std::string& host, std::uint16_t port, handler done);
  // The lookup in progress, if any, calls nothing.
  void cancel() noexcept;

  // Connects `socket` to `host` (the transports' one way): at once for a numeric address, else to the addresses a
  // lookup finds, one after another. `done(error)` runs on the socket's executor (a failed lookup's error, or the
  // connect's), unless cancel() comes first while looking up; `done` must keep `socket` alive.
  void async_connect(asio::ip::tcp::socket::lowest_layer_type& socket, const host_port& host,
                     std::function<void(const std::error_code&)> done);

 private:
  struct lookup_state;  // shared with the lookup's thread

  asio::any_io_executor executor_;
  lookup_function lookup_;
  std::shared_ptr<lookup_state> current_;               // the lookup whose result is awaited
  std::vector<std::shared_ptr<lookup_state>> started_;  // lookups whose thread may still run, one per host
};

}  // namespace zkwire::detail
