#include "zkwire_bench/report.hpp"

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace zkwire::bench {
namespace {

double us(std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

std::string printf_string(const char* format, auto... args) {
  char buffer[512];
  const int n = std::snprintf(buffer, sizeof buffer, format, args...);
  return n <= 0 ? std::string()
                : std::string(buffer, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buffer - 1));
}

// The op and server names are ours or a connect string: still escape what JSON requires.
std::string json_escaped(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += printf_string("\\u%04x", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

double op_report::throughput() const noexcept {
  return elapsed_ns == 0 ? 0.0 : static_cast<double>(latency.count()) * 1e9 / static_cast<double>(elapsed_ns);
}

double op_report::cpu_us_per_op() const noexcept {
  const std::uint64_t ops = latency.count() + errors;
  return ops == 0 ? 0.0 : us(cpu_ns) / static_cast<double>(ops);
}

summary summarize(const histogram& h) {
  return summary{h.count(),
                 h.mean() / 1000.0,
                 us(h.value_at_percentile(50)),
                 us(h.value_at_percentile(90)),
                 us(h.value_at_percentile(99)),
                 us(h.value_at_percentile(99.9)),
                 us(h.max())};
}

std::string format_table(const std::vector<op_report>& reports) {
  bool several_servers = false;
  for (const auto& r : reports) several_servers = several_servers || r.server != reports.front().server;
  std::string out;
  if (several_servers) out += printf_string("%-22s ", "server");
  out += printf_string("%-12s %3s %4s %9s %6s %9s %9s %9s %9s %9s %9s %10s %8s\n", "op", "C", "W", "count", "errors",
                       "mean", "p50", "p90", "p99", "p99.9", "max", "ops/s", "cpu/op");
  for (const auto& r : reports) {
    const summary s = summarize(r.latency);
    if (several_servers) out += printf_string("%-22.22s ", r.server.c_str());
    out +=
        printf_string("%-12s %3llu %4llu %9llu %6llu %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %10.0f %8.1f\n", r.op.c_str(),
                      static_cast<unsigned long long>(r.clients), static_cast<unsigned long long>(r.window),
                      static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(r.errors), s.mean_us,
                      s.p50_us, s.p90_us, s.p99_us, s.p999_us, s.max_us, r.throughput(), r.cpu_us_per_op());
  }
  out += "(latencies and cpu/op in microseconds; cpu/op is this process's CPU time per operation)\n";
  return out;
}

std::string format_json(const op_report& report) {
  const summary s = summarize(report.latency);
  return R"({"op":)" + json_escaped(report.op) + R"(,"server":)" + json_escaped(report.server) +
         printf_string(R"(,"clients":%llu,"window":%llu,"count":%llu,"errors":%llu)",
                       static_cast<unsigned long long>(report.clients), static_cast<unsigned long long>(report.window),
                       static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(report.errors)) +
         printf_string(R"(,"mean_us":%.3f,"p50_us":%.3f,"p90_us":%.3f,"p99_us":%.3f,"p99_9_us":%.3f)", s.mean_us,
                       s.p50_us, s.p90_us, s.p99_us, s.p999_us) +
         printf_string(R"(,"max_us":%.3f,"ops_per_sec":%.1f,"cpu_us_per_op":%.3f})", s.max_us, report.throughput(),
                       report.cpu_us_per_op());
}

std::string csv_header() { return "op,server,low_us,high_us,count,cumulative\n"; }

std::string format_csv(const op_report& report) {
  std::string out;
  const auto total = static_cast<double>(report.latency.count());
  std::uint64_t seen = 0;
  // The connect string has commas: quote it.
  const std::string server = "\"" + report.server + "\"";
  for (const auto& b : report.latency.buckets()) {
    seen += b.count;
    out += report.op + "," + server +
           printf_string(",%.3f,%.3f,%llu,%.9f\n", us(b.low), us(b.high), static_cast<unsigned long long>(b.count),
                         static_cast<double>(seen) / total);
  }
  return out;
}

}  // namespace zkwire::bench
