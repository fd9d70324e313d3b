#pragma once
// The figures of one measured operation and their three renderings: a human table, JSON lines, and CSV (latency
// histogram buckets and a per-second time series: the input of scripts/plot-latency). Latencies are printed in
// microseconds.
//
// Two kinds of latency. Service time: from the moment a request was handed to the client to its completion.
// Corrected latency (open loop, --rate only): from the moment the request was due by the arrival schedule to its
// completion. They differ when the sender falls behind its schedule (the server or the client cannot keep up, or
// the outstanding limit was reached): a request that waited before it could be sent waited all the same from its
// user's point of view, and the corrected latency counts that wait (no "coordinated omission").

#include <cstdint>
#include <string>
#include <vector>

#include "zkwire_bench/histogram.hpp"

namespace zkwire::bench {

// One second of a measured phase (completions in [second, second + length_s) since the phase began).
struct second_row {
  std::uint64_t second = 0;
  double length_s = 1.0;     // 1, or less for the last, partial second
  std::uint64_t count = 0;   // successful completions
  std::uint64_t errors = 0;  // failed completions
  // Of the successes completed in this second, nanoseconds; 0 when none. corrected_* only in the open loop.
  std::uint64_t service_p50 = 0, service_p99 = 0, service_max = 0;
  std::uint64_t corrected_p50 = 0, corrected_p99 = 0, corrected_max = 0;
};

struct op_report {
  std::string op;      // "get", "lock-handoff", "mix", "mix/get", ...
  std::string server;  // the connect string measured
  std::uint64_t clients = 1;
  std::uint64_t window = 1;
  std::uint64_t errors = 0;
  std::uint64_t elapsed_ns = 0;  // wall time of the measured phase
  std::uint64_t cpu_ns = 0;      // process CPU time during it
  histogram latency;             // service time of successful operations, nanoseconds

  // Open loop (--rate) only. Every request whose send time came during the run is `intended`; it was either sent
  // (then it counts in latency or errors) or `skipped` (the run ended while the outstanding limit held it back).
  bool open_loop = false;
  double rate = 0;  // target arrivals per second over all sessions (of the whole mix for a mix's parts)
  std::uint64_t intended = 0;
  std::uint64_t skipped = 0;
  // Of `skipped`, those due and held back by the outstanding limit when the run ended: each counts in `corrected`
  // with its lateness at that moment (the others are deletes with no node left, counted nowhere).
  std::uint64_t given_up = 0;
  std::uint64_t max_outstanding = 0;
  histogram corrected;  // corrected latency of successful operations and of given-up ones, nanoseconds

  std::vector<second_row> series;  // per second of the measured phase

  [[nodiscard]] std::uint64_t sent() const noexcept { return latency.count() + errors; }
  [[nodiscard]] double throughput() const noexcept;     // successful operations per second
  [[nodiscard]] double cpu_us_per_op() const noexcept;  // over successes and errors
};

// The percentiles every rendering reports.
struct summary {
  std::uint64_t count = 0;
  double mean_us = 0;
  double p50_us = 0;
  double p90_us = 0;
  double p99_us = 0;
  double p999_us = 0;
  double max_us = 0;
};
summary summarize(const histogram& h);

// A table with a header line, one row per report (two for open-loop reports: corrected and service latency),
// aligned columns.
std::string format_table(const std::vector<op_report>& reports);
// One JSON object (no newline): {"op","server","clients","window","count","errors","mean_us","p50_us","p90_us",
// "p99_us","p99_9_us","max_us","ops_per_sec","cpu_us_per_op"}, the *_us figures being service time. Open-loop
// reports add "mode":"open","rate","intended","sent","skipped","max_outstanding" and "corrected_mean_us",
// "corrected_p50_us", ... "corrected_max_us".
std::string format_json(const op_report& report);
// CSV: csv_header() is the first line of the file; format_csv() gives a report's rows:
//   op,server,row,latency,second,low_us,high_us,count,cumulative,errors,p50_us,p99_us,max_us,ops_per_sec
// row "bucket": a non-empty histogram bucket of latency "service" or "corrected" (low_us, high_us, count and
//   cumulative, the fraction of values at or below high_us);
// row "second": one second of the time series for that latency kind (second, count and errors completed in it,
//   p50_us, p99_us, max_us of its successes, ops_per_sec: its successes per second).
// Fields a row does not have are empty. Closed-loop reports have "service" rows only.
std::string csv_header();
std::string format_csv(const op_report& report);

}  // namespace zkwire::bench
