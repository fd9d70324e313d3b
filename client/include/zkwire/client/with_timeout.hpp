#pragma once
// zkwire::with_timeout: a completion token with its own request deadline, for any zkwire::client request (see
// "Deadlines" in client.hpp):
//
//   auto got = co_await c.async_get("/config", zkwire::with_timeout(200ms, asio::use_awaitable));

#include <chrono>
#include <type_traits>
#include <utility>

namespace zkwire {

namespace detail {

// A completion token with a request timeout (with_timeout).
template <class CompletionToken>
struct timeout_token {
  std::chrono::nanoseconds timeout;
  CompletionToken token;
};
template <class T>
struct is_timeout_token : std::false_type {};
template <class CompletionToken>
struct is_timeout_token<timeout_token<CompletionToken>> : std::true_type {};

}  // namespace detail

// `token` with a request timeout for this call, replacing client_options::request_timeout (see "Deadlines"
// in client.hpp). Any completion token: a callback, asio::use_awaitable, asio::use_future, ... A zero or negative
// timeout completes at once with client_error::operation_timeout without sending anything.
template <class Rep, class Period, class CompletionToken>
auto with_timeout(std::chrono::duration<Rep, Period> timeout, CompletionToken&& token) {
  return detail::timeout_token<std::decay_t<CompletionToken>>{
      std::chrono::duration_cast<std::chrono::nanoseconds>(timeout), std::forward<CompletionToken>(token)};
}

}  // namespace zkwire
