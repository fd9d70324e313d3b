// zkwire_election_bench: leader failover of zkwire's election recipe, the zkwire side of bench/election_compare.py
// (bench/CuratorElectionBench.java is Curator's, timed the same way).
//
//   zkwire_election_bench -s HOST:PORT handoff [-n COUNT] [--warmup W] [--settle MS] [--naming latch|lock|kazoo]
//       Two participants, each on a client (session) of its own with a thread of its own (as each of Curator's
//       clients has its own threads): the leader leaves (async_leave: its node deleted), the other one leads, the
//       one that left joins again behind it, and so on, COUNT times after W untimed ones. Timed, on the leader's
//       thread from the call that leaves (Curator: LeaderLatch.close()) to the moment the other participant's
//       listener hears `gained` (where an application starts leading); joining again comes after that, untimed, on
//       both sides. Before each handoff the follower is queued and gets MS (default 20) untimed to settle (its
//       listing and watch done), and its client watches the leader's node (exists) to note when the notification
//       of its deletion arrives. Prints three JSON lines {"op":OP,"count":N,"p50_us":X,"p99_us":X,"mean_us":X}:
//       handoff (the whole), notified (leave -> the follower's client hears of the deletion: the delete's commit
//       and the notification) and after_notified (that -> `gained`: the recipe's own requests and work).
//   zkwire_election_bench -s HOST:PORT participant PATH SESSION_MS [--naming latch|lock|kazoo]
//       One participant with a session of SESSION_MS: prints "joined" once its node is queued, then "leader NS" when
//       its listener hears `gained` (NS: steady_clock, CLOCK_MONOTONIC, which the script reads too), and stays until
//       it is killed or its stdin closes. The script kills one with SIGKILL and times the next one.
//
// handoff works under /zkwire-election-bench-<pid> (removed at the end). Exit status 1 with a message on stderr on any
// failure.

#include <unistd.h>

#include <array>
#include <asio/co_spawn.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "samples.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/recipes/election.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct config {
  std::string servers = "127.0.0.1:2181";
  std::string mode;
  std::size_t count = 300;
  std::size_t warmup = 100;
  std::chrono::milliseconds settle{20};
  zkwire::recipes::election_naming naming = zkwire::recipes::election_naming::latch;
  std::string path;                     // participant
  std::chrono::milliseconds session{};  // participant
};

int fail(const std::string& what) {
  std::fprintf(stderr, "zkwire_election_bench: %s\n", what.c_str());
  return 1;
}

asio::awaitable<void> sleep_for(std::chrono::milliseconds d) {
  asio::steady_timer timer(co_await asio::this_coro::executor, d);
  co_await timer.async_wait(asio::use_awaitable);
}

zkwire::recipes::election_options options_for(const config& cfg, std::string id) {
  zkwire::recipes::election_options options;
  options.id = std::move(id);
  options.name_format = cfg.naming;
  return options;
}

// One participant whose listener notes when it was told it leads (on its client's thread; read by the driver).
struct timed_participant {
  timed_participant(zkwire::client& c, const std::string& path, zkwire::recipes::election_options options)
      : e(c, path, std::move(options)) {
    e.set_listener([this](const zkwire::recipes::leadership_event& ev) {
      if (ev.change != zkwire::recipes::leadership_change::gained) return;
      told_ns.store(now_ns());
      led.store(true);
    });
  }
  static std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now().time_since_epoch()).count();
  }
  zkwire::recipes::election e;
  std::atomic<std::int64_t> told_ns{0};
  std::atomic<bool> led{false};
};

// A client with a thread of its own running its executor.
struct threaded_client {
  explicit threaded_client(const config& cfg) : c(io.get_executor(), client_options(cfg)) {
    runner = std::thread([this] { io.run(); });
  }
  ~threaded_client() {
    asio::post(io, [this] { c.async_close([this](std::error_code) { work.reset(); }); });
    runner.join();
  }
  threaded_client(const threaded_client&) = delete;
  threaded_client& operator=(const threaded_client&) = delete;
  threaded_client(threaded_client&&) = delete;
  threaded_client& operator=(threaded_client&&) = delete;

  static zkwire::client_options client_options(const config& cfg) {
    zkwire::client_options options;
    options.connect_string = cfg.servers;
    return options;
  }
  // Runs `f` (returning an awaitable) on this client's thread and waits for it (its exception rethrown here).
  template <class F>
  auto run(F f) {
    return asio::co_spawn(io, std::move(f), asio::use_future).get();
  }

  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work = asio::make_work_guard(io);
  zkwire::client c;
  std::thread runner;
};

void handoff(const config& cfg, threaded_client& a, threaded_client& b, std::vector<double>& whole,
             std::vector<double>& notified, std::vector<double>& after) {
  const std::string path = "/zkwire-election-bench-" + std::to_string(::getpid());
  std::array<threaded_client*, 2> clients{&a, &b};
  // Made, used and destroyed on their clients' threads (also when a step fails).
  std::array<std::unique_ptr<timed_participant>, 2> sides;
  struct on_exit {
    std::array<threaded_client*, 2>& clients;
    std::array<std::unique_ptr<timed_participant>, 2>& sides;
    on_exit(std::array<threaded_client*, 2>& c, std::array<std::unique_ptr<timed_participant>, 2>& s)
        : clients(c), sides(s) {}
    on_exit(const on_exit&) = delete;
    on_exit& operator=(const on_exit&) = delete;
    on_exit(on_exit&&) = delete;
    on_exit& operator=(on_exit&&) = delete;
    ~on_exit() {
      for (std::size_t i = 0; i < 2; ++i) {
        try {
          clients[i]->run([&, i]() -> asio::awaitable<void> {
            sides[i].reset();
            co_return;
          });
        } catch (...) {  // NOLINT(bugprone-empty-catch): the measurement failed already; the session's end cleans up
        }
      }
    }
  } destroy_sides{clients, sides};
  for (std::size_t i = 0; i < 2; ++i) {
    clients[i]->run([&, i]() -> asio::awaitable<void> {
      sides[i] = std::make_unique<timed_participant>(clients[i]->c, path, options_for(cfg, i == 0 ? "a" : "b"));
      co_return;
    });
  }
  a.run([&]() -> asio::awaitable<void> { co_await sides[0]->e.async_await_leadership(asio::use_awaitable); });
  b.run([&]() -> asio::awaitable<void> { co_await sides[1]->e.async_join(asio::use_awaitable); });
  std::size_t leader = 0;
  for (std::size_t i = 0; i < cfg.warmup + cfg.count; ++i) {
    threaded_client& here = *clients[leader];
    threaded_client& there = *clients[1 - leader];
    timed_participant& current = *sides[leader];
    timed_participant& next = *sides[1 - leader];
    // The follower is queued (two participants listed) before the leader leaves.
    const std::string leader_node = here.run([&]() -> asio::awaitable<std::string> {
      for (;;) {
        auto [ec, listing] = co_await current.e.async_participants(asio::experimental::as_tuple(asio::use_awaitable));
        if (ec) throw std::system_error(ec, "participants");
        if (listing.size() == 2) co_return current.e.node_path();
        co_await sleep_for(1ms);
      }
    });
    // The follower's client hears of the leader node's deletion through a watch of its own too: when it does is
    // the notification's arrival (the election's watch on that node is older, so it is called first).
    auto notified_ns = std::make_shared<std::atomic<std::int64_t>>(0);
    there.run([&]() -> asio::awaitable<void> {
      // Named, outside the co_await expression: GCC 12 destroys a temporary closure with captures made inside one
      // twice (recipes/src/acquire.cpp says the same).
      zkwire::watch_callback on_event = [notified_ns](const zkwire::watch_event& ev) {
        if (ev.type == zkwire::event_type::node_deleted) notified_ns->store(timed_participant::now_ns());
      };
      auto look =
          there.c.async_exists(leader_node, std::move(on_event), asio::experimental::as_tuple(asio::use_awaitable));
      auto [ec, st] = co_await std::move(look);
      if (ec || !st) throw std::runtime_error("the leader's node is not there to watch");
    });
    std::this_thread::sleep_for(cfg.settle);
    next.led.store(false);
    const std::int64_t start_ns = here.run([&]() -> asio::awaitable<std::int64_t> {
      const std::int64_t at = timed_participant::now_ns();
      co_await current.e.async_leave(asio::use_awaitable);
      co_return at;
    });
    while (!next.led.load()) std::this_thread::sleep_for(100us);
    while (notified_ns->load() == 0) std::this_thread::sleep_for(100us);
    if (i >= cfg.warmup) {
      const std::int64_t told = next.told_ns.load();
      const std::int64_t heard = notified_ns->load();
      whole.push_back(static_cast<double>(told - start_ns) / 1e3);
      notified.push_back(static_cast<double>(heard - start_ns) / 1e3);
      after.push_back(static_cast<double>(told - heard) / 1e3);
    }
    // Back in the queue, untimed (Curator's side starts a new latch here).
    here.run([&]() -> asio::awaitable<void> { co_await current.e.async_join(asio::use_awaitable); });
    leader = 1 - leader;
  }
  for (std::size_t i = 0; i < 2; ++i) {
    clients[i]->run([&, i]() -> asio::awaitable<void> { co_await sides[i]->e.async_leave(asio::use_awaitable); });
  }
  a.run([&]() -> asio::awaitable<void> {
    auto [ec] = co_await a.c.async_remove(path, zkwire::any_version, asio::experimental::as_tuple(asio::use_awaitable));
    (void)ec;  // a container the server may have reaped already
  });
}

int run_handoff(const config& cfg) {
  std::vector<double> whole;
  std::vector<double> notified;
  std::vector<double> after;
  try {
    threaded_client a(cfg);
    threaded_client b(cfg);
    handoff(cfg, a, b, whole, notified, after);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  zkwire::bench::print_samples("handoff", whole);
  zkwire::bench::print_samples("notified", notified);
  zkwire::bench::print_samples("after_notified", after);
  return 0;
}

// Joins, says so, says when it leads, and stays until stdin closes (or SIGKILL).
int run_participant(const config& cfg) {
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  zkwire::client_options options;
  options.connect_string = cfg.servers;
  options.session_timeout = cfg.session;
  zkwire::client c(io.get_executor(), options);
  zkwire::recipes::election e(c, cfg.path, options_for(cfg, "participant-" + std::to_string(::getpid())));
  e.set_listener([](const zkwire::recipes::leadership_event& ev) {
    if (ev.change != zkwire::recipes::leadership_change::gained) return;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now().time_since_epoch());
    std::printf("leader %lld\n", static_cast<long long>(ns.count()));
    std::fflush(stdout);
  });
  std::error_code join_error;
  e.async_join([&](std::error_code ec) {
    join_error = ec;
    if (ec) {
      work.reset();
      io.stop();
      return;
    }
    std::printf("joined\n");
    std::fflush(stdout);
  });
  std::thread stdin_reader([&] {
    while (std::getchar() != EOF) {
    }
    asio::post(io, [&] {
      e.close();
      c.async_close([&](std::error_code) { work.reset(); });
    });
  });
  io.run();
  if (join_error) {
    stdin_reader.detach();  // blocked in getchar; the process ends
    return fail("join: " + join_error.message());
  }
  stdin_reader.join();
  return 0;
}

bool parse_naming(const std::string& text, zkwire::recipes::election_naming& out) {
  for (const auto n : {zkwire::recipes::election_naming::latch, zkwire::recipes::election_naming::lock,
                       zkwire::recipes::election_naming::kazoo}) {
    if (text == zkwire::recipes::election_naming_name(n)) {
      out = n;
      return true;
    }
  }
  return false;
}

constexpr const char* usage =
    "usage: zkwire_election_bench -s HOST:PORT handoff [-n COUNT] [--warmup W] [--settle MS] [--naming N]\n"
    "       zkwire_election_bench -s HOST:PORT participant PATH SESSION_MS [--naming N]";

}  // namespace

int main(int argc, char** argv) {
  config cfg;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("-")) {
      if (i + 1 >= argc) return fail("missing value for " + arg + "\n" + usage);
      const std::string value = argv[++i];
      if (arg == "-s") {
        cfg.servers = value;
      } else if (arg == "-n") {
        cfg.count = std::strtoul(value.c_str(), nullptr, 10);
      } else if (arg == "--warmup") {
        cfg.warmup = std::strtoul(value.c_str(), nullptr, 10);
      } else if (arg == "--settle") {
        cfg.settle = std::chrono::milliseconds(std::strtol(value.c_str(), nullptr, 10));
      } else if (arg == "--naming") {
        if (!parse_naming(value, cfg.naming)) return fail("--naming takes latch, lock or kazoo");
      } else {
        return fail(usage);
      }
    } else {
      positional.push_back(arg);
    }
  }
  try {
    if (positional.size() == 1 && positional[0] == "handoff" && cfg.count > 0) return run_handoff(cfg);
    if (positional.size() == 3 && positional[0] == "participant") {
      cfg.path = positional[1];
      cfg.session = std::chrono::milliseconds(std::strtol(positional[2].c_str(), nullptr, 10));
      return run_participant(cfg);
    }
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return fail(usage);
}
