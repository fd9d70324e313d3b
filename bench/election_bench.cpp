// zkwire_election_bench: leader failover of zkwire's election recipe, the zkwire side of bench/election_compare.py
// (bench/CuratorElectionBench.java is Curator's, timed the same way).
//
//   zkwire_election_bench -s HOST:PORT handoff [-n COUNT] [--warmup W] [--settle MS] [--naming latch|lock|kazoo]
//       Two participants, each on a client (session) of its own, on one election path: the leader relinquishes
//       (deletes its node and queues again at the back), the other one leads, and so on, COUNT times after W untimed
//       ones. Timed: from the relinquish call to the moment the other participant's listener hears `gained` (where an
//       application starts leading). Before each handoff the follower is queued and gets MS (default 20) untimed to
//       settle (its listing and watch done). Prints {"op":"handoff","count":N,"p50_us":X,"p99_us":X,"mean_us":X}.
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
#include <asio/experimental/as_tuple.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
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

// Waits until `pred` holds, looking every millisecond (the time measured is taken where it happens, not here).
asio::awaitable<void> wait_until(const std::function<bool()>& pred) {
  while (!pred()) co_await sleep_for(1ms);
}

zkwire::recipes::election_options options_for(const config& cfg, std::string id) {
  zkwire::recipes::election_options options;
  options.id = std::move(id);
  options.name_format = cfg.naming;
  return options;
}

// One participant whose listener notes when it was told it leads.
struct timed_participant {
  timed_participant(zkwire::client& c, const std::string& path, zkwire::recipes::election_options options)
      : e(c, path, std::move(options)) {
    e.set_listener([this](const zkwire::recipes::leadership_event& ev) {
      if (ev.change != zkwire::recipes::leadership_change::gained) return;
      told = clock_type::now();
      led = true;
    });
  }
  zkwire::recipes::election e;
  clock_type::time_point told{};
  bool led = false;
};

asio::awaitable<void> handoff(const config& cfg, zkwire::client& a, zkwire::client& b, std::vector<double>& samples) {
  const std::string path = "/zkwire-election-bench-" + std::to_string(::getpid());
  timed_participant first(a, path, options_for(cfg, "a"));
  timed_participant second(b, path, options_for(cfg, "b"));
  std::array<timed_participant*, 2> sides{&first, &second};
  co_await first.e.async_await_leadership(asio::use_awaitable);
  co_await second.e.async_join(asio::use_awaitable);
  std::size_t leader = 0;
  for (std::size_t i = 0; i < cfg.warmup + cfg.count; ++i) {
    timed_participant& current = *sides[leader];
    timed_participant& next = *sides[1 - leader];
    // The follower is queued (two participants listed) and settled before the leader steps down.
    for (;;) {
      auto [ec, listing] = co_await current.e.async_participants(asio::experimental::as_tuple(asio::use_awaitable));
      if (ec) throw std::system_error(ec, "participants");
      if (listing.size() == 2) break;
      co_await sleep_for(1ms);
    }
    co_await sleep_for(cfg.settle);
    next.led = false;
    const auto start = clock_type::now();
    co_await current.e.async_relinquish(asio::use_awaitable);
    co_await wait_until([&] { return next.led; });
    if (i >= cfg.warmup) samples.push_back(std::chrono::duration<double, std::micro>(next.told - start).count());
    leader = 1 - leader;
  }
  co_await first.e.async_leave(asio::use_awaitable);
  co_await second.e.async_leave(asio::use_awaitable);
  auto [ec] = co_await a.async_remove(path, zkwire::any_version, asio::experimental::as_tuple(asio::use_awaitable));
  (void)ec;  // a container the server may have reaped already
}

int run_handoff(const config& cfg) {
  asio::io_context io;
  zkwire::client_options options;
  options.connect_string = cfg.servers;
  zkwire::client a(io.get_executor(), options);
  zkwire::client b(io.get_executor(), options);
  std::vector<double> samples;
  std::exception_ptr failure;
  bool done = false;
  asio::co_spawn(io, handoff(cfg, a, b, samples), [&](std::exception_ptr e) {
    failure = std::move(e);
    done = true;
    a.async_close([](std::error_code) {});
    b.async_close([](std::error_code) {});
  });
  io.run();
  if (!done) return fail("the loop stopped before the measurement ended");
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      return fail(e.what());
    }
  }
  zkwire::bench::print_samples("handoff", samples);
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
