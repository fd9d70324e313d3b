// Contention metrics of the lock recipes, exported in Prometheus' text exposition format: a few contenders (lock
// objects on one client, each a coroutine) take one lock in turns, some with a short timeout; every lock object
// counts into one shared lock_metrics (the per-client aggregate) besides its own. At the end the metrics of the
// client and of each contender are printed to stdout, ready for node_exporter's textfile collector or a push.
// Usage: lock_metrics_example [host:port[,host:port...][/chroot]] [CONTENDERS] [ROUNDS]
// (default: $ZKWIRE_SERVERS, else 127.0.0.1:2181; 4 contenders, 5 rounds each).

#include <unistd.h>

#include <asio/co_spawn.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "zkwire/client/client.hpp"
#include "zkwire/recipes/lock.hpp"
#include "zkwire/recipes/lock_metrics.hpp"
#include "zkwire/recipes/metrics_exposition.hpp"

namespace {

using namespace std::chrono_literals;
constexpr auto tuple_awaitable = asio::experimental::as_tuple(asio::use_awaitable);

// One contender: `rounds` times, acquire (odd contenders give up after 20 ms), hold 10 ms, release.
asio::awaitable<void> contend(zkwire::recipes::lock& l, int index, int rounds) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (int round = 0; round < rounds; ++round) {
    const auto timeout = index % 2 == 1 ? std::chrono::milliseconds(20) : std::chrono::milliseconds(10000);
    auto acquire = l.async_acquire(timeout, tuple_awaitable);
    auto [ec] = co_await std::move(acquire);
    if (ec == zkwire::recipes::lock_errc::timeout) continue;
    if (ec) throw std::system_error(ec, "acquire");
    timer.expires_after(10ms);
    co_await timer.async_wait(asio::use_awaitable);
    co_await l.async_release(asio::use_awaitable);
  }
}

int run_example(int argc, char** argv) {
  const char* env = std::getenv("ZKWIRE_SERVERS");
  zkwire::client_options options;
  options.connect_string = argc > 1 ? argv[1] : (env != nullptr ? env : "127.0.0.1:2181");
  options.session_timeout = std::chrono::seconds(10);
  // A count that is not a positive number becomes 0 and is refused below.
  const auto count = [&](int i, int fallback) {
    return argc > i ? static_cast<int>(std::strtol(argv[i], nullptr, 10)) : fallback;
  };
  const int contenders = count(2, 4);
  const int rounds = count(3, 5);
  if (contenders < 1 || rounds < 1) {
    std::fprintf(stderr, "usage: lock_metrics_example [SERVERS] [CONTENDERS >= 1] [ROUNDS >= 1]\n");
    return 2;
  }

  asio::io_context io;
  zkwire::client zk(io.get_executor(), options);
  // The per-client aggregate: every lock object of this client counts into it. The observer sees each event.
  std::uint64_t lost = 0;
  auto per_client =
      std::make_shared<zkwire::recipes::lock_metrics>([&lost](const zkwire::recipes::lock_metric_record& r) {
        if (r.event == zkwire::recipes::lock_metric_event::lost) ++lost;  // e.g. page someone
      });
  zkwire::recipes::lock_options lock_opts;
  lock_opts.metrics = per_client;
  const std::string directory = "/zkwire-metrics-example-" + std::to_string(::getpid());
  std::vector<std::unique_ptr<zkwire::recipes::lock>> locks;
  locks.reserve(static_cast<std::size_t>(contenders));
  for (int i = 0; i < contenders; ++i)
    locks.push_back(std::make_unique<zkwire::recipes::lock>(zk, directory, lock_opts));

  int status = 0;
  int running = contenders;
  for (int i = 0; i < contenders; ++i) {
    asio::co_spawn(io, contend(*locks[static_cast<std::size_t>(i)], i, rounds), [&](const std::exception_ptr& error) {
      if (error) {
        try {
          std::rethrow_exception(error);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "lock_metrics_example: %s\n", e.what());
          status = 1;
        }
      }
      if (--running == 0) zk.async_close([](std::error_code) {});
    });
  }
  io.run();  // returns once every contender is done and the session is closed

  std::vector<zkwire::recipes::labelled_snapshot> series;
  series.emplace_back("client", per_client->snapshot());
  for (int i = 0; i < contenders; ++i) {
    series.emplace_back("contender-" + std::to_string(i), locks[static_cast<std::size_t>(i)]->metrics()->snapshot());
  }
  locks.clear();
  const std::string text = zkwire::recipes::prometheus_text(series);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (lost != 0) std::fprintf(stderr, "lock_metrics_example: %llu holds lost\n", static_cast<unsigned long long>(lost));
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_example(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lock_metrics_example: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "lock_metrics_example: unknown error\n");
  }
  return 1;
}
