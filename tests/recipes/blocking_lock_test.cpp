// zkwire::recipes::blocking_lock and blocking_read_write_lock with real threads against a real standalone
// ZooKeeper: the standard lock types work with them, threads on one session (distinct objects, or one shared
// object) exclude each other while the holder sleeps inside, try-locks fail while someone else holds and succeed
// once it is released, reentrancy is refused unless asked for, and failures throw std::system_error.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "client_test_support.hpp"
#include "support/zk_test.hpp"
#include "zkwire/client/blocking_client.hpp"
#include "zkwire/recipes/blocking_lock.hpp"

namespace zkwire {
namespace {

using recipes::blocking_lock;
using recipes::blocking_read_write_lock;
using recipes::lock_errc;
using recipes::lock_state;
using namespace std::chrono_literals;

class blocking_lock_test : public test::standalone_test {
 protected:
  [[nodiscard]] std::string dir() const { return root() + "/locks/threads"; }
  [[nodiscard]] std::unique_ptr<blocking_client> new_client() const {
    auto c = std::make_unique<blocking_client>(test::client_options_for(connect_string(), 10s));
    c->connect();
    return c;
  }
  // Lock nodes left under `path`. The lock directory is a container: once empty the server may reap it at any
  // moment (our scripts check every 500 ms), so a missing directory also means none are left.
  [[nodiscard]] static std::size_t nodes_left(blocking_client& c, const std::string& path) {
    try {
      return c.get_children(path).children.size();
    } catch (const std::system_error& e) {
      if (e.code() == server_error::no_node) return 0;
      throw;
    }
  }
};

// Counts holders; a holder stays inside for a while (sleeping: other threads run meanwhile), so two holders at
// once are seen whenever the lock lets them in.
struct overlap_oracle {
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::atomic<int> entries{0};

  void hold_for(std::chrono::milliseconds d) {
    if (inside.fetch_add(1) + 1 > 1) overlaps.fetch_add(1);
    entries.fetch_add(1);
    std::this_thread::sleep_for(d);
    inside.fetch_sub(1);
  }
};

template <class F>
void run_threads(std::size_t n, F&& body) {
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (std::size_t i = 0; i < n; ++i) threads.emplace_back([&body, i] { body(i); });
  for (auto& t : threads) t.join();
}

TEST_F(blocking_lock_test, StandardLockTypesWork) {
  auto c = new_client();
  blocking_lock l(*c, dir());
  EXPECT_EQ(l.state(), lock_state::released);
  {
    std::unique_lock hold(l, 10s);
    ASSERT_TRUE(hold.owns_lock());
    EXPECT_EQ(l.state(), lock_state::held);
    EXPECT_GT(l.fencing_token(), 0);
    EXPECT_EQ(c->get_children(dir()).children.size(), 1U);
  }
  EXPECT_EQ(l.state(), lock_state::released);
  EXPECT_EQ(l.fencing_token(), 0);
  // unlock() waited for the delete to be confirmed: the node is already gone.
  EXPECT_EQ(nodes_left(*c, dir()), 0U);
  {
    const std::lock_guard guard(l);
    EXPECT_EQ(l.state(), lock_state::held);
  }
  blocking_lock other(*c, root() + "/locks/other");
  {
    std::scoped_lock both(l, other);
    EXPECT_EQ(l.state(), lock_state::held);
    EXPECT_EQ(other.state(), lock_state::held);
  }
  EXPECT_EQ(l.state(), lock_state::released);
  EXPECT_EQ(other.state(), lock_state::released);
}

TEST_F(blocking_lock_test, TryLockFailsWhileAnotherSessionHoldsAndSucceedsAfterItsRelease) {
  auto holder_client = new_client();
  auto c = new_client();
  blocking_lock holder(*holder_client, dir());
  blocking_lock l(*c, dir());
  holder.lock();
  EXPECT_FALSE(l.try_lock());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(l.try_lock_for(300ms));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  EXPECT_FALSE(l.try_lock_until(std::chrono::system_clock::now() + 100ms));
  EXPECT_EQ(l.state(), lock_state::released);
  // A waiter blocked in try_lock_for is granted once the holder unlocks (the later positive signal).
  std::atomic<bool> granted{false};
  std::thread waiter([&] {
    granted = l.try_lock_for(30s);
    if (granted) l.unlock();
  });
  holder.unlock();
  waiter.join();
  EXPECT_TRUE(granted);
  EXPECT_EQ(nodes_left(*c, dir()), 0U);
}

TEST_F(blocking_lock_test, ThreadsWithTheirOwnObjectsOnOneSessionExcludeEachOther) {
  auto c = new_client();
  overlap_oracle oracle;
  constexpr int rounds = 12;
  run_threads(4, [&](std::size_t) {
    blocking_lock l(*c, dir());
    for (int i = 0; i < rounds; ++i) {
      const std::lock_guard hold(l);
      oracle.hold_for(3ms);
    }
  });
  EXPECT_EQ(oracle.overlaps.load(), 0);
  EXPECT_EQ(oracle.entries.load(), 4 * rounds);
  EXPECT_EQ(nodes_left(*c, dir()), 0U);
}

TEST_F(blocking_lock_test, ThreadsSharingOneObjectAndAnotherSessionExcludeEachOther) {
  auto c = new_client();
  auto other_client = new_client();
  blocking_lock shared(*c, dir());
  overlap_oracle oracle;
  constexpr int rounds = 10;
  run_threads(4, [&](std::size_t i) {
    if (i == 3) {  // a thread on another session contends through ZooKeeper only
      blocking_lock l(*other_client, dir());
      for (int r = 0; r < rounds; ++r) {
        std::unique_lock hold(l, 30s);
        ASSERT_TRUE(hold.owns_lock());
        oracle.hold_for(3ms);
      }
      return;
    }
    for (int r = 0; r < rounds; ++r) {
      std::unique_lock hold(shared, 30s);
      ASSERT_TRUE(hold.owns_lock());
      oracle.hold_for(3ms);
    }
  });
  EXPECT_EQ(oracle.overlaps.load(), 0);
  EXPECT_EQ(oracle.entries.load(), 4 * rounds);
}

TEST_F(blocking_lock_test, LockingAHeldObjectAgainThrowsUnlessReentrant) {
  auto c = new_client();
  blocking_lock l(*c, dir());
  l.lock();
  try {
    l.lock();
    ADD_FAILURE() << "a second lock() returned";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), lock_errc::already_held) << e.what();
  }
  EXPECT_THROW((void)l.try_lock(), std::system_error);
  EXPECT_EQ(l.state(), lock_state::held);
  l.unlock();
  EXPECT_EQ(l.state(), lock_state::released);

  recipes::lock_options options;
  options.reentrant = true;
  blocking_lock reentrant(*c, dir(), options);
  reentrant.lock();
  const auto node = reentrant.node_path();
  EXPECT_TRUE(reentrant.try_lock());
  reentrant.unlock();
  EXPECT_EQ(reentrant.state(), lock_state::held);
  EXPECT_TRUE(c->exists(node).has_value());
  reentrant.unlock();
  EXPECT_EQ(reentrant.state(), lock_state::released);
  EXPECT_FALSE(c->exists(node).has_value());
}

TEST_F(blocking_lock_test, FailuresThrowSystemErrorWithTheRecipeCodes) {
  auto c = new_client();
  blocking_lock l(*c, "not/absolute");
  try {
    l.lock();
    ADD_FAILURE() << "lock() on an invalid path returned";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), client_error::invalid_path) << e.what();
  }
  blocking_lock after_close(*c, dir());
  c->close();
  try {
    after_close.lock();
    ADD_FAILURE() << "lock() on a closed client returned";
  } catch (const std::system_error& e) {
    EXPECT_TRUE(is_session_fatal(e.code())) << e.what();
  }
  after_close.unlock();  // not held: nothing happens, nothing thrown
}

TEST_F(blocking_lock_test, LossIsReportedAndTheNextUnlockResets) {
  auto c = new_client();
  blocking_lock l(*c, dir());
  std::mutex m;
  std::condition_variable cv;
  bool lost = false;
  l.set_listener([&](const recipes::lock_event& e) {
    if (e.to != lock_state::lost) return;
    const std::lock_guard g(m);
    lost = true;
    cv.notify_all();
  });
  l.lock();
  c->remove(l.node_path());  // someone deletes our node
  {
    std::unique_lock g(m);
    ASSERT_TRUE(cv.wait_for(g, 20s, [&] { return lost; }));
  }
  EXPECT_EQ(l.state(), lock_state::lost);
  l.unlock();
  EXPECT_EQ(l.state(), lock_state::released);
  EXPECT_TRUE(l.try_lock());
  l.unlock();
}

TEST_F(blocking_lock_test, ReadersShareAndWritersExcludeAcrossThreadsAndSessions) {
  auto c = new_client();
  auto other_client = new_client();
  blocking_read_write_lock local(*c, dir());
  std::atomic<int> readers{0};
  std::atomic<int> writers{0};
  std::atomic<int> violations{0};
  constexpr int rounds = 8;
  run_threads(5, [&](std::size_t i) {
    std::unique_ptr<blocking_read_write_lock> own;
    blocking_read_write_lock* rw = &local;
    if (i >= 3) {  // threads 3 and 4 use their own objects on the other session
      own = std::make_unique<blocking_read_write_lock>(*other_client, dir());
      rw = own.get();
    }
    for (int r = 0; r < rounds; ++r) {
      if ((i + static_cast<std::size_t>(r)) % 3 == 0) {
        const std::lock_guard write(*rw);
        if (writers.fetch_add(1) + 1 > 1 || readers.load() > 0) violations.fetch_add(1);
        std::this_thread::sleep_for(3ms);
        writers.fetch_sub(1);
      } else {
        const std::shared_lock read(*rw);
        readers.fetch_add(1);
        if (writers.load() > 0) violations.fetch_add(1);
        std::this_thread::sleep_for(3ms);
        readers.fetch_sub(1);
      }
    }
  });
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(nodes_left(*c, dir()), 0U);
}

TEST_F(blocking_lock_test, ReadWriteTryLocksAndRefusals) {
  auto c = new_client();
  auto other_client = new_client();
  blocking_read_write_lock rw(*c, dir());
  blocking_read_write_lock other(*other_client, dir());
  other.lock_shared();
  EXPECT_TRUE(rw.try_lock_shared_for(10s));  // readers share
  try {
    (void)rw.try_lock_for(200ms);  // this thread reads: it would wait for itself
    ADD_FAILURE() << "an upgrade returned";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), lock_errc::upgrade_not_allowed);
  }
  rw.unlock_shared();
  EXPECT_FALSE(rw.try_lock_for(200ms));  // the other session still reads
  std::atomic<bool> written{false};
  std::thread writer([&] {
    if (rw.try_lock_for(30s)) {
      written = true;
      rw.unlock();
    }
  });
  other.unlock_shared();
  writer.join();
  EXPECT_TRUE(written);
  rw.lock();
  EXPECT_EQ(rw.write_state(), lock_state::held);
  EXPECT_GT(rw.fencing_token(), 0);
  EXPECT_FALSE(other.try_lock_shared());
  try {
    rw.lock_shared();
    ADD_FAILURE() << "lock_shared() while holding the write side returned";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), lock_errc::already_held);
  }
  rw.unlock();
  EXPECT_TRUE(other.try_lock_shared_for(10s));
  other.unlock_shared();
}

}  // namespace
}  // namespace zkwire
