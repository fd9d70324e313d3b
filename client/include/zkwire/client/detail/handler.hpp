#pragma once
// Type-erased storage of completion handlers, and delivery on the handler's associated executor. Internal.

#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/associated_executor.hpp>
#include <asio/associator.hpp>
#include <asio/dispatch.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <optional>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zkwire::detail {

// A handler with its arguments bound, invoked with none; forwards the handler's associations (executor,
// allocator, cancellation slot) so Asio runs it where the handler asked to run.
template <class Handler, class... Args>
struct bound_handler {
  Handler handler;
  std::tuple<Args...> args;

  void operator()() { std::apply(std::move(handler), std::move(args)); }
};

// A completion handler together with the client's I/O executor (the fallback associated executor) and
// outstanding work on the handler's executor, as Asio requires of an asynchronous operation.
template <class Handler>
class handler_holder {
 public:
  using handler_executor = asio::associated_executor_t<Handler, asio::any_io_executor>;
  using work_executor = std::decay_t<decltype(asio::prefer(std::declval<const handler_executor&>(),
                                                           asio::execution::outstanding_work_t::tracked))>;
  using slot_type = asio::associated_cancellation_slot_t<Handler>;

  handler_holder(Handler handler, const asio::any_io_executor& io_executor)
      : handler_(std::move(handler)),
        slot_(asio::get_associated_cancellation_slot(handler_)),
        work_(asio::prefer(asio::get_associated_executor(handler_, io_executor),
                           asio::execution::outstanding_work_t::tracked)) {}

  [[nodiscard]] slot_type& slot() noexcept { return slot_; }

  // Invokes the handler with `args` on its associated executor: asio::post when `post` (never inline), else
  // asio::dispatch (inline only when already running on that executor). Call at most once. Clears the
  // cancellation slot first, so a late cancellation finds nothing to cancel.
  // Submitted straight to the handler's own executor rather than through the client's type-erased one: an
  // any_io_executor drops the execution::allocator property, so only the handler's concrete executor can
  // allocate the queued function with the handler's associated allocator.
  template <class... Args>
  void invoke(bool post, Args&&... args) {
    if (slot_.is_connected()) slot_.clear();
    bound_handler<Handler, std::decay_t<Args>...> bound{std::move(handler_),
                                                        std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)};
    if (post) {
      asio::post(*work_, std::move(bound));
    } else {
      asio::dispatch(*work_, std::move(bound));
    }
    work_.reset();
  }

 private:
  Handler handler_;
  slot_type slot_;
  std::optional<work_executor> work_;
};

}  // namespace zkwire::detail

namespace asio {
template <template <typename, typename> class Associator, class Handler, class... Args, class DefaultCandidate>
struct associator<Associator, zkwire::detail::bound_handler<Handler, Args...>, DefaultCandidate>
    : Associator<Handler, DefaultCandidate> {
  static typename Associator<Handler, DefaultCandidate>::type get(
      const zkwire::detail::bound_handler<Handler, Args...>& h,
      const DefaultCandidate& c = DefaultCandidate()) noexcept {
    return Associator<Handler, DefaultCandidate>::get(h.handler, c);
  }
};
}  // namespace asio
