#pragma once
// zkwire::watch: a one-shot watch armed by async_get_watch, async_exists_watch or async_get_children_watch, whose
// event can be awaited with any completion token:
//
//   auto [got, w] = co_await c.async_get_watch("/config", asio::use_awaitable);
//   zkwire::watch_event ev = co_await w.async_wait(asio::use_awaitable);  // NodeDataChanged, NodeDeleted, ...
//
// The event arrives exactly once. async_wait completes with it as soon as it is known; waiting again after that
// completes again with the same event. If the session ends before the event (expiry, auth failure, close, client
// destroyed), the event has type none, the state says why and the completion's error is set.
//
// Thread safety: like the client, a watch is used on the client's executor only. Copies refer to the same
// watch. Destroying every copy does not remove the server's registration; the event is then dropped.
// Cancellation: async_wait supports terminal and partial cancellation; it completes with
// client_error::cancelled and the watch stays armed (wait again to get the event).

#include <asio/async_result.hpp>
#include <asio/cancellation_type.hpp>
#include <asio/system_executor.hpp>
#include <memory>
#include <system_error>
#include <type_traits>
#include <utility>

#include "zkwire/client/detail/cancellation.hpp"
#include "zkwire/client/detail/core.hpp"
#include "zkwire/client/detail/handler.hpp"
#include "zkwire/client/errors.hpp"
#include "zkwire/client/types.hpp"

namespace zkwire {

class watch {
 public:
  // Not armed: async_wait fails with client_errc::no_watch (on the handler's associated executor, or on Asio's
  // system executor when the handler has none).
  watch() = default;

  [[nodiscard]] bool armed() const noexcept { return state_ != nullptr; }
  // True once the event (or the session's end) is known.
  [[nodiscard]] bool fired() const noexcept { return state_ && state_->event.has_value(); }

  // Signature void(std::error_code, watch_event). Never completes inline.
  template <class CompletionToken>
  auto async_wait(CompletionToken&& token) {
    return asio::async_initiate<CompletionToken, void(std::error_code, watch_event)>(initiate_wait{state_, executor_},
                                                                                     token);
  }

  // Internal: made by the client for the operations that arm a watch.
  explicit watch(std::shared_ptr<detail::watch_state> state, asio::any_io_executor executor)
      : state_(std::move(state)), executor_(std::move(executor)) {}

 private:
  template <class Handler>
  class wait_op final : public detail::event_waiter {
   public:
    wait_op(Handler handler, asio::any_io_executor executor) : holder_(std::move(handler), std::move(executor)) {}
    void deliver(std::error_code ec, watch_event event, bool post) override {
      holder_.invoke(post, ec, std::move(event));
    }
    [[nodiscard]] auto& slot() noexcept { return holder_.slot(); }

   private:
    detail::handler_holder<Handler> holder_;
  };

  struct initiate_wait {
    std::shared_ptr<detail::watch_state> state;
    asio::any_io_executor executor;

    template <class Handler>
    void operator()(Handler&& handler) const {
      using op_type = wait_op<std::decay_t<Handler>>;
      // A default-constructed watch belongs to no client: its no_watch error goes to the handler's associated
      // executor, or the system executor if it has none.
      auto op = std::make_unique<op_type>(std::forward<Handler>(handler),
                                          executor ? executor : asio::any_io_executor(asio::system_executor()));
      if (!state) {
        op->deliver(client_errc::no_watch, watch_event{}, true);
        return;
      }
      auto& slot = op->slot();
      detail::on_cancel(slot, [weak = std::weak_ptr<detail::watch_state>(state)] { detail::cancel_watch_wait(weak); });
      detail::start_watch_wait(state, std::move(op));
    }
  };

  std::shared_ptr<detail::watch_state> state_;
  asio::any_io_executor executor_;
};

// A read result together with the one-shot watch it armed (not armed if the read failed).
template <class Result>
struct watched {
  Result result;
  zkwire::watch watch;
};

}  // namespace zkwire
