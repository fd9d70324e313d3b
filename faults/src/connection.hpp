#pragma once
// One proxied connection: the client's socket, the upstream socket, a frame reader and an output queue per side,
// and the fault actions applied between them. Internal to zkwire_faults.
//
// Everything runs on the proxy's strand (the sockets' and timers' executor). Coroutines keep the connection alive
// through shared_from_this(); closing cancels them. Counters read by connections() from other threads are atomic.

#include <array>
#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "zkwire/faults/frame_info.hpp"
#include "zkwire/faults/proxy.hpp"
#include "zkwire/faults/rule_table.hpp"
#include "zkwire/proto/frame_reader.hpp"

namespace zkwire::faults::detail {

using tcp = asio::ip::tcp;
using steady = std::chrono::steady_clock;
using strand_type = asio::strand<asio::any_io_executor>;

// What every connection shares with its proxy.
struct proxy_shared {
  strand_type strand;
  std::shared_ptr<rule_table> rules;  // possibly shared with other proxies (thread-safe)
  std::function<void(std::string_view)> log;
  std::size_t max_frame_size = 0;
  std::uint32_t member = 0;
  tcp::resolver::results_type upstream;  // resolved once by listen()
  // Written on the strand, read by proxy::stats() from any thread.
  std::atomic<std::uint64_t> request_frames{0};
  std::atomic<std::uint64_t> request_bytes{0};
  std::atomic<std::uint64_t> reply_frames{0};
  std::atomic<std::uint64_t> reply_bytes{0};

  proxy_shared(strand_type s, std::shared_ptr<rule_table> table) : strand(std::move(s)), rules(std::move(table)) {}
  void write_log(const std::string& line) const {
    if (log) log(line);
  }
};

std::int64_t monotonic_us();

class connection : public std::enable_shared_from_this<connection> {
 public:
  connection(std::shared_ptr<proxy_shared> shared, std::uint64_t id, tcp::socket client);

  // Applies the accept rule (if any fired), connects upstream and starts forwarding. On the strand.
  void start(const std::optional<fired_rule>& on_accept);
  // Ends the connection the given way. On the strand.
  void cut(cut_kind how);

  [[nodiscard]] connection_snapshot snapshot() const;
  [[nodiscard]] bool closed() const noexcept { return closed_.load(); }

 private:
  enum side_index : std::size_t { client_side = 0, server_side = 1 };
  struct queued {
    steady::time_point release;
    std::string bytes;
  };
  struct side {
    explicit side(tcp::socket s, std::size_t max_frame)
        : socket(std::move(s)), reader(max_frame), wake(socket.get_executor()) {}
    tcp::socket socket;
    proto::frame_reader reader;
    asio::steady_timer wake;  // the writer sleeps on it; cancelled when there is something new to do
    std::deque<queued> out;   // bytes to write to this side's socket
    steady::time_point last_release{};
    std::optional<std::string> parked;  // a reordered frame waiting for the next one
    bool open = false;
  };

  asio::awaitable<void> run(std::chrono::milliseconds connect_delay);
  asio::awaitable<void> pump(side_index from);
  asio::awaitable<void> writer(side_index to);

  void handle_frame(side_index from, std::string_view payload);
  void enqueue(side_index to, std::string bytes, steady::time_point release);
  void release_parked(side_index to, steady::time_point release);
  void wake_writers();

  void close(std::string_view reason);  // plain close of both sockets
  void reset(std::string_view reason);  // RST both
  void fin(std::string_view reason);    // flush, then FIN both; keep reading until the peers close
  void blackhole(std::string_view reason);
  void log_event(std::string_view event, std::string_view detail = {}) const;

  std::shared_ptr<proxy_shared> shared_;
  const std::uint64_t id_;
  const tcp::endpoint client_endpoint_;
  frame_tracker tracker_;
  std::array<side, 2> sides_;
  steady::time_point held_until_{};  // hold: no writes before this (time_point::max(): until closed)
  bool fin_requested_ = false;
  std::atomic<bool> blackholed_{false};
  std::atomic<bool> closed_{false};
  std::atomic<bool> held_{false};
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> replies_{0};
};

}  // namespace zkwire::faults::detail
