#include "handle.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>

#include "ops.hpp"
#include "zkwire/proto/path.hpp"

namespace zkwire::capi {

namespace {

thread_local zhandle_t* serving = nullptr;  // set by the completion thread's loop

// False when `call` was already made for the event being delivered: the client fans one server notification out to
// every registration, synchronously, so a handler posted now runs after the whole fan-out.
bool first_call(zhandle_t* zh, event_call call) {
  const auto result = zh->calls_this_event.insert(std::move(call));
  if (result.second) {
    asio::post(zh->io, [zh, it = result.first] {
      const client_lock_guard guard(zh->client_lock);
      zh->calls_this_event.erase(it);
    });
  }
  return result.second;
}

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
  if (zh->closing || zh->unrecoverable) return ZINVALIDSTATE;
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

armed_watcher arm_watcher(zhandle_t* zh, const watch_arg& watch) {
  // The global watcher is read when the event comes (zoo_set_watcher may change it); it gets session events once,
  // as the handle's watcher, so it is not registered for them again.
  if (watch.how == watch_arg::kind::global) {
    return {0, [zh](const zkwire::watch_event& event) {
              if (event.error) return;  // the session ended: the handle's watcher heard it already
              const int type = event_to_c(event.type);
              const std::string path = event.path;
              if (!first_call(zh, event_call{path, type, {}})) return;
              deliver(zh, [zh, type, path] {
                if (watcher_fn fn = zh->watcher) fn(zh, type, ZOO_CONNECTED_STATE, path.c_str(), zh->context);
              });
            }};
  }
  const std::uint64_t key = zh->next_watcher_key++;
  zh->live_watchers.emplace(key, watch.ref);
  const watcher_ref ref = watch.ref;
  return {key, [zh, key, ref](const zkwire::watch_event& event) {
            zh->live_watchers.erase(key);
            // A removed watcher is not called, as in the C client (zoo_remove_watches).
            if (event.type == zkwire::event_type::data_watch_removed ||
                event.type == zkwire::event_type::child_watch_removed ||
                event.type == zkwire::event_type::persistent_watch_removed) {
              return;
            }
            int type = event_to_c(event.type);
            int state = ZOO_CONNECTED_STATE;
            if (event.error) {
              // The session ended: an expired or rejected session is news for this watcher; a close is not.
              if (event.state == zkwire::keeper_state::expired) {
                state = ZOO_EXPIRED_SESSION_STATE;
              } else if (event.state == zkwire::keeper_state::auth_failed) {
                state = ZOO_AUTH_FAILED_STATE;
              } else {
                return;
              }
              type = ZOO_SESSION_EVENT;
            }
            const std::string path = event.error ? std::string() : event.path;
            if (!first_call(zh, event_call{path, type, ref})) return;
            deliver(zh, [zh, ref, type, state, path] { ref.fn(zh, type, state, path.c_str(), ref.context); });
          }};
}

void forget_watcher(zhandle_t* zh, std::uint64_t key) {
  if (key != 0) zh->live_watchers.erase(key);
}

}  // namespace zkwire::capi
