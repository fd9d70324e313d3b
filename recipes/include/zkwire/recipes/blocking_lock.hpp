#pragma once
// Blocking lock recipes for threads: zkwire::recipes::lock and read_write_lock behind the standard library's lock
// requirements, on a zkwire::blocking_client.
//
//   zkwire::blocking_client c(options);  // connect_string "zk1:2181"
//   zkwire::recipes::blocking_lock job(c, "/locks/job");
//   {
//     std::unique_lock hold(job, std::chrono::seconds(5));  // try_lock_for
//     if (!hold) return;                                    // someone else holds it
//     write_state(job.fencing_token());
//   }  // unlock()
//   zkwire::recipes::blocking_read_write_lock config(c, "/locks/config");
//   {
//     std::shared_lock read(config);  // read side
//   }
//   {
//     std::lock_guard write(config);  // write side
//   }
//
// blocking_lock meets TimedLockable (lock, try_lock, try_lock_for, try_lock_until, unlock), so std::unique_lock,
// std::scoped_lock and std::lock_guard work; blocking_read_write_lock meets SharedTimedLockable (lock/unlock and
// try_lock* = write side; lock_shared, unlock_shared and try_lock_shared* = read side), so std::shared_lock works too.
//
// Exclusion
//   Between processes and sessions ZooKeeper decides (the lock recipe of lock.hpp, same node names, so these locks
//   exclude Curator's and Kazoo's on the same path). Inside the process, one object is also a local mutex: threads
//   sharing one object queue on it before one of them queues in ZooKeeper (one node per object), and distinct
//   objects on the same path, on one client or several, exclude each other through ZooKeeper. Readers of one
//   blocking_read_write_lock share one read node: the first local reader creates it, the last one deletes it; a
//   local writer waits for the local readers to finish, and waiting local writers hold back new local readers.
//   Writers elsewhere cannot hold back this object's readers: threads that keep overlapping their read holds on
//   one object keep its read node, and a writer queued behind it waits until they pause. Give such threads
//   objects of their own when remote writers must get through.
//
// Reentrancy
//   As lock_options::reentrant says: without it (the default) a thread that locks a side of an object it already
//   holds gets std::system_error(lock_errc::already_held) instead of a deadlock; with it, the side counts up and
//   its unlock counts down. Whatever the option, a thread holding the write side gets already_held from
//   lock_shared() (a read node behind our own writer would be granted, but the two sides' releases would then
//   have to be ordered by hand), and a thread holding the read side gets lock_errc::upgrade_not_allowed from
//   lock() (it would wait for itself).
//
// Errors
//   lock(), lock_shared() and the try_* functions throw std::system_error with the recipe's error codes
//   (errors.hpp, lock.hpp's async_acquire): the session's end, server errors about the directory,
//   lock_errc::lock_lost (the lock was lost and not yet unlocked), lock_errc::already_held. A try_* that runs out of
//   time returns false (lock_errc::timeout is never thrown). try_lock() asks the server once (one round trip) and
//   never waits longer than the session timeout (the default connect timeout) for that answer, or the
//   client_options::request_timeout when it is shorter: with no server reachable it returns false then, as a
//   try_lock_for() does when its time is up (the node it may have created is deleted in the background).
//
// unlock() and unlock_shared() never throw (std::unique_lock calls them from its destructor). They give the hold up
//   at once (state() is released, the object can be locked again) and wait until the server confirms the deletion
//   of our node, at most the session timeout. If it is not confirmed by then (no connection to any server), they
//   return anyway and the deletion is retried in the background across reconnects until it succeeds or the session
//   ends, which deletes the ephemeral node as well. Until then later contenders still wait behind our node: the
//   lock can be freed late, never granted twice. Unlocking a lost lock just resets it. Unlocking an object this
//   thread does not hold does nothing.
//
// Loss
//   A held lock can be lost (lock.hpp "States"): state() says so, the listener is told, and the next unlock()
//   resets it. Code that must not run without the lock checks state() or uses fencing_token() with the resource.
//
// Thread safety and lifetime
//   Every member may be called from any thread except the client's loop thread (a listener, revocation handler or
//   watch callback): there it throws std::logic_error, since waiting would deadlock. The listener and revocation
//   handler run on that loop thread and must not call blocking methods (they may start asynchronous work on the
//   client). The blocking_client must outlive the lock objects. Destroying a held object gives the lock up in the
//   background (lock.hpp "Cleanup guarantee"); do not destroy an object another thread is using.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "zkwire/client/blocking_client.hpp"
#include "zkwire/recipes/lock.hpp"

namespace zkwire::recipes {

namespace detail {

class loop_bridge;

// A deadline on the steady clock (empty: none) from any clock's time point.
template <class Clock, class Duration>
std::chrono::steady_clock::time_point to_steady(const std::chrono::time_point<Clock, Duration>& t) {
  if constexpr (std::is_same_v<Clock, std::chrono::steady_clock>) {
    return std::chrono::time_point_cast<std::chrono::steady_clock::duration>(t);
  } else {
    return std::chrono::steady_clock::now() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(t - Clock::now());
  }
}

}  // namespace detail

class blocking_lock {
 public:
  // An exclusive lock on the lock directory `path` (created when missing). Connects nothing, creates nothing.
  blocking_lock(blocking_client& c, std::string path, lock_options options = {});
  // Gives a held lock up in the background.
  ~blocking_lock();
  blocking_lock(const blocking_lock&) = delete;
  blocking_lock& operator=(const blocking_lock&) = delete;
  blocking_lock(blocking_lock&&) = delete;
  blocking_lock& operator=(blocking_lock&&) = delete;

  // Waits without a time limit.
  void lock();
  // One try (one round trip): false if another contender holds it, or if no server answered within the session
  // timeout (see "Errors").
  bool try_lock();
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& d) {
    return acquire_until(std::chrono::steady_clock::now() + std::chrono::ceil<std::chrono::steady_clock::duration>(d));
  }
  template <class Clock, class Duration>
  bool try_lock_until(const std::chrono::time_point<Clock, Duration>& t) {
    return acquire_until(detail::to_steady(t));
  }
  // See the header comment: never throws.
  void unlock() noexcept;

  [[nodiscard]] lock_state state() const;
  // Our node's czxid while held, uncertain or lost; 0 otherwise.
  [[nodiscard]] std::int64_t fencing_token() const;
  [[nodiscard]] std::string node_path() const;
  [[nodiscard]] const std::string& directory() const noexcept { return directory_; }
  // lock::metrics(): this object's contention metrics; snapshot() from any thread (lock_options::metrics for an
  // aggregate).
  [[nodiscard]] std::shared_ptr<const lock_metrics> metrics() const;
  // lock::set_listener and lock::set_revocation_handler; they run on the client's loop thread.
  void set_listener(lock_listener listener);
  void set_revocation_handler(revocation_handler handler);

 private:
  bool acquire_until(std::optional<std::chrono::steady_clock::time_point> deadline);

  std::string directory_;
  bool reentrant_;
  std::unique_ptr<detail::loop_bridge> bridge_;
  std::unique_ptr<recipes::lock> lock_;  // lives on the loop thread

  std::mutex mutex_;
  std::condition_variable changed_;
  bool taken_ = false;  // a local thread holds this object or is acquiring it in ZooKeeper
  std::thread::id owner_;
  std::size_t depth_ = 0;
};

class blocking_read_write_lock {
 public:
  blocking_read_write_lock(blocking_client& c, std::string path, lock_options options = {});
  ~blocking_read_write_lock();
  blocking_read_write_lock(const blocking_read_write_lock&) = delete;
  blocking_read_write_lock& operator=(const blocking_read_write_lock&) = delete;
  blocking_read_write_lock(blocking_read_write_lock&&) = delete;
  blocking_read_write_lock& operator=(blocking_read_write_lock&&) = delete;

  // --- write side (exclusive) ---
  void lock();
  bool try_lock();
  template <class Rep, class Period>
  bool try_lock_for(const std::chrono::duration<Rep, Period>& d) {
    return write_until(std::chrono::steady_clock::now() + std::chrono::ceil<std::chrono::steady_clock::duration>(d));
  }
  template <class Clock, class Duration>
  bool try_lock_until(const std::chrono::time_point<Clock, Duration>& t) {
    return write_until(detail::to_steady(t));
  }
  void unlock() noexcept;

  // --- read side (shared) ---
  void lock_shared();
  bool try_lock_shared();
  template <class Rep, class Period>
  bool try_lock_shared_for(const std::chrono::duration<Rep, Period>& d) {
    return read_until(std::chrono::steady_clock::now() + std::chrono::ceil<std::chrono::steady_clock::duration>(d));
  }
  template <class Clock, class Duration>
  bool try_lock_shared_until(const std::chrono::time_point<Clock, Duration>& t) {
    return read_until(detail::to_steady(t));
  }
  void unlock_shared() noexcept;

  [[nodiscard]] lock_state write_state() const;
  [[nodiscard]] lock_state read_state() const;
  // The write side's fencing token while held; 0 otherwise.
  [[nodiscard]] std::int64_t fencing_token() const;
  [[nodiscard]] const std::string& directory() const noexcept { return directory_; }
  // Set on both sides; they run on the client's loop thread.
  void set_listener(lock_listener listener);
  void set_revocation_handler(revocation_handler handler);

 private:
  bool write_until(std::optional<std::chrono::steady_clock::time_point> deadline);
  bool read_until(std::optional<std::chrono::steady_clock::time_point> deadline);

  std::string directory_;
  bool reentrant_;
  std::unique_ptr<detail::loop_bridge> bridge_;
  std::unique_ptr<read_write_lock> lock_;  // lives on the loop thread

  std::mutex mutex_;
  std::condition_variable changed_;
  bool writer_ = false;  // a local thread holds the write side or is acquiring it
  std::thread::id writer_owner_;
  std::size_t write_depth_ = 0;
  std::size_t writers_waiting_ = 0;
  std::vector<std::thread::id> readers_;  // local threads holding the read side (sharing one node), with repeats
  bool read_acquiring_ = false;           // the first local reader is acquiring the read node
};

}  // namespace zkwire::recipes
