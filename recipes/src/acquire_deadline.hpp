#pragma once
// The time limit of one acquire (lock, semaphore), shared by its timer and its requests: the caller is answered
// lock_errc::timeout by a wakeup on the client's clock, and every request the acquire sends carries what is left
// of the limit as its deadline (docs/protocol.md#deadlines), so a server that stops answering without dropping the
// connection cannot hold the acquire past it. A try-once acquire (timeout 0) is bounded by the client's
// request_timeout instead.

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <system_error>

#include "client_ops.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/recipes/errors.hpp"

namespace zkwire::recipes::detail {

struct acquire_deadline {
  bool try_once = false;                               // timeout 0
  proto::time_point until = proto::time_point::max();  // max(): no limit (negative timeout, or try-once)

  // What is left of the limit on `c`'s clock; nullopt without a limit (the client's request_timeout applies).
  [[nodiscard]] std::optional<std::chrono::nanoseconds> remaining(const client* c) const {
    if (until == proto::time_point::max() || c == nullptr) return std::nullopt;
    return std::max<std::chrono::nanoseconds>(until - c->clock()->now(), std::chrono::nanoseconds::zero());
  }

  // Starts a request with `start(token)` (a tuple awaitable), bounded by remaining().
  template <class Start>
  [[nodiscard]] auto bounded(const client* c, Start start) const {
    if (auto left = remaining(c)) return start(with_timeout(*left, tuple_awaitable));
    return start(tuple_awaitable);
  }

  // A request ran out of time and so did the acquire: its limit has passed, or it is a try-once acquire. Otherwise a
  // request timeout (the client's request_timeout, shorter than the acquire's) is retried like a connection loss.
  [[nodiscard]] bool out_of_time(std::error_code ec, const client* c) const {
    if (ec != client_error::operation_timeout) return false;
    if (try_once) return true;
    return until != proto::time_point::max() && (c == nullptr || c->clock()->now() >= until);
  }

  // The limit of a nested acquire (the semaphore's mutex) that must end with this one: 0 for try-once, negative
  // without a limit, else what is left, rounded up to whole milliseconds (at least 1: 0 would mean try-once).
  [[nodiscard]] std::chrono::milliseconds nested_timeout(const client* c) const {
    if (try_once) return std::chrono::milliseconds(0);
    const auto left = remaining(c);
    if (!left) return std::chrono::milliseconds(-1);
    return std::max(std::chrono::ceil<std::chrono::milliseconds>(*left), std::chrono::milliseconds(1));
  }
};

// Starts the limit of attempt `a` (an `acquire_deadline limits` and a `std::unique_ptr<wakeup> deadline`) of
// `owner` (give_up(a, ec)) for `timeout`: 0 is try-once, negative none. When it passes, the caller gets
// lock_errc::timeout. Weak both ways: the attempt owns its wakeup, and the owner may go first.
template <class Owner, class Attempt>
void start_deadline(const std::shared_ptr<Owner>& owner, const std::shared_ptr<Attempt>& a, zkwire::clock& clock,
                    const asio::any_io_executor& executor, std::chrono::milliseconds timeout) {
  a->limits.try_once = timeout.count() == 0;
  if (timeout.count() <= 0) return;
  a->deadline = clock.make_wakeup(executor, [weak = std::weak_ptr<Owner>(owner), weak_attempt = std::weak_ptr(a)] {
    auto self = weak.lock();
    auto timed_out = weak_attempt.lock();
    if (self && timed_out) self->give_up(timed_out, lock_errc::timeout);
  });
  a->limits.until = clock.now() + timeout;
  a->deadline->expires_at(a->limits.until);
}

}  // namespace zkwire::recipes::detail
