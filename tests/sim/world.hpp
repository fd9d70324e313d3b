#pragma once
// One simulated world: a simulated ZooKeeper server, the network, virtual time, and N client processes, each a
// real zkwire::client on its own io_context (so a process can be paused, like a GC pause: nothing of it runs while
// time goes on). Everything is driven from one thread by run_until(): it runs every process that has work, and
// only when all are idle moves virtual time to the next wakeup (a client timer, a delivery, a server deadline).
// A run is a pure function of the seed.

#include <asio/io_context.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ensemble.hpp"
#include "network.hpp"
#include "virtual_clock.hpp"
#include "zkwire/client/client.hpp"

namespace zkwire::sim {

struct world_options {
  std::uint64_t seed = 1;
  std::size_t processes = 3;
  std::chrono::milliseconds session_timeout{3000};
  bool trace_frames = false;
  std::size_t members = 1;  // 1: a standalone server; more: an ensemble (ensemble.hpp)
  sim_time max_lag{0};      // ensemble: how far behind the leader a follower applies  // every frame in the trace (for
                            // replaying one seed; slows a run down)
};

class world {
 public:
  explicit world(const world_options& options);
  world(const world&) = delete;
  world& operator=(const world&) = delete;
  world(world&&) = delete;
  world& operator=(world&&) = delete;
  ~world();

  [[nodiscard]] std::size_t processes() const noexcept { return processes_.size(); }
  zkwire::client& client(std::size_t p) { return *processes_.at(p)->client; }
  asio::io_context& io(std::size_t p) { return processes_.at(p)->io; }
  ensemble& zk() noexcept { return server_; }
  network& net() noexcept { return *network_; }
  trace& log() noexcept { return trace_; }
  virtual_clock& clock() noexcept { return *clock_; }
  // The server's executor: never paused, for the fault schedule's own events.
  [[nodiscard]] asio::any_io_executor server_executor() { return server_io_.get_executor(); }
  [[nodiscard]] sim_time now() const { return clock_->elapsed(); }

  // Nothing of process p runs until `until` (its handlers and timers wait, virtual time goes on).
  void pause(std::size_t p, sim_time until);
  [[nodiscard]] bool paused(std::size_t p) const { return now() < processes_.at(p)->paused_until; }

  // Runs until virtual time `until`, or until `done` returns true (checked whenever every process is idle).
  // `after_step` runs after each round of handlers (the oracle). Returns whether `done` became true. Throws
  // std::runtime_error if the processes keep running without virtual time moving (a livelock in the code under
  // test).
  bool run_until(sim_time until, const std::function<bool()>& done = {}, const std::function<void()>& after_step = {});

 private:
  struct process {
    asio::io_context io;
    std::unique_ptr<zkwire::client> client;
    sim_time paused_until{0};
  };
  bool poll_all();

  std::shared_ptr<virtual_clock> clock_;
  trace trace_;
  ensemble server_;
  asio::io_context server_io_;
  std::unique_ptr<network> network_;
  std::vector<std::unique_ptr<process>> processes_;
};

}  // namespace zkwire::sim
