// zkwire bench [--ops LIST | --mix OP:WEIGHT,...] [-n N | --duration SEC] [--window W | --rate OPS
//              [--max-outstanding M]] [--clients C] [--data-size BYTES] [--warmup N] [--per-server] [--json]
//              [--csv FILE]
// The workloads, histogram and report formats live in tools/bench (zkwire_bench_core); this file is the command.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

#include "cli11_support.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "util.hpp"
#include "zkwire/client/connect_string.hpp"
#include "zkwire_bench/mix.hpp"
#include "zkwire_bench/report.hpp"
#include "zkwire_bench/workload.hpp"

namespace zkwire::cli {
namespace {

constexpr std::string_view default_ops = "get,exists,set,create,delete,children,multi";

struct bench_options {
  std::vector<bench::op_kind> ops;    // run one after the other
  std::vector<bench::mix_entry> mix;  // or this mix (then ops is empty)
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

// The command's options, declared to CLI11; values land in the members.
struct option_values {
  std::string ops{default_ops};
  std::string mix;
  std::int64_t count = 10000;
  double duration = 0;
  std::int64_t window = 1;
  std::int64_t clients = 1;
  std::int64_t data_size = 100;
  std::int64_t warmup = 100;
  double rate = 0;
  std::int64_t max_outstanding = 10000;
  bool per_server = false;
  bool json = false;
  std::string csv;
};

// Parses the arguments with CLI11: -h/--help throws help_requested, any error usage_error naming the option.
// Returns the app so the caller can ask which options were given.
option_values parse_with_cli11(const std::vector<std::string>& args, CLI::App& app) {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  option_values v;
  app.set_help_flag("-h,--help");
  app.allow_extras(false);
  auto* ops = app.add_option("--ops", v.ops);
  auto* mix = app.add_option("--mix", v.mix);
  auto* count = app.add_option("-n,--count", v.count)->check(CLI::Range(std::int64_t{1}, max));
  auto* duration = app.add_option("--duration", v.duration)->check(CLI::Range(1e-3, 1e9));
  auto* window = app.add_option("--window", v.window)->check(CLI::Range(std::int64_t{1}, std::int64_t{100000}));
  app.add_option("--clients", v.clients)->check(CLI::Range(std::int64_t{1}, std::int64_t{10000}));
  app.add_option("--data-size", v.data_size)->check(CLI::Range(std::int64_t{0}, std::int64_t{1024} * 1024));
  app.add_option("--warmup", v.warmup)->check(CLI::Range(std::int64_t{0}, max));
  auto* rate = app.add_option("--rate", v.rate)->check(CLI::Range(1e-3, 1e7));
  auto* outstanding =
      app.add_option("--max-outstanding", v.max_outstanding)->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000}));
  app.add_flag("--per-server", v.per_server);
  app.add_flag("--json", v.json);
  app.add_option("--csv", v.csv);
  count->excludes(duration);
  mix->excludes(ops);
  rate->excludes(window);
  outstanding->needs(rate);
  parse_app(app, args);
  return v;
}

bench_options parse_options(const command_context& context) {
  CLI::App app{"", "bench"};
  const option_values v = parse_with_cli11(context.args, app);
  const auto given = [&](const char* name) { return app.count(name) > 0; };
  bench_options o;
  if (given("--mix")) {
    std::string error;
    auto mix = bench::parse_mix(v.mix, error);
    if (!mix) throw usage_error("--mix: " + error);
    o.mix = std::move(*mix);
  } else {
    o.ops = parse_ops(v.ops);
  }
  o.run.servers = context.global.servers;
  o.run.session_timeout = context.global.session_timeout;
  o.run.auth = make_client_options(context.global).auth;
  o.run.tls = context.global.tls;
  o.run.ops = static_cast<std::uint64_t>(v.count);
  if (given("--duration")) {
    o.run.duration = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(v.duration));
  }
  o.run.window = static_cast<std::uint64_t>(v.window);
  o.run.clients = static_cast<std::uint64_t>(v.clients);
  o.run.data_size = static_cast<std::size_t>(v.data_size);
  o.run.warmup = static_cast<std::uint64_t>(v.warmup);
  if (given("--rate")) {
    o.run.rate = v.rate;
    o.run.max_outstanding = static_cast<std::uint64_t>(v.max_outstanding);
    if (std::find(o.ops.begin(), o.ops.end(), bench::op_kind::lock) != o.ops.end()) {
      throw usage_error("--rate: the lock workload has no open loop (leave lock out of --ops)");
    }
  }
  o.per_server = v.per_server;
  o.json = context.global.json || v.json;
  o.csv = v.csv;
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
  return [](const bench::progress_info& p) {
    std::fprintf(stderr, "\r\033[Kzkwire: bench: %.*s %llu", static_cast<int>(p.op.size()), p.op.data(),
                 static_cast<unsigned long long>(p.done));
    if (p.target > 0) std::fprintf(stderr, "/%llu", static_cast<unsigned long long>(p.target));
    std::fprintf(stderr, " ops, %.1f s", p.elapsed_s);
    if (p.open_loop) {
      std::fprintf(stderr, ", %llu outstanding, %llu behind schedule", static_cast<unsigned long long>(p.outstanding),
                   static_cast<unsigned long long>(p.backlog));
    }
    std::fflush(stderr);
  };
}

int run_bench_command(const command_context& context) {
  const bench_options o = parse_options(context);
  std::FILE* csv = nullptr;
  if (!o.csv.empty()) {
    csv = std::fopen(o.csv.c_str(), "w");  // NOLINT(cppcoreguidelines-owning-memory): closed on every path below
    if (csv == nullptr) throw usage_error("--csv: cannot write '" + o.csv + "'");
    std::fputs(bench::csv_header().c_str(), csv);
  }
  const auto progress = progress_line();
  std::vector<bench::op_report> reports;
  const auto emit = [&](bench::op_report& report) {
    if (progress) std::fputs("\r\033[K", stderr);
    if (o.json) print_line(bench::format_json(report));
    if (csv != nullptr) std::fputs(bench::format_csv(report).c_str(), csv);
    reports.push_back(std::move(report));
  };
  for (const auto& target : targets(o)) {
    bench::run_config config = o.run;
    config.servers = target;
    try {
      bench::runner runner(config, progress);
      if (!o.mix.empty()) {
        for (auto& report : runner.run(o.mix)) emit(report);
      }
      for (const auto op : o.ops) {
        for (auto& report : runner.run(op)) emit(report);
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
    "bench [--ops LIST | --mix OP:WEIGHT,...] [-n N | --duration SEC] [--window W | --rate OPS "
    "[--max-outstanding M]] [--clients C] [--data-size BYTES] [--warmup N] [--per-server] [--json] [--csv FILE]",
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
  --mix OP:WEIGHT,...
                     instead of --ops: one workload mixing operations, each request's operation picked at
                     random by weight (fixed seed), e.g. get:80,set:20 (get, exists, set, create, children,
                     multi; integer weights from 1 to 1000000). Rows: "mix" for all, "mix/OP" for each
  -n, --count N      measured operations per workload, over all sessions (default 10000)
  --duration SEC     instead of -n: run each workload SEC seconds (decimals allowed)
  --window W         requests in flight per session (default 1: one at a time)
  --rate OPS         open loop instead of --window: send OPS requests per second over all sessions (request k
                     due k/OPS seconds after the start, on session k mod C), never waiting for replies.
                     Each request has two latencies: "corrected", from when it was due (it counts any wait
                     behind the schedule, so a server that cannot keep up shows as growing latency) and
                     "service", from when it was actually sent. Not for lock
  --max-outstanding M
                     with --rate: at most M requests in flight over all sessions (default 10000), which
                     bounds memory; requests due meanwhile wait (costing no memory) and go out as replies
                     come back, their wait counted in the corrected latency. With --duration, those still
                     waiting at the end are not sent and are counted as "skipped"
  --clients C        sessions, all driven by one thread (default 1)
  --data-size BYTES  data of get/set/create nodes (default 100)
  --warmup N         untimed operations before each workload (default 100; one at a time per session with
                     --rate)
  --per-server       measure each server of --servers on its own, one after the other
  --json             one JSON object per operation instead of the table (as the global --json); with --rate
                     also "mode":"open", "rate", "intended" (= "sent" + "skipped"; "sent" = "count" +
                     "errors"), "max_outstanding" and corrected_mean_us, corrected_p50_us ... corrected_max_us
                     (the other *_us figures are service times)
  --csv FILE         write the latency histograms and a per-second time series to FILE, for
                     scripts/plot-latency; columns: op,server,row,latency,second,low_us,high_us,count,
                     cumulative,errors,p50_us,p99_us,max_us,ops_per_sec; row "bucket" (a histogram bucket
                     of latency "service" or "corrected": low_us, high_us, count, cumulative fraction) or
                     "second" (one second since the measured phase began: count and errors completed in it,
                     p50_us, p99_us, max_us, ops_per_sec); lock rows have buckets only

Exit status: 0, 2 usage error, 4 no session (could not connect within the connect timeout).
)",
    run_bench_command};

}  // namespace zkwire::cli
