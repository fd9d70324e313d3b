// zkwire's locks and Apache Curator's own recipes (Debian's libcurator-*-java, run as a Java program of ours,
// curator/CuratorLockWorker.java, compiled here with javac) contend on one lock directory: InterProcessMutex with
// zkwire::recipes::lock, InterProcessReadWriteLock with zkwire::recipes::read_write_lock. The oracle is a counter
// node that every exclusive holder, on both sides, reads, waits on and writes back with the version it read: a
// write by anyone else in between fails (BadVersion). Readers check the counter does not change while they hold.
// The zkwire side must also have waited for the other side at least once (the two really contended).
// InterProcessSemaphoreV2 (curator/CuratorSemaphoreWorker.java) and zkwire::recipes::semaphore share one semaphore:
// every holder on both sides adds itself to a holders count node while it holds a lease; a count above the leases
// is an overlap, and the count must have reached the number of leases (the oracle saw them all taken at once).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "curator_support.hpp"
#include "lock_test_support.hpp"
#include "support/child_process.hpp"
#include "support/requirements.hpp"
#include "support/temp_dir.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::lock;
using recipes::read_write_lock;
using recipes::semaphore;
using test::run_co;
using test::tuple_awaitable;
using namespace std::chrono_literals;

class lock_curator_test : public test::standalone_test {
 protected:
  void SetUp() override {
    standalone_test::SetUp();
    ZKWIRE_REQUIRE(!test::curator_worker_classes().empty(),
                   "javac or Debian's libcurator-*-java (scripts/setup installs them)");
  }

  // A Curator worker class with `args` after the connect string, its stdout and stderr in files of the test's
  // scratch directory named after `run` (read by finish()).
  [[nodiscard]] std::unique_ptr<test::child_process> start_java(const std::string& worker, const std::string& run,
                                                                const std::vector<std::string>& args) {
    std::vector<std::string> argv = test::curator_worker_command(worker);
    argv.push_back(connect_string());
    argv.insert(argv.end(), args.begin(), args.end());
    return std::make_unique<test::child_process>(test::child_process::spawn(
        argv, test::child_stdio{scratch_.path() / (run + ".out"), scratch_.path() / (run + ".err"), {}}));
  }
  [[nodiscard]] std::unique_ptr<test::child_process> start_curator(const std::string& mode, const std::string& dir,
                                                                   const std::string& counter, int rounds) {
    return start_java("CuratorLockWorker", mode, {mode, dir, counter, std::to_string(rounds), "5"});
  }
  test::temp_dir scratch_{"zkwire-curator-run-"};
};

struct tally {
  int exclusive_grants = 0;
  int read_grants = 0;
  int violations = 0;
};

// Exclusive hold: read, wait (other contenders run), write back plus one with the version read.
asio::awaitable<void> increment_while_holding(client& c, const std::string& counter, tally& t) {
  auto get = c.async_get(counter, tuple_awaitable);
  auto [get_ec, got] = co_await std::move(get);
  if (get_ec) {
    ADD_FAILURE() << get_ec.message();
    co_return;
  }
  co_await test::sleep_for(5ms);
  auto set = c.async_set(counter, std::to_string(std::stoll(got.data) + 1), got.stat.version, tuple_awaitable);
  auto [set_ec, unused] = co_await std::move(set);
  if (set_ec == server_error::bad_version) {
    ++t.violations;
    ADD_FAILURE() << "the counter changed while zkwire held the exclusive lock";
  } else if (set_ec) {
    ADD_FAILURE() << set_ec.message();
  }
  ++t.exclusive_grants;
}

// Shared hold: the counter must not change while we read.
asio::awaitable<void> check_while_reading(client& c, const std::string& counter, tally& t) {
  auto before = co_await c.async_exists(counter, use_awaitable);
  co_await test::sleep_for(5ms);
  auto after = co_await c.async_exists(counter, use_awaitable);
  if (!before || !after || before->version != after->version) {
    ++t.violations;
    ADD_FAILURE() << "the counter changed while zkwire held the read lock";
  }
  ++t.read_grants;
}

TEST_F(lock_curator_test, InterProcessMutexAndZkwireLockExcludeEachOther) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  const std::string dir = root() + "/locks/curator-mutex";
  const std::string counter = root() + "/counter";
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await c->async_create(root(), "", use_awaitable);
    co_await c->async_create(counter, "0", use_awaitable);
  }());
  constexpr int curator_rounds = 40;
  auto curator = start_curator("mutex", dir, counter, curator_rounds);
  tally t;
  std::vector<std::unique_ptr<lock>> locks;
  for (int i = 0; i < 2; ++i) locks.push_back(std::make_unique<lock>(*c, dir));
  std::vector<asio::awaitable<void>> tasks;
  for (auto& l : locks) {
    // Until the Curator program is done (and at least 20 rounds): both sides contend the whole time.
    tasks.push_back(
        [](lock& zl, client& zc, std::string ctr, tally& tt, test::child_process& java) -> asio::awaitable<void> {
          for (int round = 0; round < 20 || java.running(); ++round) {
            co_await zl.async_acquire(60s, use_awaitable);
            co_await increment_while_holding(zc, ctr, tt);
            co_await zl.async_release(use_awaitable);
          }
        }(*l, *c, counter, t, *curator));
  }
  test::run_all(io, std::move(tasks), 240s);
  const auto out = curator->finish(60s);
  EXPECT_EQ(out.status, 0) << out.out << out.err;
  EXPECT_NE(out.out.find("grants=" + std::to_string(curator_rounds) + " violations=0"), std::string::npos) << out.out;
  EXPECT_EQ(t.violations, 0);
  std::uint64_t waited = 0;
  for (const auto& l : locks) waited += l->wakeups();
  EXPECT_GT(waited, 0U) << "zkwire never waited: no contention";
  run_co(io, [&]() -> asio::awaitable<void> {
    auto got = co_await c->async_get(counter, use_awaitable);
    EXPECT_EQ(got.data, std::to_string(t.exclusive_grants + curator_rounds));
    EXPECT_TRUE((co_await test::children_of(*c, dir)).empty());
  }());
}

TEST_F(lock_curator_test, InterProcessReadWriteLockAndZkwireReadWriteLockShareTheRules) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  const std::string dir = root() + "/locks/curator-rw";
  const std::string counter = root() + "/counter";
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await c->async_create(root(), "", use_awaitable);
    co_await c->async_create(counter, "0", use_awaitable);
  }());
  constexpr int curator_rounds = 45;  // every third one writes
  auto curator = start_curator("mixed", dir, counter, curator_rounds);
  tally t;
  std::vector<std::unique_ptr<read_write_lock>> locks;
  for (int i = 0; i < 3; ++i) locks.push_back(std::make_unique<read_write_lock>(*c, dir));
  std::vector<asio::awaitable<void>> tasks;
  for (std::size_t i = 0; i < locks.size(); ++i) {
    tasks.push_back([](read_write_lock& rw, client& zc, std::string ctr, tally& tt, test::child_process& java,
                       std::size_t offset) -> asio::awaitable<void> {
      for (std::size_t round = 0; round < 20 || java.running(); ++round) {
        if ((round + offset) % 3 == 0) {
          co_await rw.write_lock().async_acquire(60s, use_awaitable);
          co_await increment_while_holding(zc, ctr, tt);
          co_await rw.write_lock().async_release(use_awaitable);
        } else {
          co_await rw.read_lock().async_acquire(60s, use_awaitable);
          co_await check_while_reading(zc, ctr, tt);
          co_await rw.read_lock().async_release(use_awaitable);
        }
      }
    }(*locks[i], *c, counter, t, *curator, i));
  }
  test::run_all(io, std::move(tasks), 240s);
  const auto out = curator->finish(60s);
  EXPECT_EQ(out.status, 0) << out.out << out.err;
  EXPECT_NE(out.out.find("grants=" + std::to_string(curator_rounds) + " violations=0"), std::string::npos) << out.out;
  EXPECT_EQ(t.violations, 0);
  EXPECT_GT(t.read_grants, 0);
  std::uint64_t waited = 0;
  for (const auto& l : locks) waited += l->read_lock().wakeups() + l->write_lock().wakeups();
  EXPECT_GT(waited, 0U) << "zkwire never waited: no contention";
  run_co(io, [&]() -> asio::awaitable<void> {
    auto got = co_await c->async_get(counter, use_awaitable);
    EXPECT_EQ(got.data, std::to_string(t.exclusive_grants + (curator_rounds + 2) / 3));
    EXPECT_TRUE((co_await test::children_of(*c, dir)).empty());
  }());
}

// Adds `delta` to the holders count (a compare-and-set on its version, retried: other holders may be inside too) and
// returns the count written.
asio::awaitable<long long> add_holders(client& c, const std::string& holders, long long delta) {
  for (;;) {
    auto get = c.async_get(holders, tuple_awaitable);
    auto [get_ec, got] = co_await std::move(get);
    if (get_ec) throw std::system_error(get_ec);
    const long long value = std::stoll(got.data) + delta;
    auto set = c.async_set(holders, std::to_string(value), got.stat.version, tuple_awaitable);
    auto [set_ec, unused] = co_await std::move(set);
    if (!set_ec) co_return value;
    if (set_ec != server_error::bad_version) throw std::system_error(set_ec);
  }
}

struct lease_tally {
  int grants = 0;
  int violations = 0;
  long long max_holders = 0;
};

TEST_F(lock_curator_test, InterProcessSemaphoreV2AndZkwireSemaphoreShareTheLeases) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  const std::string path = root() + "/semaphores/shared";
  const std::string holders = root() + "/holders";
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await c->async_create(root(), "", use_awaitable);
    co_await c->async_create(holders, "0", use_awaitable);
  }());
  constexpr std::int32_t max_leases = 2;
  constexpr int curator_rounds = 15;
  constexpr int curator_threads = 2;
  auto curator = start_java("CuratorSemaphoreWorker", "semaphore",
                            {path, std::to_string(max_leases), holders, std::to_string(curator_rounds),
                             std::to_string(curator_threads), "20"});
  lease_tally t;
  constexpr std::size_t zkwire_contenders = 3;
  std::vector<std::unique_ptr<semaphore>> semaphores;
  semaphores.reserve(zkwire_contenders);
  for (std::size_t i = 0; i < zkwire_contenders; ++i) {
    semaphores.push_back(std::make_unique<semaphore>(*c, path, max_leases));
  }
  std::vector<asio::awaitable<void>> tasks;
  tasks.reserve(zkwire_contenders);
  for (auto& s : semaphores) {
    // Until the Curator program is done (and at least 10 rounds): both sides contend the whole time.
    tasks.push_back([](semaphore& zs, client& zc, std::string count, lease_tally& tt,
                       test::child_process& java) -> asio::awaitable<void> {
      for (int round = 0; round < 10 || java.running(); ++round) {
        co_await zs.async_acquire(60s, use_awaitable);
        ++tt.grants;
        const long long inside = co_await add_holders(zc, count, 1);
        tt.max_holders = std::max(tt.max_holders, inside);
        if (inside > zs.max_leases()) {
          ++tt.violations;
          ADD_FAILURE() << inside << " holders of " << zs.max_leases() << " leases";
        }
        co_await test::sleep_for(20ms);
        co_await add_holders(zc, count, -1);
        co_await zs.async_release(use_awaitable);
      }
    }(*s, *c, holders, t, *curator));
  }
  test::run_all(io, std::move(tasks), 240s);
  const auto out = curator->finish(60s);
  EXPECT_EQ(out.status, 0) << out.out << out.err;
  const std::string expected = "grants=" + std::to_string(curator_rounds * curator_threads) + " violations=0 max=";
  const auto at = out.out.find(expected);
  ASSERT_NE(at, std::string::npos) << out.out;
  const long long curator_max = std::stoll(out.out.substr(at + expected.size()));
  EXPECT_EQ(t.violations, 0);
  EXPECT_GT(t.grants, 0);
  // The count reached the number of leases: the oracle saw every lease taken at once, so it would have seen more.
  EXPECT_EQ(std::max(t.max_holders, curator_max), max_leases);
  run_co(io, [&]() -> asio::awaitable<void> {
    auto got = co_await c->async_get(holders, use_awaitable);
    EXPECT_EQ(got.data, "0");
    EXPECT_TRUE((co_await test::children_of(*c, path + "/leases")).empty());
  }());
}

}  // namespace
}  // namespace zkwire
