#pragma once
// A zhandle_t: one zkwire::client on an io_context run by the handle's I/O thread, and a completion thread that
// calls the application's completions and watchers in the order they were queued (docs/libzookeeper.md#threads).
//
// The client is only touched under the handle's client lock: the I/O thread runs the client's handlers under it
// (client_lock.hpp), and a call takes it to start its operation on its own thread (run_locked), which writes
// the request itself when the connection is free, so that a call need not wake the I/O thread. Results are turned
// into C values where the client completes them (under the lock, mostly on the I/O thread) and queued as closures
// for the completion thread (deliver), except the results of synchronous calls, which go straight to the waiting
// caller (wait_sync), so that a synchronous call also works from a completion or watcher.

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "client_lock.hpp"
#include "zkwire/client/client.hpp"
#include "zookeeper.h"

namespace zkwire::capi {

// Closures for the completion thread, in order. stop() ends the thread once the queue is empty.
class completion_queue {
 public:
  void push(std::function<void()> work);
  // Runs queued work until stop(); returns after the last item.
  void run();
  void stop();

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<std::function<void()>> work_;  // a vector: no allocation before the first completion (a deque makes one)
  bool stopping_ = false;
  bool waiting_ = false;  // the completion thread sleeps on ready_
};

// A watcher of the C API: a function and its context, the watcher's identity (the C client's), given to a *_w* call
// or taken from the handle by a call with watch=1. Each is one keyed watcher of the client (zkwire::watcher_key):
// registered once per path and kind, called once per event.
struct watcher_ref {
  watcher_fn fn = nullptr;
  void* context = nullptr;
  bool operator==(const watcher_ref& other) const = default;

  [[nodiscard]] zkwire::watcher_key key() const noexcept {
    return {reinterpret_cast<std::uintptr_t>(fn), reinterpret_cast<std::uintptr_t>(context)};
  }
  static watcher_ref of(const zkwire::watcher_key& key) noexcept {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the key was made from these two pointers (key())
    return {reinterpret_cast<watcher_fn>(key.object), reinterpret_cast<void*>(key.tag)};
  }
};

}  // namespace zkwire::capi

// The C API's opaque handle (a global name: zookeeper.h declares `struct _zhandle`).
struct _zhandle {
  _zhandle() = default;
  _zhandle(const _zhandle&) = delete;
  _zhandle& operator=(const _zhandle&) = delete;
  _zhandle(_zhandle&&) = delete;
  _zhandle& operator=(_zhandle&&) = delete;
  ~_zhandle() = default;

  // --- set by zookeeper_init, read from any thread ---
  std::atomic<watcher_fn> watcher{nullptr};
  std::atomic<void*> context{nullptr};
  std::atomic<log_callback_fn> log_callback{nullptr};
  int requested_timeout = 0;
  std::string hosts_text;  // as given, for log lines

  // --- what the I/O thread publishes for the observers (zoo_state, zoo_client_id, ...) ---
  std::atomic<int> state{0};
  std::atomic<int> negotiated_timeout{0};
  std::atomic<bool> unrecoverable{false};
  std::atomic<bool> closing{false};
  std::mutex info_mutex;            // guards the three below
  clientid_t client_id{};           // zoo_client_id's answer
  std::string current_server;       // zoo_get_current_server's, "host:port" or ""
  std::string current_server_copy;  // the string returned to the caller (stable until the next call)

  // --- the I/O side: what follows the lock is touched only under it ---
  std::recursive_mutex client_lock;  // declared first: the client's executor and handlers refer to it
  asio::io_context io{1};
  std::optional<zkwire::client> client;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> io_work;  // until zookeeper_close
  std::thread io_thread;

  // --- the completion side ---
  zkwire::capi::completion_queue completions;
  std::thread completion_thread;
  std::atomic<bool> free_on_completion_exit{false};  // zookeeper_close was called from the completion thread
};

namespace zkwire::capi {

// The handle the current thread's completion loop serves (nullptr on other threads).
zhandle_t* completion_thread_handle() noexcept;

// Runs `work` (which may use the client) now, on this thread, under the handle's client lock.
template <class Work>
void run_locked(zhandle_t* zh, Work&& work) {
  const client_lock_guard guard(zh->client_lock);
  std::forward<Work>(work)();
}

// Queues `work` for the completion thread.
inline void deliver(zhandle_t* zh, std::function<void()> work) { zh->completions.push(std::move(work)); }

// ZBADARGUMENTS for a NULL handle, ZCLOSING once zookeeper_close began, ZINVALIDSTATE once the session ended, else
// ZOK.
int check_handle(const zhandle_t* zh) noexcept;
// ZOK for a path ZooKeeper accepts (with `sequential`, a prefix of one), else ZBADARGUMENTS.
int check_path(const char* path, bool sequential = false) noexcept;

}  // namespace zkwire::capi
