#pragma once
// ZooKeeper's client guarantees in the simulation (docs/simulation.md#client-guarantees): each process drives its
// client with a history::register_client on three register paths, every request and watch event recorded, under the
// schedule's faults; at the end (check_end) the history checker (tests/history/checker.hpp) judges the whole
// history: writes linearizable, per client completion order, monotonic reads, read-your-writes, reads matching the
// writes, watch before data. A violation names the operations involved; the seed replays the schedule, history
// included.
//
// The workload interface of fault_schedule.hpp's drive(): start, stop, check (nothing per step: the history is judged
// at the end), quiescent (every process finished its closing reads), clean, check_end, violation, status.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checker.hpp"
#include "history.hpp"
#include "oracle_ledger.hpp"
#include "register_client.hpp"
#include "world.hpp"

namespace zkwire::sim {

class guarantee_workload {
 public:
  guarantee_workload(world& w, std::uint64_t seed);
  guarantee_workload(const guarantee_workload&) = delete;
  guarantee_workload& operator=(const guarantee_workload&) = delete;
  guarantee_workload(guarantee_workload&&) = delete;
  guarantee_workload& operator=(guarantee_workload&&) = delete;
  ~guarantee_workload();

  void start();
  void stop();
  void check() {}
  [[nodiscard]] bool quiescent() const;
  [[nodiscard]] bool clean() const { return true; }
  void check_end();

  [[nodiscard]] const std::optional<std::string>& violation() const noexcept { return ledger_.violation(); }
  [[nodiscard]] std::string status() const;
  [[nodiscard]] const history::record& record() const noexcept { return recorder_.result(); }
  // The checker's report (after check_end).
  [[nodiscard]] const history::report& report() const noexcept { return report_; }

 private:
  oracle_ledger ledger_;
  history::recorder recorder_;
  std::vector<std::unique_ptr<history::register_client>> clients_;
  history::report report_;
};

}  // namespace zkwire::sim
