#pragma once
// The ZooKeeper C client (libzookeeper_mt) driven like zkwire::bench::runner drives zkwire: sync calls for
// latency, the async API with W requests in flight for throughput, each returning a zkwire::bench::op_report so
// both sides are measured and reported the same way.

#include <memory>
#include <string>
#include <vector>

#include "zkwire_bench/report.hpp"
#include "zkwire_bench/workload.hpp"

namespace zkwire::bench::e2e {

class c_client {
 public:
  // Connects (throws std::runtime_error after 10 s). `tuned` calls zoo_set_servers_resolution_delay(zh, -1): by
  // default the 3.8 client re-resolves and reshuffles its host list on almost every pass of its I/O loop.
  c_client(const std::string& servers, bool tuned, std::size_t data_size);
  ~c_client();
  c_client(const c_client&) = delete;
  c_client& operator=(const c_client&) = delete;
  c_client(c_client&&) = delete;
  c_client& operator=(c_client&&) = delete;

  // `count` sync calls (zoo_get, zoo_exists, zoo_set, zoo_create, zoo_delete) on `node` (get, exists, set) or on
  // nodes under `parent` (create makes them, delete removes the ones create made).
  op_report run_sync(op_kind op, std::uint64_t count, const std::string& node, const std::string& parent);
  // `count` async calls (zoo_aget on `node`, zoo_acreate under `parent`) with `window` in flight.
  op_report run_pipelined(op_kind op, std::uint64_t count, std::uint64_t window, const std::string& node,
                          const std::string& parent);
  // Deletes every node create made (untimed, pipelined).
  void remove_created();

  [[nodiscard]] const std::string& name() const noexcept { return name_; }

 private:
  struct state;
  std::unique_ptr<state> state_;
  std::string name_;
};

}  // namespace zkwire::bench::e2e
