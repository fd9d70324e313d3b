#include "handle.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>

#include "ops.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::capi {

namespace {

thread_local zhandle_t* serving = nullptr;  // set by the completion thread's loop

}  // namespace

void completion_queue::push(std::function<void()> work) {
  bool wake = false;
  {
    const std::lock_guard lock(mutex_);
    work_.push_back(std::move(work));
    wake = waiting_;
  }
  if (wake) ready_.notify_one();  // a busy completion thread takes the new work with its next batch
}

void completion_queue::run() {
  std::vector<std::function<void()>> batch;  // swapped with work_: the two buffers keep their capacity
  std::unique_lock lock(mutex_);
  for (;;) {
    waiting_ = true;
    ready_.wait(lock, [&] { return stopping_ || !work_.empty(); });
    waiting_ = false;
    if (work_.empty()) return;  // stopping, and everything queued before the stop ran
    batch.swap(work_);
    lock.unlock();
    for (auto& work : batch) work();
    batch.clear();
    lock.lock();
  }
}

void completion_queue::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_one();
}

zhandle_t* completion_thread_handle() noexcept { return serving; }

void run_completions(zhandle_t* zh) {
  serving = zh;
  zh->completions.run();
  serving = nullptr;
  // zookeeper_close ran on this thread: nobody else may free the handle now.
  if (zh->free_on_completion_exit) delete zh;
}

int check_handle(const zhandle_t* zh) noexcept {
  if (zh == nullptr) return ZBADARGUMENTS;
  // A call racing zookeeper_close (a watcher calling back into the handle while the application closes it) gets
  // what the C client gives a request that close cut short: ZCLOSING, not a state error.
  if (zh->closing) return ZCLOSING;
  if (zh->unrecoverable) return ZINVALIDSTATE;
  return ZOK;
}

int check_path(const char* path, bool sequential) noexcept {
  if (path == nullptr) return ZBADARGUMENTS;
  return proto::validate_path(path, sequential) ? ZBADARGUMENTS : ZOK;
}

int wait_sync(zhandle_t* /*zh*/, const std::function<void(std::function<void(int)>)>& run) {
  // The I/O thread stores the result and wakes the caller with one futex call once it released the client lock;
  // the caller sleeps on the same word. A mutex and condition variable cost a futex call more on every wake-up
  // (glibc counts the mutex taken back after the wait as contended), and std::atomic's wait spins with sched_yield
  // calls first: both on the way from the reply to the caller's return. Shared, so the wake never meets a freed word.
  struct rendezvous {
    std::atomic<std::uint32_t> finished{0};
    int rc = ZOK;
  };
  auto r = std::make_shared<rendezvous>();
  run([r](int rc) {
    r->rc = rc;
    r->finished.store(1, std::memory_order_release);
    wake_after_unlock(std::shared_ptr<std::atomic<std::uint32_t>>(r, &r->finished));
  });
  while (r->finished.load(std::memory_order_acquire) == 0) futex_wait(r->finished, 0);
  return r->rc;
}

zkwire::watch_callback arm_watcher(zhandle_t* zh, const watcher_ref& ref) {
  // One callback per (function, context) while it is registered (the client keeps the first one given for a key):
  // the client calls it once per event, in the C client's order (docs/libzookeeper.md#watches).
  return [zh, ref](const zkwire::watch_event& event) {
    // A removed watcher is not called, as in the C client (zoo_remove_watches).
    if (event.type == zkwire::event_type::data_watch_removed || event.type == zkwire::event_type::child_watch_removed ||
        event.type == zkwire::event_type::persistent_watch_removed) {
      return;
    }
    if (event.error) {
      // The session ended: an expired or rejected session is news for this watcher, unless it is the handle's own
      // watcher with the handle's context, which hears it as the handle's watcher; a close is not news.
      int state = 0;
      if (event.state == zkwire::keeper_state::expired) {
        state = ZOO_EXPIRED_SESSION_STATE;
      } else if (event.state == zkwire::keeper_state::auth_failed) {
        state = ZOO_AUTH_FAILED_STATE;
      } else {
        return;
      }
      deliver(zh, [zh, ref, state] {
        if (ref.fn == zh->watcher.load() && ref.context == zh->context.load()) return;
        ref.fn(zh, ZOO_SESSION_EVENT, state, "", ref.context);
      });
      return;
    }
    // Once zookeeper_close was called the C client calls no watcher for what it still receives (the deletion of
    // the session's own ephemeral nodes among it).
    if (zh->closing) return;
    const int type = event_to_c(event.type);
    deliver(zh,
            [zh, ref, type, path = event.path] { ref.fn(zh, type, ZOO_CONNECTED_STATE, path.c_str(), ref.context); });
  };
}

}  // namespace zkwire::capi
