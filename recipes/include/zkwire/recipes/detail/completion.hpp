#pragma once
// Type-erased, move-only storage of a completion handler, delivered on the handler's associated executor with
// outstanding work tracked until then. Internal to the recipes.

#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/associated_executor.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <memory>
#include <optional>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zkwire::recipes::detail {

// A pending completion with signature void(std::error_code, Args...).
template <class... Args>
class completion {
 public:
  completion() = default;
  completion(const completion&) = delete;
  completion& operator=(const completion&) = delete;
  completion(completion&&) = delete;
  completion& operator=(completion&&) = delete;
  virtual ~completion() = default;

  // Posts the handler with the arguments (never runs it inline). Call at most once.
  virtual void complete(std::error_code ec, Args... args) = 0;
};

template <class Handler, class... Args>
class completion_of final : public completion<Args...> {
 public:
  using handler_executor = asio::associated_executor_t<Handler, asio::any_io_executor>;
  using work_executor = std::decay_t<decltype(asio::prefer(std::declval<const handler_executor&>(),
                                                           asio::execution::outstanding_work_t::tracked))>;

  completion_of(Handler handler, const asio::any_io_executor& fallback)
      : handler_(std::move(handler)),
        work_(asio::prefer(asio::get_associated_executor(handler_, fallback),
                           asio::execution::outstanding_work_t::tracked)) {}

  void complete(std::error_code ec, Args... args) override {
    auto slot = asio::get_associated_cancellation_slot(handler_);
    if (slot.is_connected()) slot.clear();
    auto executor = asio::get_associated_executor(handler_, *work_);
    asio::post(executor, [handler = std::move(handler_), ec, args = std::make_tuple(std::move(args)...)]() mutable {
      std::apply([&](auto&&... a) { std::move(handler)(ec, std::move(a)...); }, std::move(args));
    });
    work_.reset();
  }

 private:
  Handler handler_;
  std::optional<work_executor> work_;
};

template <class... Args, class Handler>
std::unique_ptr<completion<Args...>> make_completion(Handler&& handler, const asio::any_io_executor& fallback) {
  return std::make_unique<completion_of<std::decay_t<Handler>, Args...>>(std::forward<Handler>(handler), fallback);
}

}  // namespace zkwire::recipes::detail
