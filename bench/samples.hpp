#pragma once
// Latency samples of the recipe benchmarks (zkwire_lock_bench, zkwire_election_bench): the percentile rank the
// scripts and zkwire's histogram use, and the JSON line each program prints per kind of cycle.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace zkwire::bench {

// The value at rank ceil(q/100 * n) of the samples (the rank of zkwire's histogram and bench/lock_compare.py).
inline double percentile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const auto n = static_cast<double>(samples.size());
  const auto rank = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(q / 100.0 * n)));
  return samples[std::min(rank, samples.size()) - 1];
}

// {"op":OP,"count":N,"p50_us":X,"p99_us":X,"mean_us":X} (samples in µs).
inline void print_samples(const char* op, const std::vector<double>& samples) {
  double sum = 0;
  for (const double s : samples) sum += s;
  std::printf("{\"op\":\"%s\",\"count\":%zu,\"p50_us\":%.3f,\"p99_us\":%.3f,\"mean_us\":%.3f}\n", op, samples.size(),
              percentile(samples, 50), percentile(samples, 99),
              samples.empty() ? 0.0 : sum / static_cast<double>(samples.size()));
  std::fflush(stdout);
}

}  // namespace zkwire::bench
