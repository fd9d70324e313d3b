#pragma once
// Where a zkwire::client takes its time from: now() for every input to the session engine, and one-shot wakeups
// for the engine's timer (pings, read and connect timeouts, reconnect pacing) and for the connect-timeout of
// async_connect/async_new_session. The default, steady_clock_source(), is std::chrono::steady_clock with
// asio::steady_timer. A simulation supplies a virtual clock instead: its now() only moves when the test driver
// advances it, and its wakeups fire when it does, so one thread can drive many clients without sleeping.
// Chosen by client_options::clock.
//
// Execution and thread safety: a clock may be shared by several clients; now() may be called from any of their
// executors, so a clock shared across threads must make now() thread-safe (the steady clock is). A wakeup
// belongs to one client and is used only on that client's executor, and `fire` runs on that executor, never from
// inside expires_at() or cancel().
//
// Lifetimes: the clock outlives every wakeup made from it (clients hold it by shared_ptr). `fire` is never called
// after cancel(), after a later expires_at() replaced the expiry, or after the wakeup was destroyed; it may
// destroy the wakeup (and its owner) while running.

#include <asio/any_io_executor.hpp>
#include <functional>
#include <memory>

#include "zkwire/proto/session/session.hpp"

namespace zkwire {

// A one-shot timer that calls its `fire` function at (or after) its expiry time.
class wakeup {
 public:
  wakeup() = default;
  wakeup(const wakeup&) = delete;
  wakeup& operator=(const wakeup&) = delete;
  wakeup(wakeup&&) = delete;
  wakeup& operator=(wakeup&&) = delete;
  virtual ~wakeup() = default;

  // Arms the wakeup for `when` (in the clock's time), replacing any earlier expiry. A time already past fires
  // on the next turn of the executor.
  virtual void expires_at(proto::time_point when) = 0;
  // Disarms it; no-op when not armed.
  virtual void cancel() noexcept = 0;
};

class clock {
 public:
  clock() = default;
  clock(const clock&) = delete;
  clock& operator=(const clock&) = delete;
  clock(clock&&) = delete;
  clock& operator=(clock&&) = delete;
  virtual ~clock() = default;

  [[nodiscard]] virtual proto::time_point now() const = 0;
  // A disarmed wakeup that will call `fire` on `executor`. Called when a client is built and when
  // async_connect/async_new_session starts waiting.
  virtual std::unique_ptr<wakeup> make_wakeup(const asio::any_io_executor& executor, std::function<void()> fire) = 0;
};

// std::chrono::steady_clock and asio::steady_timer; one shared instance.
std::shared_ptr<clock> steady_clock_source();

}  // namespace zkwire
