#pragma once
// Records completed requests into an op_report: its service and corrected latency histograms, its error count and
// its per-second time series. Not thread-safe (one per report, used by the thread running the workload).

#include <chrono>
#include <cstdint>

#include "zkwire_bench/histogram.hpp"
#include "zkwire_bench/report.hpp"

namespace zkwire::bench {

class latency_recorder {
 public:
  using clock = std::chrono::steady_clock;

  // Records into `report`, which must outlive the recorder; the time series counts seconds from `start`.
  // `corrected`: also record the corrected latency (open loop). `series`: collect the time series.
  latency_recorder(op_report& report, clock::time_point start, bool corrected, bool series = true);

  // A success: due at `intended` (the same as `sent` in the closed loop), sent at `sent`, completed at `now`.
  void success(clock::time_point intended, clock::time_point sent, clock::time_point now) noexcept;
  void failure(clock::time_point now) noexcept;
  // Open loop: a request due at `intended` that was never sent, given up at `now` (the run ended while the
  // outstanding limit held it back). Its lateness so far counts in the corrected latency, a lower bound of what it
  // would have shown, so that the worse the server keeps up, the worse the corrected percentiles; counted in
  // op_report::given_up.
  void given_up(clock::time_point intended, clock::time_point now) noexcept;
  // Adds the seconds up to `end`, the last one partial; call once when the phase is over.
  void close(clock::time_point end);

 private:
  // Emits the rows of every second before `second` (empty ones too: a stall shows as zeros).
  void advance_to(std::uint64_t second);
  void emit(double length_s);
  [[nodiscard]] std::uint64_t second_of(clock::time_point t) const noexcept;

  op_report* report_;
  clock::time_point start_;
  bool corrected_;
  bool series_;
  std::uint64_t second_ = 0;  // the second being collected
  std::uint64_t errors_ = 0;  // in it
  histogram service_;         // in it
  histogram corrected_latency_;
};

}  // namespace zkwire::bench
