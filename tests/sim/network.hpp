#pragma once
// The simulated network between zkwire clients (their transport seam) and the simulated server: each connection
// ("wire") carries bytes in order with a seeded virtual latency, and faults act on it at frame granularity — a
// request frame can vanish, be applied with its reply lost and the connection reset (create-then-crash), or meet
// a reset; a process can be partitioned from the server; the server can crash (every connection reset, connects
// refused) for a while, or a connection can die silently. Every fault is decided by the network's seeded generator
// and written to the trace.
//
// Processes: every client belongs to a simulated process (an index); each process and the server run on their own
// executor, so the driver can pause one (world.hpp). Deliveries are virtual_clock wakeups on the receiving side's
// executor, so they interleave with the clients' own timers in virtual-time order.
//
// Single-threaded, like the rest of the simulation.

#include <asio/any_io_executor.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ensemble.hpp"
#include "text.hpp"
#include "virtual_clock.hpp"
#include "zkwire/client/transport.hpp"

namespace zkwire::sim {

struct fault_rates {
  // Per request frame after the handshake, as probabilities in [0, 1].
  // The connection dies silently at this frame (a cut path, a middlebox losing its state): the frame and
  // everything after it vanish both ways; the client's read timeout notices. (A lone request lost on a connection
  // that still answers pings cannot happen with ZooKeeper over TCP, and no client could notice it without a
  // per-request deadline.)
  double drop_request = 0;
  double drop_reply_then_reset = 0;  // applied by the server, its reply lost, the connection reset
  double reset = 0;                  // the connection is reset before the frame arrives
  sim_time min_latency{1};
  sim_time max_latency{4};
};

// Lines of what happened, with virtual times: faults, connections, state changes the workload reports.
class trace {
 public:
  void add(sim_time at, const std::string& what) { lines_.push_back(cat(format(at), ' ', what)); }
  [[nodiscard]] const std::vector<std::string>& lines() const noexcept { return lines_; }
  [[nodiscard]] std::string text() const;
  void clear() { lines_.clear(); }

 private:
  static std::string format(sim_time at);
  std::vector<std::string> lines_;
};

class network {
 public:
  // Members are reached by port: base_port is member 0, base_port + 1 member 1, and so on.
  network(std::shared_ptr<virtual_clock> clock, ensemble& srv, asio::any_io_executor server_executor,
          std::uint64_t seed, trace& log);
  network(const network&) = delete;
  network& operator=(const network&) = delete;
  network(network&&) = delete;
  network& operator=(network&&) = delete;
  ~network();

  // The transport factory for the clients of one process.
  transport_factory factory(std::size_t process);
  static constexpr std::uint16_t base_port = 2181;

  void set_faults(const fault_rates& rates) { rates_ = rates; }
  [[nodiscard]] const fault_rates& faults() const noexcept { return rates_; }
  // Cut (or heal) the process's path to the server: nothing gets through either way and connects go unanswered;
  // bytes on connections that survive the cut are delivered, in order, when it heals (as TCP retransmits them).
  void partition(std::size_t process, bool cut);
  // Cut (or heal) the process's path to one member only.
  void partition(std::size_t process, std::size_t member, bool cut);
  // Resets every connection of the process.
  void reset(std::size_t process);
  // The server crashes: every connection is reset and connects are refused until `until` (sessions survive, as
  // they do across a ZooKeeper restart within their timeout).
  void crash_server(sim_time until);
  // One ensemble member crashes until `until` (its connections reset, connects refused, it applies nothing).
  void crash_member(std::size_t member, sim_time until);
  // The process's path is slow until `until`: every frame of its connections takes `extra` longer, both ways (a
  // congested link, a stalled NIC queue); order is kept.
  void slow(std::size_t process, sim_time extra, sim_time until);
  // Expires a session at the server now.
  void expire(std::int64_t session);

  // Writes every frame to the trace: requests (opcode, xid, path) and what the server answered.
  void trace_frames(bool on) { trace_frames_ = on; }

  [[nodiscard]] sim_time now() const { return clock_->elapsed(); }
  [[nodiscard]] std::size_t open_wires() const noexcept { return wires_.size(); }

  struct wire;
  struct link;

 private:
  friend class sim_transport;
  sim_time latency();
  sim_time latency(std::size_t process);  // latency() plus the process's slow-path delay, if any
  bool chance(double p);
  // Runs `fn` on `executor` at virtual time `at` (a wakeup the network keeps until it fires).
  void at(const asio::any_io_executor& executor, sim_time when, std::function<void()> fn);
  void connect(const std::shared_ptr<link>& l, std::size_t member);
  [[nodiscard]] bool cut(std::size_t process, std::size_t member) const { return cut_.contains({process, member}); }
  void send(const std::shared_ptr<link>& l, std::string bytes);
  void close(const std::shared_ptr<link>& l);
  void to_server(const std::shared_ptr<wire>& w, std::string frame, bool first);
  void flush(const std::shared_ptr<wire>& w);
  void flush_all();
  void reset_wire(const std::shared_ptr<wire>& w, const char* why);
  void trace_replies(connection_id id, std::string_view bytes);
  void arm_server_tick();

  std::shared_ptr<virtual_clock> clock_;
  ensemble& server_;
  asio::any_io_executor server_executor_;
  std::mt19937_64 random_;
  trace& trace_;
  fault_rates rates_;
  std::set<std::pair<std::size_t, std::size_t>> cut_;          // (process, member)
  std::vector<sim_time> crashed_until_;                        // per member
  std::map<std::size_t, std::pair<sim_time, sim_time>> slow_;  // process -> (extra, until)
  std::map<std::uint64_t, std::shared_ptr<wire>> wires_;       // by server connection id
  std::map<std::uint64_t, std::unique_ptr<wakeup>> pending_;
  std::uint64_t next_pending_ = 0;
  std::unique_ptr<wakeup> server_tick_;
  bool trace_frames_ = false;
};

}  // namespace zkwire::sim
