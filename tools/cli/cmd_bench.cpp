// zkwire bench [--ops LIST] [-n N | --duration SEC] [--window W] [--clients C] [--data-size BYTES] [--warmup N]
//              [--per-server] [--json] [--csv FILE]
// The workloads, histogram and report formats live in tools/bench (zkwire_bench_core); this file is the command.

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "util.hpp"
#include "zkwire/client/connect_string.hpp"
#include "zkwire_bench/report.hpp"
#include "zkwire_bench/workload.hpp"

namespace zkwire::cli {
namespace {

constexpr std::array<option_spec, 10> specs = {{{0, "ops", true},
                                                {'n', "count", true},
                                                {0, "duration", true},
                                                {0, "window", true},
                                                {0, "clients", true},
                                                {0, "data-size", true},
                                                {0, "warmup", true},
                                                {0, "per-server", false},
                                                {0, "json", false},
                                                {0, "csv", true}}};

constexpr std::string_view default_ops = "get,exists,set,create,delete,children,multi";

struct bench_options {
  std::vector<bench::op_kind> ops;
  bench::run_config run;
  bool per_server = false;
  bool json = false;
  std::string csv;
};

std::vector<bench::op_kind> parse_ops(std::string_view list) {
  std::vector<bench::op_kind> ops;
  while (!list.empty()) {
    const auto comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    if (name == "lock" && !bench::lock_workload_available()) {
      throw usage_error("--ops: the lock workload needs the lock recipes (recipes/), which this build does not have");
    }
    const auto op = bench::parse_op(name);
    if (!op) {
      throw usage_error("--ops: '" + std::string(name) +
                        "' is not one of get, exists, set, create, delete, children, multi, lock");
    }
    ops.push_back(*op);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  if (ops.empty()) throw usage_error("--ops: no operation given");
  return ops;
}

bench_options parse_options(const command_context& context) {
  const auto args = parse_command(context.args, specs, 0, 0);
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  bench_options o;
  o.ops = parse_ops(args.value("ops").value_or(std::string(default_ops)));
  o.run.servers = context.global.servers;
  o.run.session_timeout = context.global.session_timeout;
  o.run.auth = make_client_options(context.global).auth;
  if (args.has("count") && args.has("duration")) throw usage_error("-n and --duration exclude each other");
  if (const auto n = args.value("count")) o.run.ops = static_cast<std::uint64_t>(parse_integer(*n, 1, max, "-n"));
  if (const auto d = args.value("duration")) {
    const double seconds = parse_seconds(*d, "--duration");
    if (seconds <= 0) throw usage_error("--duration: must be positive");
    o.run.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds));
  }
  if (const auto w = args.value("window"))
    o.run.window = static_cast<std::uint64_t>(parse_integer(*w, 1, 100000, "--window"));
  if (const auto c = args.value("clients")) {
    o.run.clients = static_cast<std::uint64_t>(parse_integer(*c, 1, 10000, "--clients"));
  }
  if (const auto s = args.value("data-size")) {
    o.run.data_size = static_cast<std::size_t>(parse_integer(*s, 0, std::int64_t{1024} * 1024, "--data-size"));
  }
  if (const auto w = args.value("warmup"))
    o.run.warmup = static_cast<std::uint64_t>(parse_integer(*w, 0, max, "--warmup"));
  o.per_server = args.has("per-server");
  o.json = context.global.json || args.has("json");
  o.csv = args.value("csv").value_or("");
  return o;
}

// The connect strings to measure: the whole list, or each member on its own (keeping the chroot).
std::vector<std::string> targets(const bench_options& o) {
  if (!o.per_server) return {o.run.servers};
  connect_string parsed;
  std::string reason;
  if (auto ec = parse_connect_string(o.run.servers, parsed, &reason)) {
    throw usage_error("--servers '" + o.run.servers + "': " + reason);
  }
  std::vector<std::string> out;
  for (const auto& host : parsed.hosts) out.push_back(to_string(host) + parsed.chroot);
  return out;
}

// A progress line on stderr, rewritten in place; only when stderr is a terminal.
bench::progress_function progress_line() {
  if (isatty(STDERR_FILENO) == 0) return {};
  return [](std::string_view op, std::uint64_t done, std::uint64_t target, double elapsed) {
    if (target > 0) {
      std::fprintf(stderr, "\r\033[Kzkwire: bench: %.*s %llu/%llu ops, %.1f s", static_cast<int>(op.size()), op.data(),
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(target), elapsed);
    } else {
      std::fprintf(stderr, "\r\033[Kzkwire: bench: %.*s %llu ops, %.1f s", static_cast<int>(op.size()), op.data(),
                   static_cast<unsigned long long>(done), elapsed);
    }
    std::fflush(stderr);
  };
}

int run(const command_context& context) {
  const bench_options o = parse_options(context);
  std::FILE* csv = nullptr;
  if (!o.csv.empty()) {
    csv = std::fopen(o.csv.c_str(), "w");  // NOLINT(cppcoreguidelines-owning-memory): closed on every path below
    if (csv == nullptr) throw usage_error("--csv: cannot write '" + o.csv + "'");
    std::fputs(bench::csv_header().c_str(), csv);
  }
  const auto progress = progress_line();
  std::vector<bench::op_report> reports;
  for (const auto& target : targets(o)) {
    bench::run_config config = o.run;
    config.servers = target;
    try {
      bench::runner runner(config, progress);
      for (const auto op : o.ops) {
        for (auto& report : runner.run(op)) {
          if (progress) std::fputs("\r\033[K", stderr);
          if (o.json) print_line(bench::format_json(report));
          if (csv != nullptr) std::fputs(bench::format_csv(report).c_str(), csv);
          reports.push_back(std::move(report));
        }
      }
    } catch (const std::system_error& e) {
      if (csv != nullptr) std::fclose(csv);  // NOLINT(cppcoreguidelines-owning-memory)
      if (progress) std::fputs("\r\033[K", stderr);
      throw operation_error(e.code(), target);
    }
  }
  if (csv != nullptr && std::fclose(csv) != 0)  // NOLINT(cppcoreguidelines-owning-memory)
    throw usage_error("--csv: cannot write '" + o.csv + "'");
  if (!o.json) write_stdout(bench::format_table(reports));
  return exit_ok;
}

}  // namespace

const command bench_command{
    "bench",
    "bench [--ops LIST] [-n N | --duration SEC] [--window W] [--clients C] [--data-size BYTES] [--warmup N] "
    "[--per-server] [--json] [--csv FILE]",
    "measure operation latency and throughput",
    R"(Measures ZooKeeper operations with this client: for each operation in LIST, WARMUP untimed operations,
then N measured ones (or as many as fit in SEC seconds), from C sessions each keeping W requests in flight.
Everything happens under a scratch node (/zkb<random hex>) created first and removed at the end.

Prints one row per operation: count, errors, mean, p50, p90, p99, p99.9 and max latency (microseconds, from
a log-linear histogram, within 0.8 %), throughput (successful operations per second) and this process's CPU
time per operation (microseconds). A progress line goes to stderr when it is a terminal.

  --ops LIST         comma-separated, run in this order (default get,exists,set,create,delete,children,multi):
                       get, exists, set   on a node of the session's own (DATA of --data-size bytes)
                       create             persistent nodes with --data-size bytes
                       delete             nodes made by an earlier create (or made untimed first)
                       children           getChildren2 of a node with 16 children
                       multi              a transaction creating and deleting one node
                       lock               uncontended acquire+release of a lock per session (recipes);
                                          with --clients 2 or more also "lock-handoff": all sessions
                                          contend for one lock (latency: the wait; ops/s: handoffs)
  -n, --count N      measured operations per workload, over all sessions (default 10000)
  --duration SEC     instead of -n: run each workload SEC seconds (decimals allowed)
  --window W         requests in flight per session (default 1: one at a time)
  --clients C        sessions, all driven by one thread (default 1)
  --data-size BYTES  data of get/set/create nodes (default 100)
  --warmup N         untimed operations before each workload (default 100)
  --per-server       measure each server of --servers on its own, one after the other
  --json             one JSON object per operation instead of the table (as the global --json)
  --csv FILE         write the latency histograms (op,server,low_us,high_us,count,cumulative) to FILE,
                     for scripts/plot-latency

Exit status: 0, 2 usage error, 4 no session (could not connect within the connect timeout).
)",
    run};

}  // namespace zkwire::cli
