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
std::string_view op_name(op_kind op) noexcept;  // "delete" for remove
std::optional<op_kind> parse_op(std::string_view name) noexcept;
// Whether this build has the lock recipes (the lock workload).
bool lock_workload_available() noexcept;

struct run_config {
  std::string servers = "127.0.0.1:2181";  // connect string, chroot allowed
  std::chrono::milliseconds session_timeout{10000};
  std::vector<credential> auth;
  std::uint64_t ops = 10000;             // measured operations per workload, over all clients
  std::chrono::nanoseconds duration{0};  // when positive: run each workload this long instead of `ops`
  std::uint64_t window = 1;              // requests in flight per client
  std::uint64_t clients = 1;             // sessions
  std::size_t data_size = 100;
  std::uint64_t warmup = 100;  // untimed operations before each workload, over all clients
};

// Called about twice a second during a measured phase: the op, operations done, the target (0 with a duration)
// and the seconds elapsed.
using progress_function =
    std::function<void(std::string_view op, std::uint64_t done, std::uint64_t target, double elapsed_s)>;

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

  // Runs one workload: warmup, then the measured phase. One report, two for lock with several sessions.
  std::vector<op_report> run(op_kind op);

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
