// zkwire_lock_bench: the uncontended lock and semaphore against the bare requests they are made of, on one client
// and one server, interleaved, so that their ratio is measured under the same load.
//
//   zkwire_lock_bench -s HOST:PORT [-n CYCLES] [--warmup W] [--blocks B] [--leases N] [--only KIND]
//
// Four cycles, each one at a time on one session (latency: the whole cycle):
//   lock            zkwire::recipes::lock acquire + release (a create and a listing in one round trip, a delete)
//   create+delete   what the lock cannot do without: an EPHEMERAL_SEQUENTIAL create of a node named like a lock
//                   node ("_c_<uuid>-lock-"), in the same directory, with the same data (default_lock_data()) and
//                   ACL, then its delete
//   create+list+delete  the lock's own requests without the recipe: that create and a getChildren of the directory
//                   sent back to back (one round trip), both replies awaited, then the delete
//   semaphore       zkwire::recipes::semaphore (1 lease of N) acquire + release
// After W untimed cycles of each, the CYCLES measured ones of each are split into B blocks that take turns (the
// order rotating from block to block), so a change in the machine's load hits all three alike. Prints one JSON
// object per cycle kind: {"op":..., "count":N, "p50_us":X, "p99_us":X, "mean_us":X}, then
// {"op":"ratio", "lock_over_create_delete":X, "lock_over_create_list_delete":X} (ratios of the p50s). Works under
// /zkwire-lock-bench-<pid> (made persistent, so that no cycle pays for a reaped container directory), removed at the
// end. --only KIND runs
// one kind alone (to count what it sends, e.g. with the server's `stat` before and after). Exit status 1 with a message
// on stderr on any failure.

#include <unistd.h>

#include <algorithm>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "samples.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/recipes/lock.hpp"
#include "zkwire/recipes/node_name.hpp"
#include "zkwire/recipes/semaphore.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct config {
  std::string servers = "127.0.0.1:2181";
  std::size_t cycles = 500;
  std::size_t warmup = 20;
  std::size_t blocks = 10;
  std::int32_t leases = 4;
  std::string only;  // run this cycle kind only (e.g. to count the requests it sends); "" for all
};

using zkwire::bench::percentile;

void print(const char* op, const std::vector<double>& samples) { zkwire::bench::print_samples(op, samples); }

// What the cycles work on: one client, its lock and semaphore, and the reference node's name and data.
struct subjects {
  zkwire::client& c;
  zkwire::recipes::lock& l;
  zkwire::recipes::semaphore& s;
  std::string lock_dir;
  std::string reference_path;  // named like the lock's own node: "<dir>/_c_<uuid>-lock-"
  std::string data;            // the lock's node data (default_lock_data())
};

asio::awaitable<void> lock_cycle(subjects& x) {
  auto acquire = x.l.async_acquire(asio::use_awaitable);
  co_await std::move(acquire);
  auto release = x.l.async_release(asio::use_awaitable);
  co_await std::move(release);
}

zkwire::create_options ephemeral_sequential() {
  zkwire::create_options options;
  options.mode = zkwire::create_mode::ephemeral_sequential;
  return options;
}

asio::awaitable<void> create_delete_cycle(subjects& x) {
  auto create = x.c.async_create(x.reference_path, x.data, ephemeral_sequential(), asio::use_awaitable);
  const auto created = co_await std::move(create);
  auto remove = x.c.async_remove(created.path, zkwire::any_version, asio::use_awaitable);
  co_await std::move(remove);
}

// The lock's own requests without the recipe: the create and the listing back to back (one round trip), both
// replies awaited, then the delete.
asio::awaitable<void> create_list_delete_cycle(subjects& x) {
  struct join {
    explicit join(const asio::any_io_executor& executor) : both(executor, clock_type::time_point::max()) {}
    asio::steady_timer both;
    int replies = 0;
    std::error_code error;
    zkwire::create_result created;
    void arrive(std::error_code ec) {
      if (ec) error = ec;
      if (++replies == 2) both.cancel();
    }
  };
  auto state = std::make_shared<join>(x.c.get_executor());
  x.c.async_create(x.reference_path, x.data, ephemeral_sequential(),
                   [state](std::error_code ec, zkwire::create_result r) {
                     state->created = std::move(r);
                     state->arrive(ec);
                   });
  x.c.async_get_children(x.lock_dir,
                         [state](std::error_code ec, const zkwire::children_result&) { state->arrive(ec); });
  while (state->replies < 2) {
    auto wait = state->both.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    co_await std::move(wait);
  }
  if (state->error) throw std::system_error(state->error, "create+list");
  auto remove = x.c.async_remove(state->created.path, zkwire::any_version, asio::use_awaitable);
  co_await std::move(remove);
}

asio::awaitable<void> semaphore_cycle(subjects& x) {
  constexpr auto tuple_awaitable = asio::experimental::as_tuple(asio::use_awaitable);
  auto acquire = x.s.async_acquire(std::chrono::milliseconds(-1), tuple_awaitable);
  if (auto [ec] = co_await std::move(acquire); ec) throw std::system_error(ec, "semaphore acquire");
  auto release = x.s.async_release(tuple_awaitable);
  if (auto [ec] = co_await std::move(release); ec) throw std::system_error(ec, "semaphore release");
}

using cycle = asio::awaitable<void> (*)(subjects&);

asio::awaitable<void> measure(const config& cfg, subjects& x, const std::vector<cycle>& cycles,
                              std::vector<std::vector<double>>& out) {
  for (const cycle c : cycles) {
    for (std::size_t i = 0; i < cfg.warmup; ++i) {
      auto once = c(x);
      co_await std::move(once);
    }
  }
  const std::size_t per_block = std::max<std::size_t>(1, cfg.cycles / cfg.blocks);
  for (std::size_t block = 0; block * per_block < cfg.cycles; ++block) {
    const std::size_t count = std::min(per_block, cfg.cycles - block * per_block);
    for (std::size_t k = 0; k < cycles.size(); ++k) {
      const std::size_t which = (block + k) % cycles.size();
      for (std::size_t i = 0; i < count; ++i) {
        const auto start = clock_type::now();
        auto once = cycles[which](x);
        co_await std::move(once);
        out[which].push_back(std::chrono::duration<double, std::micro>(clock_type::now() - start).count());
      }
    }
  }
}

asio::awaitable<void> remove_tree(zkwire::client& c, std::string path) {
  auto listing = c.async_get_children(path, asio::experimental::as_tuple(asio::use_awaitable));
  auto [ec, children] = co_await std::move(listing);
  if (ec) co_return;
  for (const auto& child : children.children) {
    std::string below_path = path;
    below_path.append("/").append(child);
    auto below = remove_tree(c, std::move(below_path));
    co_await std::move(below);
  }
  auto remove = c.async_remove(path, zkwire::any_version, asio::experimental::as_tuple(asio::use_awaitable));
  co_await std::move(remove);
}

// Makes the directories, measures, removes everything.
asio::awaitable<void> body(const config& cfg, subjects& x, const std::string& root, const std::vector<cycle>& cycles,
                           std::vector<std::vector<double>>& samples) {
  // Persistent directories: the server reaps an empty container (what the lock would make) between cycles, and
  // neither cycle should pay for making it again.
  const std::vector<std::string> directories{root, x.lock_dir};
  for (const std::string& dir : directories) {
    auto make = x.c.async_create(dir, "", zkwire::create_options{}, asio::use_awaitable);
    co_await std::move(make);
  }
  auto measured = measure(cfg, x, cycles, samples);
  co_await std::move(measured);
  auto cleanup = remove_tree(x.c, root);
  co_await std::move(cleanup);
}

int fail(const std::string& what) {
  std::fprintf(stderr, "zkwire_lock_bench: %s\n", what.c_str());
  return 1;
}

int run(const config& cfg) {
  asio::io_context io;
  zkwire::client_options options;
  options.connect_string = cfg.servers;
  zkwire::client c(io.get_executor(), options);
  const std::string root = "/zkwire-lock-bench-" + std::to_string(::getpid());
  const std::string lock_dir = root + "/l";
  zkwire::recipes::lock l(c, lock_dir);
  zkwire::recipes::semaphore s(c, root + "/s", cfg.leases);

  // The reference node: named, filled and placed like the lock's own node.
  subjects x{c,
             l,
             s,
             lock_dir,
             lock_dir + "/" +
                 zkwire::recipes::node_prefix(zkwire::recipes::naming::curator, zkwire::recipes::lock_kind::exclusive,
                                              zkwire::recipes::make_guid(zkwire::recipes::naming::curator)),
             zkwire::recipes::default_lock_data()};
  std::vector<cycle> cycles{lock_cycle, create_delete_cycle, create_list_delete_cycle, semaphore_cycle};
  const std::vector<std::string> names{"lock", "create+delete", "create+list+delete", "semaphore"};
  if (!cfg.only.empty()) {
    const auto kept = std::find(names.begin(), names.end(), cfg.only);
    if (kept == names.end()) return fail("--only takes lock, create+delete, create+list+delete or semaphore");
    const cycle one = cycles[static_cast<std::size_t>(kept - names.begin())];
    cycles = {one};
  }
  std::vector<std::vector<double>> samples(cycles.size());
  std::exception_ptr failure;
  bool done = false;
  asio::co_spawn(io, body(cfg, x, root, cycles, samples), [&](std::exception_ptr e) {
    failure = std::move(e);
    done = true;
    c.async_close([](std::error_code) {});
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
  if (!cfg.only.empty()) {
    print(cfg.only.c_str(), samples[0]);
    return 0;
  }
  for (std::size_t i = 0; i < cycles.size(); ++i) print(names[i].c_str(), samples[i]);
  const double reference = percentile(samples[1], 50);
  const double requests = percentile(samples[2], 50);
  std::printf("{\"op\":\"ratio\",\"lock_over_create_delete\":%.4f,\"lock_over_create_list_delete\":%.4f}\n",
              reference > 0 ? percentile(samples[0], 50) / reference : 0.0,
              requests > 0 ? percentile(samples[0], 50) / requests : 0.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  config cfg;
  for (int i = 1; i < argc; i += 2) {
    const std::string option = argv[i];
    if (i + 1 >= argc) return fail("missing value for " + option);
    const char* value = argv[i + 1];
    if (option == "-s") {
      cfg.servers = value;
    } else if (option == "-n") {
      cfg.cycles = std::strtoul(value, nullptr, 10);
    } else if (option == "--warmup") {
      cfg.warmup = std::strtoul(value, nullptr, 10);
    } else if (option == "--blocks") {
      cfg.blocks = std::max<std::size_t>(1, std::strtoul(value, nullptr, 10));
    } else if (option == "--only") {
      cfg.only = value;
    } else if (option == "--leases") {
      cfg.leases = static_cast<std::int32_t>(std::strtol(value, nullptr, 10));
    } else {
      return fail(
          "usage: zkwire_lock_bench -s HOST:PORT [-n CYCLES] [--warmup W] [--blocks B] [--leases N] [--only KIND]");
    }
  }
  if (cfg.cycles == 0 || cfg.leases <= 0) return fail("CYCLES and N must be positive");
  try {
    return run(cfg);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}
