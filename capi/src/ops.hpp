#pragma once
// The shape every operation of the C API shares: the caller's thread validates and copies the arguments and starts
// the client operation under the handle's client lock, and its result goes to a sink: for an asynchronous call a
// closure queued for the completion thread, for a synchronous one the waiting caller (handle.hpp).

#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <utility>

#include "convert.hpp"
#include "handle.hpp"

namespace zkwire::capi {

// Where a result goes, called under the client lock (mostly on the I/O thread) with the C return code.
template <class Result>
using sink = std::function<void(int rc, Result&& result)>;

// A result-less operation's result.
struct none {};

// A watcher argument of a read: none, or the (function, context) to register. watch=1 takes the handle's watcher
// and context as they are at the call, as the C client does (a later zoo_set_context does not change the context
// that watch is called with); without a handle watcher it asks for no watch.
struct watch_arg {
  std::optional<watcher_ref> ref;

  [[nodiscard]] bool wanted() const noexcept { return ref.has_value(); }
  static watch_arg from_flag(const zhandle_t* zh, int watch) {
    if (watch == 0 || zh == nullptr) return {};
    return own(zh->watcher.load(), zh->context.load());
  }
  static watch_arg own(watcher_fn fn, void* context) {
    return fn != nullptr ? watch_arg{watcher_ref{fn, context}} : watch_arg{};
  }
};

// The client's callback for the watcher `ref` (handle.cpp): calls it on the completion thread.
zkwire::watch_callback arm_watcher(zhandle_t* zh, const watcher_ref& ref);

// Runs start(client, done) under the client lock; done(ec, result) (the client's completion) reaches `out` as a C
// code. A handle whose client is already gone answers ZCLOSING.
template <class Result, class Start>
void start_op(zhandle_t* zh, Start start, sink<Result> out) {
  run_locked(zh, [zh, start = std::move(start), out = std::move(out)]() mutable {
    if (!zh->client) {
      out(ZCLOSING, Result{});
      return;
    }
    start(*zh->client,
          [out = std::move(out)](std::error_code ec, Result result) mutable { out(to_rc(ec), std::move(result)); });
  });
}

// The same for a client operation whose completion carries no result.
template <class Start>
void start_void_op(zhandle_t* zh, Start start, sink<none> out) {
  run_locked(zh, [zh, start = std::move(start), out = std::move(out)]() mutable {
    if (!zh->client) {
      out(ZCLOSING, none{});
      return;
    }
    start(*zh->client, [out = std::move(out)](std::error_code ec) mutable { out(to_rc(ec), none{}); });
  });
}

// A sink that queues call(rc, result) for the completion thread.
template <class Result, class Call>
sink<Result> async_sink(zhandle_t* zh, Call call) {
  return [zh, call = std::move(call)](int rc, Result&& result) mutable {
    deliver(zh, [call, rc, result = std::make_shared<Result>(std::move(result))]() mutable { call(rc, *result); });
  };
}

// Waits for a synchronous call: `run(done)` starts the operation with a sink that stores its outputs and then
// calls done(rc).
int wait_sync(zhandle_t* zh, const std::function<void(std::function<void(int)>)>& run);

}  // namespace zkwire::capi
