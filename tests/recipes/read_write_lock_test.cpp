// zkwire::recipes::read_write_lock against a real standalone ZooKeeper: readers share, writers exclude, later
// readers queue behind a waiting writer (no writer starvation), upgrade refused, downgrade allowed, Kazoo names.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "lock_test_support.hpp"
#include "support/zk_test.hpp"

namespace zkwire {
namespace {

using asio::use_awaitable;
using recipes::lock_errc;
using recipes::lock_state;
using recipes::read_write_lock;
using test::run_co;
using test::tuple_awaitable;
using namespace std::chrono_literals;

class read_write_lock_test : public test::standalone_test {
 protected:
  std::string dir() const { return root() + "/rw"; }
};

TEST_F(read_write_lock_test, ReadersShareWritersExcludeAndLaterReadersWaitForTheWriter) {
  asio::io_context io;
  auto c1 = test::new_client(io, connect_string());
  auto c2 = test::new_client(io, connect_string());
  read_write_lock a(*c1, dir());
  read_write_lock b(*c2, dir());
  read_write_lock w(*c1, dir());
  read_write_lock late(*c2, dir());
  std::optional<std::error_code> writer;
  std::optional<std::error_code> late_reader;
  // Invariants checked at the moment of each grant.
  bool writer_alone = false;
  bool late_reader_after_writer = false;
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await a.read_lock().async_acquire(0ms, use_awaitable);
    co_await b.read_lock().async_acquire(0ms, use_awaitable);  // readers share
    auto [try_write] = co_await w.write_lock().async_acquire(0ms, tuple_awaitable);
    EXPECT_EQ(try_write, lock_errc::timeout);
    w.write_lock().async_acquire(10s, [&](std::error_code ec) {
      writer = ec;
      writer_alone = a.read_lock().state() == lock_state::released && b.read_lock().state() == lock_state::released;
    });
    EXPECT_TRUE(co_await test::wait_for_children(*c1, dir(), 3));
    // A reader that comes after the waiting writer waits for it (no writer starvation).
    auto [try_read] = co_await late.read_lock().async_acquire(0ms, tuple_awaitable);
    EXPECT_EQ(try_read, lock_errc::timeout);
    late.read_lock().async_acquire(10s, [&](std::error_code ec) {
      late_reader = ec;
      late_reader_after_writer = w.write_lock().state() == lock_state::released;
    });
    EXPECT_TRUE(co_await test::wait_for_children(*c1, dir(), 4));

    // The writer's client sees a's deletion (probe) and settles: had that deletion woken and granted the writer,
    // it would have happened by then.
    const auto a_node = a.read_lock().node_path();
    auto a_probe = co_await c1->async_exists_watch(a_node, use_awaitable);
    co_await a.read_lock().async_release(use_awaitable);
    co_await a_probe.watch.async_wait(use_awaitable);
    co_await test::settle(*c1);
    EXPECT_FALSE(writer.has_value());  // one reader still holds
    const auto b_node = b.read_lock().node_path();
    auto b_probe = co_await c2->async_exists_watch(b_node, use_awaitable);
    co_await b.read_lock().async_release(use_awaitable);
    while (!writer) co_await test::sleep_for(10ms);
    EXPECT_EQ(*writer, std::error_code{});
    EXPECT_TRUE(writer_alone);
    // The late reader's client saw b's deletion too (the node before the writer's): it must go on waiting.
    co_await b_probe.watch.async_wait(use_awaitable);
    co_await test::settle(*c2);
    EXPECT_FALSE(late_reader.has_value());  // the writer excludes readers
    const auto list = co_await recipes::async_contenders(*c1, dir(), use_awaitable);
    ZKWIRE_CO_ASSERT(list.size() == 2);
    EXPECT_EQ(list[0].kind, recipes::contender_kind::write);
    EXPECT_TRUE(list[0].holder);
    EXPECT_EQ(list[1].kind, recipes::contender_kind::read);
    EXPECT_FALSE(list[1].holder);
    co_await w.write_lock().async_release(use_awaitable);
    while (!late_reader) co_await test::sleep_for(10ms);
    EXPECT_EQ(*late_reader, std::error_code{});
    EXPECT_TRUE(late_reader_after_writer);
    co_await late.read_lock().async_release(use_awaitable);
    EXPECT_TRUE((co_await test::children_of(*c1, dir())).empty());
  }());
}

TEST_F(read_write_lock_test, WritersExcludeEachOtherInOrder) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  read_write_lock first(*c, dir());
  read_write_lock second(*c, dir());
  std::optional<std::error_code> granted;
  bool first_released_at_grant = false;
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await first.write_lock().async_acquire(use_awaitable);
    second.write_lock().async_acquire(10s, [&](std::error_code ec) {
      granted = ec;
      first_released_at_grant = first.write_lock().state() == lock_state::released;
    });
    EXPECT_TRUE(co_await test::wait_for_children(*c, dir(), 2));
    co_await test::settle(*c);  // the second writer has listed and watches the first
    EXPECT_FALSE(granted.has_value());
    co_await first.write_lock().async_release(use_awaitable);
    while (!granted) co_await test::sleep_for(10ms);
    EXPECT_EQ(*granted, std::error_code{});
    EXPECT_TRUE(first_released_at_grant);
    EXPECT_EQ(second.write_lock().wakeups(), 1U);
    co_await second.write_lock().async_release(use_awaitable);
  }());
}

TEST_F(read_write_lock_test, UpgradeIsRefusedAndDowngradeAllowed) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  read_write_lock rw(*c, dir());
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await rw.read_lock().async_acquire(use_awaitable);
    auto [ec] = co_await rw.write_lock().async_acquire(1s, tuple_awaitable);
    EXPECT_EQ(ec, lock_errc::upgrade_not_allowed);
    EXPECT_EQ(rw.write_lock().state(), lock_state::released);
    EXPECT_EQ((co_await test::children_of(*c, dir())).size(), 1U);  // nothing was created for the refused write
    co_await rw.read_lock().async_release(use_awaitable);

    co_await rw.write_lock().async_acquire(use_awaitable);
    co_await rw.read_lock().async_acquire(0ms, use_awaitable);  // our own writer does not block our reader
    EXPECT_EQ((co_await test::children_of(*c, dir())).size(), 2U);
    co_await rw.write_lock().async_release(use_awaitable);
    EXPECT_EQ(rw.read_lock().state(), lock_state::held);
    co_await rw.read_lock().async_release(use_awaitable);
    EXPECT_TRUE((co_await test::children_of(*c, dir())).empty());
  }());
}

// Readers queued behind a writer all wake once when it leaves, each having watched only that writer.
TEST_F(read_write_lock_test, ReadersWatchOnlyTheClosestPrecedingWriter) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  auto other = test::new_client(io, connect_string());
  read_write_lock early_reader(*c, dir());
  read_write_lock writer(*c, dir());
  std::vector<std::unique_ptr<read_write_lock>> readers;
  for (int i = 0; i < 3; ++i) readers.push_back(std::make_unique<read_write_lock>(*other, dir()));
  int granted = 0;
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await early_reader.read_lock().async_acquire(use_awaitable);
    writer.write_lock().async_acquire([](std::error_code) {});
    EXPECT_TRUE(co_await test::wait_for_children(*c, dir(), 2));
    for (auto& r : readers) {
      r->read_lock().async_acquire([&](std::error_code ec) {
        if (!ec) ++granted;
      });
    }
    EXPECT_TRUE(co_await test::wait_for_children(*c, dir(), 5));
    co_await test::settle(*c);  // every contender has listed and set its watch (see settle)
    co_await test::settle(*other);
    const auto watches = test::parse_wchp(cluster().four_letter(0, "wchp"));
    EXPECT_EQ(watches.count(dir()), 0U);
    const auto writer_node = writer.write_lock().node_path();  // empty: not held yet
    EXPECT_EQ(writer_node, "");
    std::size_t watched_nodes = 0;
    for (const auto& [path, sessions] : watches) {
      if (path.rfind(dir() + "/", 0) == 0) ++watched_nodes;
    }
    // The early reader's node (watched by the writer and by its owner) and the writer's node (watched by the
    // readers' session); the readers' own nodes are not watched.
    EXPECT_EQ(watched_nodes, 2U);
    co_await early_reader.read_lock().async_release(use_awaitable);
    while (writer.write_lock().state() != lock_state::held) co_await test::sleep_for(10ms);
    EXPECT_EQ(granted, 0);
    co_await writer.write_lock().async_release(use_awaitable);
    while (granted < 3) co_await test::sleep_for(10ms);
    for (auto& r : readers) {
      EXPECT_EQ(r->read_lock().wakeups(), 1U);
      co_await r->read_lock().async_release(use_awaitable);
    }
  }());
}

TEST_F(read_write_lock_test, KazooNamingUsesRlockAndLock) {
  asio::io_context io;
  auto c = test::new_client(io, connect_string());
  recipes::lock_options kazoo;
  kazoo.name_format = recipes::naming::kazoo;
  read_write_lock reader(*c, dir(), kazoo);
  read_write_lock writer(*c, dir(), kazoo);
  run_co(io, [&]() -> asio::awaitable<void> {
    co_await reader.read_lock().async_acquire(use_awaitable);
    EXPECT_NE(reader.read_lock().node_path().find("__rlock__"), std::string::npos);
    auto [ec] = co_await writer.write_lock().async_acquire(0ms, tuple_awaitable);
    EXPECT_EQ(ec, lock_errc::timeout);
    co_await reader.read_lock().async_release(use_awaitable);
    co_await writer.write_lock().async_acquire(0ms, use_awaitable);
    EXPECT_NE(writer.write_lock().node_path().find("__lock__"), std::string::npos);
    EXPECT_EQ(writer.write_lock().node_path().find("__rlock__"), std::string::npos);
    co_await writer.write_lock().async_release(use_awaitable);
  }());
}

}  // namespace
}  // namespace zkwire
