// zkwire_e2e_compare: zkwire against the ZooKeeper C client (libzookeeper_mt, as shipped and tuned) on the same
// server, in one run, interleaved A B C / C B A round by round so that drift on a shared machine hits all alike.
//
//   zkwire_e2e_compare -s HOST:PORT [--rounds R] [-n SYNC_OPS] [--pipelined OPS] [--data-size BYTES]
//
// Prints a markdown table: sync get/exists/set/create/delete p50 and p99 (one request at a time: zkwire's async
// client with a window of 1, the C client's zoo_get etc.), pipelined get and create throughput at windows 1, 16
// and 128 (zoo_aget / zoo_acreate with completion counting), client CPU time per op (the whole process), heap
// allocations per zkwire op (every operator new of the process during zkwire's phases, result payloads
// included), and the ratios zkwire / C. Then the performance targets (docs/design.md#performance-targets) with "met" or
// "missed".

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

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
};

// One figure accumulated over the rounds.
struct figure {
  histogram latency;
  std::uint64_t ops = 0;
  std::uint64_t errors = 0;
  std::uint64_t cpu_ns = 0;
  std::uint64_t elapsed_ns = 0;
  std::uint64_t allocations = 0;
  std::uint64_t requests = 0;  // the requests `allocations` were counted over (warmup included)

  void add(const op_report& r, std::uint64_t allocs = 0, std::uint64_t warmup = 0) {
    latency.merge(r.latency);
    ops += r.latency.count();
    errors += r.errors;
    cpu_ns += r.cpu_ns;
    elapsed_ns += r.elapsed_ns;
    allocations += allocs;
    requests += r.latency.count() + r.errors + warmup;
  }
  [[nodiscard]] double p(double q) const { return static_cast<double>(latency.value_at_percentile(q)) / 1000.0; }
  [[nodiscard]] double cpu_us() const {
    return ops == 0 ? 0 : static_cast<double>(cpu_ns) / 1000.0 / static_cast<double>(ops);
  }
  [[nodiscard]] double throughput() const {
    return elapsed_ns == 0 ? 0 : static_cast<double>(ops) * 1e9 / static_cast<double>(elapsed_ns);
  }
  [[nodiscard]] double allocs_per_op() const {
    return requests == 0 ? 0 : static_cast<double>(allocations) / static_cast<double>(requests);
  }
};

// figures[implementation][metric name]
using table = std::map<std::string, std::map<std::string, figure>>;

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
    } else {
      throw std::invalid_argument("unknown argument " + a +
                                  " (usage: zkwire_e2e_compare -s HOST:PORT [--rounds R] [-n SYNC_OPS] "
                                  "[--pipelined OPS] [--data-size BYTES])");
    }
  }
  if (s.servers.empty()) throw std::invalid_argument("-s HOST:PORT is required");
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
  runner zkwire_runner(config);
  c_client shipped(s.servers, false, s.data_size);
  c_client tuned(s.servers, true, s.data_size);
  const std::string node = zkwire_runner.node_of(0);  // get/exists/set: the same node for everyone
  const std::string& parent = node;                   // create/delete: C's nodes next to zkwire's

  const op_kind sync_ops[] = {op_kind::get, op_kind::exists, op_kind::set, op_kind::create, op_kind::remove};
  for (int round = 0; round < s.rounds; ++round) {
    std::fprintf(stderr, "round %d/%d: sync\n", round + 1, s.rounds);
    for (const op_kind op : sync_ops) {
      // zkwire, C, C tuned in even rounds; the reverse in odd ones.
      for (int k = 0; k < 3; ++k) {
        const int which = round % 2 == 0 ? k : 2 - k;
        if (which == 0) {
          std::uint64_t allocs = 0;
          std::uint64_t warmup = 0;
          auto r = run_zkwire(zkwire_runner, op, s.sync_ops, 1, allocs, warmup);
          t[zk][sync_key(op)].add(r, allocs, warmup);
        } else {
          c_client& c = which == 1 ? shipped : tuned;
          // A short warmup, as zkwire gets.
          if (op != op_kind::create && op != op_kind::remove)
            c.run_sync(op, std::min<std::uint64_t>(s.sync_ops / 10, 200), node, parent);
          t[c.name()][sync_key(op)].add(c.run_sync(op, s.sync_ops, node, parent));
        }
      }
    }
    std::fprintf(stderr, "round %d/%d: pipelined\n", round + 1, s.rounds);
    for (const op_kind op : {op_kind::get, op_kind::create}) {
      for (const std::uint64_t window : {1U, 16U, 128U}) {
        const std::uint64_t ops = window == 1 ? s.pipelined_ops / 4 : s.pipelined_ops;
        for (int k = 0; k < 3; ++k) {
          const int which = round % 2 == 0 ? k : 2 - k;
          if (which == 0) {
            std::uint64_t allocs = 0;
            std::uint64_t warmup = 0;
            auto r = run_zkwire(zkwire_runner, op, ops, window, allocs, warmup);
            t[zk][pipelined_key(op, window)].add(r, allocs, warmup);
            if (op ==
                op_kind::create) {  // untimed cleanup: the created nodes and the warmup's (the removal's own warmup)
              std::uint64_t ignored = 0;
              run_zkwire(zkwire_runner, op_kind::remove, r.latency.count(), 64, ignored, ignored);
            }
          } else {
            c_client& c = which == 1 ? shipped : tuned;
            t[c.name()][pipelined_key(op, window)].add(c.run_pipelined(op, ops, window, node, parent));
            if (op == op_kind::create) c.remove_created();
          }
        }
      }
    }
  }
}

double ratio(double a, double b) { return b == 0 ? 0 : a / b; }

void print(const settings& s, table& t) {
  std::printf("| figure | zkwire | C | C tuned | zkwire / C | zkwire / C tuned |\n|---|---:|---:|---:|---:|---:|\n");
  auto row = [&](const std::string& name, auto value, const char* format) {
    const double a = value(t[zk][name.substr(0, name.find('|'))]);
    const double b = value(t[c_shipped][name.substr(0, name.find('|'))]);
    const double c = value(t[c_tuned][name.substr(0, name.find('|'))]);
    std::string label = name;
    if (const auto bar = label.find('|'); bar != std::string::npos)
      label = label.substr(0, bar) + label.substr(bar + 1);
    std::printf("| %s | ", label.c_str());
    std::printf(format, a);
    std::printf(" | ");
    std::printf(format, b);
    std::printf(" | ");
    std::printf(format, c);
    std::printf(" | %.2f | %.2f |\n", ratio(a, b), ratio(a, c));
  };
  for (const op_kind op : {op_kind::get, op_kind::exists, op_kind::set, op_kind::create, op_kind::remove}) {
    const std::string k = sync_key(op);
    row(
        k + "| p50 (us)", [](const figure& f) { return f.p(50); }, "%.1f");
    row(
        k + "| p99 (us)", [](const figure& f) { return f.p(99); }, "%.1f");
    row(
        k + "| CPU per op (us)", [](const figure& f) { return f.cpu_us(); }, "%.1f");
  }
  for (const op_kind op : {op_kind::get, op_kind::create}) {
    for (const std::uint64_t window : {1U, 16U, 128U}) {
      const std::string k = pipelined_key(op, window);
      row(
          k + "| (ops/s)", [](const figure& f) { return f.throughput(); }, "%.0f");
      row(
          k + "| CPU per op (us)", [](const figure& f) { return f.cpu_us(); }, "%.1f");
    }
  }
  std::printf("\nzkwire heap allocations per op (whole process, result payloads included):");
  for (auto& [name, f] : t[zk]) std::printf(" %s %.2f;", name.c_str(), f.allocs_per_op());
  std::uint64_t errors = 0;
  for (auto& [impl, figures] : t) {
    for (auto& [name, f] : figures) errors += f.errors;
  }
  std::printf("\nerrors: %llu; rounds: %d; sync ops per round and implementation: %llu; pipelined: %llu (W=1: %llu)\n",
              static_cast<unsigned long long>(errors), s.rounds, static_cast<unsigned long long>(s.sync_ops),
              static_cast<unsigned long long>(s.pipelined_ops), static_cast<unsigned long long>(s.pipelined_ops / 4));

  const figure& zg = t[zk][sync_key(op_kind::get)];
  const figure& cg = t[c_shipped][sync_key(op_kind::get)];
  const figure& tg = t[c_tuned][sync_key(op_kind::get)];
  const figure& zp = t[zk][pipelined_key(op_kind::get, 128)];
  const figure& cp = t[c_shipped][pipelined_key(op_kind::get, 128)];
  const figure& tp = t[c_tuned][pipelined_key(op_kind::get, 128)];
  auto target = [](const char* what, double value, double limit, bool at_most) {
    const bool met = at_most ? value <= limit : value >= limit;
    std::printf("| %s | %.2f | %s %.2f | %s |\n", what, value, at_most ? "<=" : ">=", limit, met ? "met" : "missed");
  };
  std::printf("\n| target | measured | wanted | |\n|---|---:|---:|---|\n");
  target("sync get p50, zkwire / C", ratio(zg.p(50), cg.p(50)), 0.9, true);
  target("sync get p50, zkwire / C tuned", ratio(zg.p(50), tg.p(50)), 1.0, true);
  target("CPU per sync get, zkwire / C tuned", ratio(zg.cpu_us(), tg.cpu_us()), 0.67, true);
  target("pipelined get W=128 throughput, zkwire / C", ratio(zp.throughput(), cp.throughput()), 1.5, false);
  target("pipelined get W=128 throughput, zkwire / C tuned", ratio(zp.throughput(), tp.throughput()), 1.5, false);
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
