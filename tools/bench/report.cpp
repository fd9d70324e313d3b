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

namespace {

std::string table_row(const op_report& r, const char* latency, const histogram& h, bool several_servers, bool open_loop,
                      bool counts) {
  const summary s = summarize(h);
  std::string out;
  if (several_servers) out += printf_string("%-22.22s ", r.server.c_str());
  out += printf_string("%-12s %3llu ", r.op.c_str(), static_cast<unsigned long long>(r.clients));
  if (open_loop) {
    out += printf_string("%-9s %8.0f ", latency, r.rate);
  } else {
    out += printf_string("%4llu ", static_cast<unsigned long long>(r.window));
  }
  if (counts) {
    out += printf_string("%9llu %6llu ", static_cast<unsigned long long>(s.count),
                         static_cast<unsigned long long>(r.errors));
    if (open_loop) out += printf_string("%7llu ", static_cast<unsigned long long>(r.skipped));
  } else {
    out += printf_string("%9s %6s %7s ", "", "", "");
  }
  out += printf_string("%9.1f %9.1f %9.1f %9.1f %9.1f %9.1f", s.mean_us, s.p50_us, s.p90_us, s.p99_us, s.p999_us,
                       s.max_us);
  if (counts) out += printf_string(" %10.0f %8.1f", r.throughput(), r.cpu_us_per_op());
  return out + "\n";
}

}  // namespace

std::string format_table(const std::vector<op_report>& reports) {
  bool several_servers = false;
  bool open_loop = false;
  for (const auto& r : reports) {
    several_servers = several_servers || r.server != reports.front().server;
    open_loop = open_loop || r.open_loop;
  }
  std::string out;
  if (several_servers) out += printf_string("%-22s ", "server");
  if (open_loop) {
    out +=
        printf_string("%-12s %3s %-9s %8s %9s %6s %7s %9s %9s %9s %9s %9s %9s %10s %8s\n", "op", "C", "latency", "rate",
                      "count", "errors", "skipped", "mean", "p50", "p90", "p99", "p99.9", "max", "ops/s", "cpu/op");
  } else {
    out += printf_string("%-12s %3s %4s %9s %6s %9s %9s %9s %9s %9s %9s %10s %8s\n", "op", "C", "W", "count", "errors",
                         "mean", "p50", "p90", "p99", "p99.9", "max", "ops/s", "cpu/op");
  }
  for (const auto& r : reports) {
    if (r.open_loop) {
      out += table_row(r, "corrected", r.corrected, several_servers, true, true);
      out += table_row(r, "service", r.latency, several_servers, true, false);
    } else {
      out += table_row(r, "", r.latency, several_servers, open_loop, true);
    }
  }
  out += "(latencies and cpu/op in microseconds; cpu/op is this process's CPU time per operation";
  if (open_loop) {
    out += ";\n corrected: from the request's intended send time (the --rate schedule), service: from its actual send";
  }
  out += ")\n";
  return out;
}

std::string format_json(const op_report& report) {
  const summary s = summarize(report.latency);
  std::string out =
      R"({"op":)" + json_escaped(report.op) + R"(,"server":)" + json_escaped(report.server) +
      printf_string(R"(,"clients":%llu,"window":%llu,"count":%llu,"errors":%llu)",
                    static_cast<unsigned long long>(report.clients), static_cast<unsigned long long>(report.window),
                    static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(report.errors)) +
      printf_string(R"(,"mean_us":%.3f,"p50_us":%.3f,"p90_us":%.3f,"p99_us":%.3f,"p99_9_us":%.3f)", s.mean_us, s.p50_us,
                    s.p90_us, s.p99_us, s.p999_us) +
      printf_string(R"(,"max_us":%.3f,"ops_per_sec":%.1f,"cpu_us_per_op":%.3f)", s.max_us, report.throughput(),
                    report.cpu_us_per_op());
  if (report.open_loop) {
    const summary c = summarize(report.corrected);
    out +=
        printf_string(R"(,"mode":"open","rate":%.3f,"intended":%llu,"sent":%llu,"skipped":%llu)", report.rate,
                      static_cast<unsigned long long>(report.intended), static_cast<unsigned long long>(report.sent()),
                      static_cast<unsigned long long>(report.skipped));
    out += printf_string(R"(,"max_outstanding":%llu,"corrected_mean_us":%.3f,"corrected_p50_us":%.3f)",
                         static_cast<unsigned long long>(report.max_outstanding), c.mean_us, c.p50_us);
    out += printf_string(R"(,"corrected_p90_us":%.3f,"corrected_p99_us":%.3f,"corrected_p99_9_us":%.3f)", c.p90_us,
                         c.p99_us, c.p999_us);
    out += printf_string(R"(,"corrected_max_us":%.3f,"given_up":%llu)", c.max_us,
                         static_cast<unsigned long long>(report.given_up));
  }
  return out + "}";
}

std::string csv_header() {
  return "op,server,row,latency,second,low_us,high_us,count,cumulative,errors,p50_us,p99_us,max_us,ops_per_sec\n";
}

namespace {

void csv_buckets(std::string& out, const std::string& prefix, const histogram& h) {
  const auto total = static_cast<double>(h.count());
  std::uint64_t seen = 0;
  for (const auto& b : h.buckets()) {
    seen += b.count;
    out += prefix + printf_string(",,%.3f,%.3f,%llu,%.9f,,,,,\n", us(b.low), us(b.high),
                                  static_cast<unsigned long long>(b.count), static_cast<double>(seen) / total);
  }
}

}  // namespace

std::string format_csv(const op_report& report) {
  std::string out;
  // The connect string has commas: quote it.
  const std::string head = report.op + ",\"" + report.server + "\",";
  csv_buckets(out, head + "bucket,service", report.latency);
  if (report.open_loop) csv_buckets(out, head + "bucket,corrected", report.corrected);
  for (const auto& row : report.series) {
    const double rate = row.length_s > 0 ? static_cast<double>(row.count) / row.length_s : 0.0;
    const auto line = [&](const char* latency, std::uint64_t p50, std::uint64_t p99, std::uint64_t max) {
      out +=
          head + printf_string("second,%s,%llu,,,%llu,,%llu,%.3f,%.3f,%.3f,%.1f\n", latency,
                               static_cast<unsigned long long>(row.second), static_cast<unsigned long long>(row.count),
                               static_cast<unsigned long long>(row.errors), us(p50), us(p99), us(max), rate);
    };
    line("service", row.service_p50, row.service_p99, row.service_max);
    if (report.open_loop) line("corrected", row.corrected_p50, row.corrected_p99, row.corrected_max);
  }
  return out;
}

}  // namespace zkwire::bench
