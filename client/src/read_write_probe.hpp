#pragma once
// The search for a read-write server while the session is connected read-only (client_options::
// read_write_probe_interval, docs/protocol.md#read-only): every round asks one other host of the list, in turn,
// with the `isro` four-letter word on a connection of its own, and reports the first that answers "rw". Rounds
// start at the initial interval and the pause doubles after each one, up to the maximum.
//
// Runs on the client's executor; not thread-safe. The probe owns its transport and wakeup: stop() or destruction
// abandons everything in flight (no event reaches it afterwards, no socket stays open).

#include <array>
#include <asio/any_io_executor.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "zkwire/client/clock.hpp"
#include "zkwire/client/connect_string.hpp"
#include "zkwire/client/transport.hpp"

namespace zkwire::detail {

// NOLINTNEXTLINE(cppcoreguidelines-virtual-class-destructor): final, owned by unique_ptr<read_write_probe> only
class read_write_probe final : private transport_events {
 public:
  struct settings {
    std::chrono::milliseconds first_interval{100};
    std::chrono::milliseconds max_interval{60000};
    std::chrono::milliseconds attempt_timeout{1000};  // per asked host: connect, ask, read the answer
  };
  // `found(index)`: host `index` of the list given to start() answered "rw"; the probe has stopped. It may
  // destroy the probe.
  using found_handler = std::function<void(std::size_t index)>;
  // `log(message)`: one line per attempt that failed or answered "ro" (debug).
  using log_handler = std::function<void(const std::string& message)>;

  read_write_probe(asio::any_io_executor executor, transport_factory factory, std::shared_ptr<zkwire::clock> clock,
                   settings s, found_handler found, log_handler log);
  read_write_probe(const read_write_probe&) = delete;
  read_write_probe& operator=(const read_write_probe&) = delete;
  read_write_probe(read_write_probe&&) = delete;
  read_write_probe& operator=(read_write_probe&&) = delete;
  ~read_write_probe();

  // Starts (or restarts) the search among `hosts` other than `current`. Nothing to do with a single host.
  void start(std::vector<host_port> hosts, std::size_t current);
  void stop() noexcept;
  [[nodiscard]] bool running() const noexcept { return running_; }

 private:
  void on_timer();
  void finish_attempt(const std::string& failure);
  void on_connected(std::error_code ec) override;
  void on_read(std::error_code ec, std::size_t n) override;
  void on_written(std::error_code ec) override;

  asio::any_io_executor executor_;
  transport_factory factory_;
  std::shared_ptr<zkwire::clock> clock_;
  settings settings_;
  found_handler found_;
  log_handler log_;
  std::unique_ptr<wakeup> timer_;
  std::unique_ptr<transport> transport_;  // made on the first attempt
  std::vector<host_port> hosts_;
  std::size_t current_ = 0;
  std::size_t next_ = 0;   // the host asked next
  std::size_t asked_ = 0;  // the host being asked
  std::chrono::milliseconds interval_{0};
  bool running_ = false;
  bool asking_ = false;  // an attempt is in flight (the timer is its deadline)
  std::string answer_;
  std::array<char, 16> buffer_{};
};

}  // namespace zkwire::detail
