#pragma once
// Helpers for the lock recipe integration tests: clients on a test-owned io_context, directory listings, and the
// server's watch table (wchp) as a map (support/watch_table.hpp).

#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "client_test_support.hpp"
#include "support/watch_table.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/recipes/recipes.hpp"

namespace zkwire::test {

using namespace std::chrono_literals;

inline std::unique_ptr<client> new_client(asio::io_context& io, const std::string& servers,
                                          std::chrono::milliseconds session_timeout = 10s) {
  return std::make_unique<client>(io.get_executor(), client_options_for(servers, session_timeout));
}

// Child names of `dir`, empty if it does not exist (a released lock's directory may be reaped: it is a container);
// nullopt if it could not be listed (connection loss, no permission, ...), which says nothing about what is left.
inline asio::awaitable<std::optional<std::vector<std::string>>> try_children_of(client& c, std::string dir) {
  auto [ec, r] = co_await c.async_get_children(std::move(dir), tuple_awaitable);
  if (ec == server_error::no_node) co_return std::vector<std::string>{};
  if (ec) co_return std::nullopt;
  co_return std::move(r.children);
}

// Child names of `dir`, empty if it does not exist. A listing that fails throws (the test fails with the reason):
// "nothing left behind" must never pass because the check could not look.
inline asio::awaitable<std::vector<std::string>> children_of(client& c, std::string dir) {
  auto [ec, r] = co_await c.async_get_children(dir, tuple_awaitable);
  if (ec == server_error::no_node) co_return std::vector<std::string>{};
  if (ec) throw std::runtime_error("could not list " + dir + ": " + ec.message());
  co_return std::move(r.children);
}

// Checks that `node_path` is `dir`'s only child (a lock's node, and nothing left beside it).
inline asio::awaitable<void> expect_sole_child(client& c, std::string dir, std::string node_path) {
  const auto children = co_await children_of(c, dir);
  ZKWIRE_CO_ASSERT(children.size() == 1);
  EXPECT_EQ(dir + "/" + children.front(), node_path);
}

// Polls until `dir` has `count` children (nothing else waits on it: a test's own check, not the lock's logic).
inline asio::awaitable<bool> wait_for_children(client& c, std::string dir, std::size_t count,
                                               std::chrono::milliseconds timeout = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto children = co_await try_children_of(c, dir);  // a failed listing: look again
    if (children && children->size() == count) co_return true;
    if (std::chrono::steady_clock::now() > deadline) co_return false;
    co_await sleep_for(20ms);
  }
}

// Runs every coroutine concurrently on `io` until all finished (rethrows the first failure).
inline void run_all(asio::io_context& io, std::vector<asio::awaitable<void>> tasks,
                    std::chrono::milliseconds timeout = 120s) {
  std::vector<std::future<void>> futures;
  futures.reserve(tasks.size());
  for (auto& t : tasks) futures.push_back(asio::co_spawn(io, std::move(t), asio::use_future));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto& f : futures) {
    while (f.wait_for(0s) != std::future_status::ready) {
      if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("run_all: timed out");
      if (io.stopped()) io.restart();
      io.run_one_for(50ms);
    }
  }
  for (auto& f : futures) f.get();
}

inline std::string name_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// Polls `predicate` until it holds or `timeout` passed; true if it held. For a test's own checks, never for what
// the lock under test must do by itself. The coroutine counterpart of support/eventually.hpp, for tests that run
// on the client's executor (which the blocking helper would stall).
inline asio::awaitable<bool> co_eventually(std::function<bool()> predicate, std::chrono::milliseconds timeout = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) co_return false;
    co_await sleep_for(10ms);
  }
  co_return true;
}

// The positive signal after which a negative check about `c` is meaningful: two round trips of `c` in a row.
// Everything the server sent `c` before (replies, watch events) has then been handled, and so has whatever a
// handler of it sent in turn (a waiter's new listing after a watch event, and the grant that listing leads to):
// those requests went out before our second one, and a session answers in order.
inline asio::awaitable<void> settle(client& c) {
  for (int i = 0; i < 2; ++i) {
    auto [ec, st] = co_await c.async_exists("/", tuple_awaitable);
    (void)st;
    EXPECT_FALSE(ec) << ec.message();
  }
}

// The deadline tests (lock_deadline_test, semaphore_deadline_test). Their session timeout keeps the read timeout (2/3
// of it) far beyond any pause or hold-back, so only deadlines can end an acquire; the late margin bounds timer and
// scheduling latency on a loaded machine.
inline constexpr std::chrono::milliseconds deadline_session_timeout = std::chrono::seconds(30);
inline constexpr std::chrono::milliseconds deadline_late_margin = std::chrono::seconds(3);

// An acquire (20 s at most) and a release of a lock or a semaphore, which must succeed.
template <class Recipe>
asio::awaitable<void> acquire_and_release(Recipe& recipe) {
  auto acquire = recipe.async_acquire(std::chrono::seconds(20), tuple_awaitable);
  auto [ec] = co_await std::move(acquire);
  EXPECT_FALSE(ec) << ec.message();
  auto release = recipe.async_release(tuple_awaitable);
  co_await std::move(release);
}

// An acquire with `timeout` of a lock or a semaphore, which must end with lock_errc::timeout no sooner than `bound`
// and within deadline_late_margin after it.
template <class Recipe>
asio::awaitable<void> expect_acquire_timeout(Recipe& recipe, std::chrono::milliseconds timeout,
                                             std::chrono::milliseconds bound) {
  const auto start = std::chrono::steady_clock::now();
  auto acquire = recipe.async_acquire(timeout, tuple_awaitable);
  auto [ec] = co_await std::move(acquire);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(ec, recipes::lock_errc::timeout) << ec.message();
  EXPECT_GE(elapsed, bound);
  EXPECT_LT(elapsed, bound + deadline_late_margin);
}

// One setData op (built outside the coroutines: GCC 12 rejects a braced vector in a co_await expression).
inline std::vector<multi_op> set_ops(const std::string& path, const std::string& data) {
  std::vector<multi_op> list;
  list.push_back(ops::set(path, data));
  return list;
}

}  // namespace zkwire::test
