#pragma once
// The workloads of `zkwire bench` with zkwire::client: C sessions on one io_context driven by the calling thread,
// each keeping W requests in flight, every latency taken from the request's start to its completion handler.
//
// Everything happens under a scratch node (/zkb<random hex>) created by the constructor and removed, subtree and
// all, by the destructor; nothing else on the server is touched. Paths are kept at most 15 bytes long so that the
// std::string holding them needs no heap allocation (the tool should not measure its own allocations).
//
//   get, exists, set   on the client's own node (/zkb.../c<i>, data of data_size bytes)
//   create             persistent nodes /zkb.../c<i>/n<k> with data_size bytes (kept for delete)
//   delete             removes nodes made by an earlier create run, or made untimed first (count mode). With a
//                      duration it stops early when they run out.
//   children           getChildren2 of /zkb.../k, which has 16 children
//   multi              a transaction creating and deleting /zkb.../c<i>/m<k> (two ops, one round trip)
//   lock               (builds with the lock recipes only, see lock_workload_available) zkwire::recipes::lock:
//                      "lock", uncontended acquire+release, each session on a lock of its own (one cycle at a time);
//                      with 2 or more sessions also "lock-handoff": every session contends for one lock, acquiring
//                      and releasing at once, over and over; its latency is the wait from asking to holding, its
//                      throughput the handoff rate
//
// Closed loop (rate 0, the default): each session keeps W requests in flight, sending the next as soon as one
// completes, so the load adapts to the server's speed. Latency is the service time (request start to completion).
//
// Open loop (rate > 0): requests are due at fixed times, rate per second over all sessions (request k is due at
// k / rate seconds and goes to session k mod C), whatever the replies do. The sender never waits for a reply: a
// timer sends whatever is due. Each request gets two latencies: corrected, from when it was due, and service, from
// when it was actually handed to the client (report.hpp). When the server cannot keep up, requests pile up in the
// client and the server, and the corrected latency grows with the backlog: that is what the open loop is for.
// Memory stays bounded by max_outstanding requests in flight over all sessions: once that many are outstanding,
// due requests wait (a counter, no memory) and go out as replies come back, their wait counted in the corrected
// latency. With a count (ops) every due request is sent eventually; with a duration, sending stops at its end and
// the due requests still waiting are given up: counted as skipped and as given_up, each with its lateness at the
// end in the corrected latency (a lower bound of what it would have shown). A delete with no node left to delete is
// skipped too, and counts in no latency.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkwire/client/options.hpp"
#include "zkwire_bench/report.hpp"

namespace zkwire::bench {

enum class op_kind { get, exists, set, create, remove, children, multi, lock };

// One operation of a workload and its share (weight / sum of the weights); see mix.hpp.
struct mix_entry {
  op_kind op = op_kind::get;
  std::uint32_t weight = 1;
};
std::string_view op_name(op_kind op) noexcept;  // "delete" for remove
std::optional<op_kind> parse_op(std::string_view name) noexcept;
// Whether this build has the lock recipes (the lock workload).
bool lock_workload_available() noexcept;

struct run_config {
  std::string servers = "127.0.0.1:2181";  // connect string, chroot allowed
  std::chrono::milliseconds session_timeout{10000};
  std::vector<credential> auth;
  std::optional<tls_options> tls;        // TLS to the servers (the CLI's --tls-* options)
  std::uint64_t ops = 10000;             // measured operations per workload, over all clients
  std::chrono::nanoseconds duration{0};  // when positive: run each workload this long instead of `ops`
  std::uint64_t window = 1;              // requests in flight per client
  std::uint64_t clients = 1;             // sessions
  std::size_t data_size = 100;
  std::uint64_t warmup = 100;             // untimed operations before each workload, over all clients
  double rate = 0;                        // > 0: open loop, requests per second over all clients (window then unused)
  std::uint64_t max_outstanding = 10000;  // open loop: requests in flight at most, over all clients
  bool series = true;                     // collect the per-second time series
};

// The state of a measured phase, for a progress line.
struct progress_info {
  std::string_view op;
  std::uint64_t done = 0;    // completed requests
  std::uint64_t target = 0;  // requests to complete; 0 with a duration
  double elapsed_s = 0;
  bool open_loop = false;
  std::uint64_t outstanding = 0;  // open loop: in flight
  std::uint64_t backlog = 0;      // open loop: due but not sent yet (outstanding limit)
};

// Called about twice a second during a measured phase.
using progress_function = std::function<void(const progress_info&)>;

class runner {
 public:
  // Connects the sessions and creates the scratch nodes; throws std::system_error if that fails.
  explicit runner(run_config config, progress_function progress = {});
  // Removes the scratch subtree (errors ignored) and closes the sessions.
  ~runner();
  runner(const runner&) = delete;
  runner& operator=(const runner&) = delete;
  runner(runner&&) = delete;
  runner& operator=(runner&&) = delete;

  // Runs one workload: warmup, then the measured phase (open loop when config().rate > 0). One report, two for
  // lock with several sessions. Throws std::system_error(invalid_argument) for lock in the open loop.
  std::vector<op_report> run(op_kind op);
  // Runs a mixed workload (mixable operations, see mix.hpp), each request's operation picked by weight: one
  // report per operation ("mix/get", ...) and, first, one for all of them ("mix"). One entry is run(op).
  std::vector<op_report> run(const std::vector<mix_entry>& mix);

  // The parameters of the next run() may change between runs (the comparison program varies the window).
  [[nodiscard]] run_config& config() noexcept;
  // The scratch node, e.g. "/zkb1a2b3c4d" (other programs can put their own nodes under it).
  [[nodiscard]] const std::string& scratch() const noexcept;
  // The node get/exists/set use for client i.
  [[nodiscard]] std::string node_of(std::size_t client) const;

  struct state;  // opaque (workload_state.hpp, internal)

 private:
  std::unique_ptr<state> state_;
  friend struct lock_workload;
};

}  // namespace zkwire::bench
