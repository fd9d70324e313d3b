// zkwire_e2e_compare: zkwire against the ZooKeeper C client (libzookeeper_mt, as shipped and tuned) on the same
// server, in one run, interleaved A B C / C B A round by round so that drift on a shared machine hits all alike.
//
//   zkwire_e2e_compare -s HOST:PORT [--rounds R] [-n SYNC_OPS] [--pipelined OPS] [--data-size BYTES]
//                      [--server-pid PID]
//
// Prints a markdown table: sync get/exists/set/create/delete p50 and p99 (one request at a time: zkwire's async
// client with a window of 1, the C client's zoo_get etc.), pipelined get and create throughput at windows 1, 16
// and 128 (zoo_aget / zoo_acreate with completion counting), client CPU time per op (the whole process) and, with
// the server's pid, the server's CPU time per op and the CPUs client and server kept busy together (whether the
// shared machine, not the client, bounds the throughput). Every cell is the median of the rounds with its range;
// the ratios zkwire / C are taken within each round. Then heap allocations per zkwire request (every operator new
// of the process during zkwire's phases, result payloads included) and the performance targets
// (docs/design.md#performance-targets) with "met" or "missed".

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "allocation_counter.hpp"
#include "c_client.hpp"
#include "zkwire_bench/report.hpp"
#include "zkwire_bench/workload.hpp"

namespace {

using namespace zkwire::bench;  // NOLINT(google-build-using-namespace): a program of this library's parts
using e2e::c_client;

struct settings {
  std::string servers;
  int rounds = 3;
  std::uint64_t sync_ops = 2000;
  std::uint64_t pipelined_ops = 20000;
  std::size_t data_size = 100;
  int server_pid = 0;  // the server's process, for its CPU time per op (0: not measured)
};

// CPU time (user + system) of process `pid` so far in nanoseconds, from /proc/PID/stat; 0 if unreadable.
std::uint64_t process_cpu_ns_of(int pid) {
  if (pid <= 0) return 0;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return 0;
  // The fields after the command name (which may hold spaces, so from its closing parenthesis): state (field 3)
  // first, utime and stime are fields 14 and 15, in clock ticks.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  for (int i = 3; i < 14 && fields >> field; ++i) {
  }
  unsigned long long utime = 0;
  unsigned long long stime = 0;
  if (!(fields >> utime >> stime)) return 0;
  static const long ticks = sysconf(_SC_CLK_TCK);
  return (utime + stime) * 1'000'000'000ULL / static_cast<unsigned long long>(ticks > 0 ? ticks : 100);
}

// One figure of one round.
struct figure {
  histogram latency;
  std::uint64_t ops = 0;
  std::uint64_t errors = 0;
  std::uint64_t cpu_ns = 0;
  std::uint64_t elapsed_ns = 0;
  std::uint64_t allocations = 0;
  std::uint64_t requests = 0;   // the requests `allocations` and `server_ns` were counted over (warmup included)
  std::uint64_t server_ns = 0;  // the server's CPU time over the same span

  void add(const op_report& r, std::uint64_t allocs, std::uint64_t warmup, std::uint64_t server) {
    latency.merge(r.latency);
    ops += r.latency.count();
    errors += r.errors;
    cpu_ns += r.cpu_ns;
    elapsed_ns += r.elapsed_ns;
    allocations += allocs;
    requests += r.latency.count() + r.errors + warmup;
    server_ns += server;
  }
  [[nodiscard]] double p(double q) const { return static_cast<double>(latency.value_at_percentile(q)) / 1000.0; }
  [[nodiscard]] double cpu_us() const {
    return ops == 0 ? 0 : static_cast<double>(cpu_ns) / 1000.0 / static_cast<double>(ops);
  }
  [[nodiscard]] double server_cpu_us() const {
    return requests == 0 ? 0 : static_cast<double>(server_ns) / 1000.0 / static_cast<double>(requests);
  }
  [[nodiscard]] double throughput() const {
    return elapsed_ns == 0 ? 0 : static_cast<double>(ops) * 1e9 / static_cast<double>(elapsed_ns);
  }
  // CPUs kept busy by client and server together while measuring (with the server's pid).
  [[nodiscard]] double busy_cpus() const {
    if (elapsed_ns == 0) return 0;
    // The server's time over the measured requests only (the share of `requests` that `ops` are).
    const double server =
        requests == 0 ? 0 : static_cast<double>(server_ns) * static_cast<double>(ops) / static_cast<double>(requests);
    return (static_cast<double>(cpu_ns) + server) / static_cast<double>(elapsed_ns);
  }
  [[nodiscard]] double allocs_per_op() const {
    return requests == 0 ? 0 : static_cast<double>(allocations) / static_cast<double>(requests);
  }
};

// figures[implementation][metric name][round]
using table = std::map<std::string, std::map<std::string, std::vector<figure>>>;

constexpr const char* zk = "zkwire";
constexpr const char* c_shipped = "C";
constexpr const char* c_tuned = "C tuned";

settings parse(int argc, char** argv) {
  settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "-s" || a == "--servers") {
      s.servers = value();
    } else if (a == "--rounds") {
      s.rounds = std::stoi(value());
    } else if (a == "-n") {
      s.sync_ops = std::stoull(value());
    } else if (a == "--pipelined") {
      s.pipelined_ops = std::stoull(value());
    } else if (a == "--data-size") {
      s.data_size = std::stoull(value());
    } else if (a == "--server-pid") {
      s.server_pid = std::stoi(value());
    } else {
      throw std::invalid_argument("unknown argument " + a +
                                  " (usage: zkwire_e2e_compare -s HOST:PORT [--rounds R] [-n SYNC_OPS] "
                                  "[--pipelined OPS] [--data-size BYTES] [--server-pid PID])");
    }
  }
  if (s.servers.empty()) throw std::invalid_argument("-s HOST:PORT is required");
  if (s.rounds < 1) throw std::invalid_argument("--rounds must be at least 1");
  return s;
}

std::string sync_key(op_kind op) { return "sync " + std::string(op_name(op)); }
std::string pipelined_key(op_kind op, std::uint64_t window) {
  return "pipelined " + std::string(op_name(op)) + " W=" + std::to_string(window);
}

// zkwire's runner with one session; counts the process's allocations over the measured call, whose requests are
// the warmup's (returned in `warmup`) and the measured ones.
op_report run_zkwire(runner& r, op_kind op, std::uint64_t ops, std::uint64_t window, std::uint64_t& allocations,
                     std::uint64_t& warmup) {
  r.config().ops = ops;
  r.config().window = window;
  r.config().warmup = warmup = std::min<std::uint64_t>(ops / 10, 200);
  const auto before = zkwire::bench::heap_allocations();
  auto report = std::move(r.run(op).front());
  allocations = zkwire::bench::heap_allocations() - before;
  return report;
}

void measure(const settings& s, table& t) {
  run_config config;
  config.servers = s.servers;
  config.data_size = s.data_size;
  config.series = false;  // the C client keeps no time series either; no rows allocated during a measurement
  // zkwire's session is driven only during its own phases (the runner runs its loop then): it must outlive the C
  // clients' phases in between, several seconds each on a loaded machine, without a ping. The C clients ping from
  // their own threads.
  config.session_timeout = std::chrono::seconds(60);
  runner zkwire_runner(config);
  c_client shipped(s.servers, false, s.data_size);
  c_client tuned(s.servers, true, s.data_size);
  const std::string node = zkwire_runner.node_of(0);  // get/exists/set: the same node for everyone
  const std::string& parent = node;                   // create/delete: C's nodes next to zkwire's
  const auto rounds = static_cast<std::size_t>(s.rounds);
  auto slot = [&](const char* impl, const std::string& key, std::size_t round) -> figure& {
    auto& v = t[impl][key];
    v.resize(rounds);
    return v[round];
  };
  auto server_cpu = [&] { return process_cpu_ns_of(s.server_pid); };

  const op_kind sync_ops[] = {op_kind::get, op_kind::exists, op_kind::set, op_kind::create, op_kind::remove};
  for (std::size_t round = 0; round < rounds; ++round) {
    std::fprintf(stderr, "round %zu/%d: sync\n", round + 1, s.rounds);
    for (const op_kind op : sync_ops) {
      // zkwire, C, C tuned in even rounds; the reverse in odd ones.
      for (int k = 0; k < 3; ++k) {
        const int which = round % 2 == 0 ? k : 2 - k;
        if (which == 0) {
          std::uint64_t allocs = 0;
          std::uint64_t warmup = 0;
          const auto server_before = server_cpu();
          auto r = run_zkwire(zkwire_runner, op, s.sync_ops, 1, allocs, warmup);
          slot(zk, sync_key(op), round).add(r, allocs, warmup, server_cpu() - server_before);
        } else {
          c_client& c = which == 1 ? shipped : tuned;
          // A short warmup, as zkwire gets.
          if (op != op_kind::create && op != op_kind::remove)
            c.run_sync(op, std::min<std::uint64_t>(s.sync_ops / 10, 200), node, parent);
          const auto server_before = server_cpu();
          auto r = c.run_sync(op, s.sync_ops, node, parent);
          slot(c.name().c_str(), sync_key(op), round).add(r, 0, 0, server_cpu() - server_before);
        }
      }
    }
    std::fprintf(stderr, "round %zu/%d: pipelined\n", round + 1, s.rounds);
    for (const op_kind op : {op_kind::get, op_kind::create}) {
      for (const std::uint64_t window : {1U, 16U, 128U}) {
        const std::uint64_t ops = window == 1 ? s.pipelined_ops / 4 : s.pipelined_ops;
        for (int k = 0; k < 3; ++k) {
          const int which = round % 2 == 0 ? k : 2 - k;
          if (which == 0) {
            std::uint64_t allocs = 0;
            std::uint64_t warmup = 0;
            const auto server_before = server_cpu();
            auto r = run_zkwire(zkwire_runner, op, ops, window, allocs, warmup);
            slot(zk, pipelined_key(op, window), round).add(r, allocs, warmup, server_cpu() - server_before);
            if (op == op_kind::create) {  // untimed cleanup: the created nodes and (the removal's warmup) the warmup's
              std::uint64_t ignored = 0;
              run_zkwire(zkwire_runner, op_kind::remove, r.latency.count(), 64, ignored, ignored);
            }
          } else {
            c_client& c = which == 1 ? shipped : tuned;
            const auto server_before = server_cpu();
            auto r = c.run_pipelined(op, ops, window, node, parent);
            slot(c.name().c_str(), pipelined_key(op, window), round).add(r, 0, 0, server_cpu() - server_before);
            if (op == op_kind::create) c.remove_created();
          }
        }
      }
    }
  }
}

double ratio(double a, double b) { return b == 0 ? 0 : a / b; }

// The median and the range of per-round values.
struct spread {
  double median = 0;
  double min = 0;
  double max = 0;
};
spread spread_of(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return {median, v.front(), v.back()};
}

std::string format(const spread& s, const char* number_format, bool range) {
  auto one = [&](double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, number_format, x);
    return std::string(buf);
  };
  std::string text = one(s.median);
  if (range) text += " (" + one(s.min) + "–" + one(s.max) + ")";
  return text;
}

template <class Value>
void print_row(table& t, const std::string& key, const std::string& label, Value value, const char* number_format,
               std::size_t rounds) {
  auto per_round = [&](const char* impl) {
    std::vector<double> v;
    for (const figure& f : t[impl][key]) v.push_back(value(f));
    v.resize(rounds);
    return v;
  };
  const auto a = per_round(zk);
  const auto b = per_round(c_shipped);
  const auto c = per_round(c_tuned);
  std::vector<double> ab;
  std::vector<double> ac;
  for (std::size_t i = 0; i < rounds; ++i) {
    ab.push_back(ratio(a[i], b[i]));
    ac.push_back(ratio(a[i], c[i]));
  }
  const bool range = rounds > 1;
  std::printf("| %s | %s | %s | %s | %s | %s |\n", label.c_str(), format(spread_of(a), number_format, range).c_str(),
              format(spread_of(b), number_format, range).c_str(), format(spread_of(c), number_format, range).c_str(),
              format(spread_of(ab), "%.2f", range).c_str(), format(spread_of(ac), "%.2f", range).c_str());
}

// The median over the rounds of the per-round ratio value(zkwire) / value(other).
template <class Value>
double median_ratio(table& t, const std::string& key, const char* other, Value value) {
  std::vector<double> v;
  const auto& mine = t[zk][key];
  const auto& theirs = t[other][key];
  for (std::size_t i = 0; i < mine.size() && i < theirs.size(); ++i)
    v.push_back(ratio(value(mine[i]), value(theirs[i])));
  return spread_of(v).median;
}

void print(const settings& s, table& t) {
  const auto rounds = static_cast<std::size_t>(s.rounds);
  const bool server = s.server_pid > 0;
  if (rounds > 1) {
    std::printf(
        "Each cell: the median of %zu rounds (min–max); a ratio is taken within each round, then its median.\n\n",
        rounds);
  }
  std::printf("| figure | zkwire | C | C tuned | zkwire / C | zkwire / C tuned |\n|---|---:|---:|---:|---:|---:|\n");
  const auto p50 = [](const figure& f) { return f.p(50); };
  const auto p99 = [](const figure& f) { return f.p(99); };
  const auto cpu = [](const figure& f) { return f.cpu_us(); };
  const auto server_cpu = [](const figure& f) { return f.server_cpu_us(); };
  const auto throughput = [](const figure& f) { return f.throughput(); };
  const auto busy = [](const figure& f) { return f.busy_cpus(); };
  for (const op_kind op : {op_kind::get, op_kind::exists, op_kind::set, op_kind::create, op_kind::remove}) {
    const std::string k = sync_key(op);
    print_row(t, k, k + " p50 (us)", p50, "%.1f", rounds);
    print_row(t, k, k + " p99 (us)", p99, "%.1f", rounds);
    print_row(t, k, k + " CPU per op (us)", cpu, "%.1f", rounds);
  }
  for (const op_kind op : {op_kind::get, op_kind::create}) {
    for (const std::uint64_t window : {1U, 16U, 128U}) {
      const std::string k = pipelined_key(op, window);
      print_row(t, k, k + " (ops/s)", throughput, "%.0f", rounds);
      print_row(t, k, k + " CPU per op (us)", cpu, "%.1f", rounds);
      if (server) {
        print_row(t, k, k + " server CPU per op (us)", server_cpu, "%.1f", rounds);
        print_row(t, k, k + " busy CPUs, client + server", busy, "%.2f", rounds);
      }
    }
  }
  std::printf("\nzkwire heap allocations per request (whole process, warmup included):");
  for (auto& [name, figures] : t[zk]) {
    std::uint64_t allocations = 0;
    std::uint64_t requests = 0;
    for (const figure& f : figures) {
      allocations += f.allocations;
      requests += f.requests;
    }
    std::printf(" %s %.2f;", name.c_str(),
                requests == 0 ? 0.0 : static_cast<double>(allocations) / static_cast<double>(requests));
  }
  std::printf(
      "\n(get: the result's data; set: the caller's copy of the data; create: the caller's path and data and the\n"
      "created path returned. The API takes path and data by value and returns owned strings; the client adds "
      "none.)\n");
  std::uint64_t errors = 0;
  for (auto& [impl, figures] : t) {
    for (auto& [name, per_round] : figures) {
      for (const figure& f : per_round) errors += f.errors;
    }
  }
  std::printf("errors: %llu; rounds: %d; sync ops per round and implementation: %llu; pipelined: %llu (W=1: %llu)\n",
              static_cast<unsigned long long>(errors), s.rounds, static_cast<unsigned long long>(s.sync_ops),
              static_cast<unsigned long long>(s.pipelined_ops), static_cast<unsigned long long>(s.pipelined_ops / 4));
  if (server) {
    std::printf(
        "busy CPUs: the client's and the server's CPU time over the phase's wall time; near the machine's %ld CPUs "
        "the\nthroughput is bound by the machine the two share, not by the client.\n",
        sysconf(_SC_NPROCESSORS_ONLN));
  }

  const std::string sg = sync_key(op_kind::get);
  const std::string pg = pipelined_key(op_kind::get, 128);
  const std::string pc = pipelined_key(op_kind::create, 128);
  auto target = [](const char* what, double value, double limit, bool at_most) {
    value = std::round(value * 100) / 100;  // judged as printed
    const bool met = at_most ? value <= limit : value >= limit;
    std::printf("| %s | %.2f | %s %.2f | %s |\n", what, value, at_most ? "<=" : ">=", limit, met ? "met" : "missed");
  };
  std::printf("\n| target (median of the per-round ratios) | measured | wanted | |\n|---|---:|---:|---|\n");
  target("sync get p50, zkwire / C", median_ratio(t, sg, c_shipped, p50), 0.9, true);
  target("sync get p50, zkwire / C tuned", median_ratio(t, sg, c_tuned, p50), 1.0, true);
  target("CPU per sync get, zkwire / C tuned", median_ratio(t, sg, c_tuned, cpu), 0.67, true);
  target("pipelined get W=128 throughput, zkwire / C", median_ratio(t, pg, c_shipped, throughput), 1.5, false);
  target("pipelined get W=128 throughput, zkwire / C tuned", median_ratio(t, pg, c_tuned, throughput), 1.5, false);
  target("pipelined create W=128 throughput, zkwire / C tuned", median_ratio(t, pc, c_tuned, throughput), 1.5, false);
  target("CPU per pipelined create W=128, zkwire / C tuned", median_ratio(t, pc, c_tuned, cpu), 0.67, true);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const settings s = parse(argc, argv);
    table t;
    measure(s, t);
    print(s, t);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkwire_e2e_compare: %s\n", e.what());
    return 1;
  }
}
