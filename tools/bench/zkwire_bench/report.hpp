#pragma once
// The figures of one measured operation and their three renderings: a human table, JSON lines, and CSV histogram
// buckets (the input of scripts/plot-latency). Latencies are printed in microseconds.

#include <cstdint>
#include <string>
#include <vector>

#include "zkwire_bench/histogram.hpp"

namespace zkwire::bench {

struct op_report {
  std::string op;      // "get", "lock-handoff-8", ...
  std::string server;  // the connect string measured
  std::uint64_t clients = 1;
  std::uint64_t window = 1;
  std::uint64_t errors = 0;
  std::uint64_t elapsed_ns = 0;  // wall time of the measured phase
  std::uint64_t cpu_ns = 0;      // process CPU time during it
  histogram latency;             // successful operations only, nanoseconds

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

// A table with a header line, one row per report, aligned columns.
std::string format_table(const std::vector<op_report>& reports);
// One JSON object (no newline): {"op","server","clients","window","count","errors","mean_us","p50_us","p90_us",
// "p99_us","p99_9_us","max_us","ops_per_sec","cpu_us_per_op"}.
std::string format_json(const op_report& report);
// CSV lines for the non-empty buckets: op,server,low_us,high_us,count,cumulative (the fraction of values at or
// below high_us). csv_header() is the first line of the file.
std::string csv_header();
std::string format_csv(const op_report& report);

}  // namespace zkwire::bench
