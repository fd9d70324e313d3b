#pragma once
// A type-erased pending completion with signature void(std::error_code, Args...), for operations whose state is
// not a template on the handler (the recipes' locks keep their waiters in maps). Built on handler_holder, so it
// behaves like the client's own operations: delivered on the handler's associated executor, never inline, with
// outstanding work tracked on that executor until then, the cancellation slot cleared first, and the handler's
// associated allocator used for its memory. Internal to zkwire, shared with the recipes on purpose
// (docs/design.md#layers says what they share and why).
//
// As Asio's own operations do, the completion's memory comes from the handler's associated allocator and is
// given back before the handler can run, so a handler may reuse it (e.g. a one-slot recycling allocator).

#include <asio/any_io_executor.hpp>
#include <asio/associated_allocator.hpp>
#include <memory>
#include <system_error>
#include <type_traits>
#include <utility>

#include "zkwire/client/detail/handler.hpp"

namespace zkwire::detail {

struct completion_deleter;

template <class... Args>
class completion {
 public:
  // Public and virtual for the compilers' and linters' rules; never deleted as such: discard() frees it with its
  // handler's allocator.
  virtual ~completion() = default;
  completion(const completion&) = delete;
  completion& operator=(const completion&) = delete;
  completion(completion&&) = delete;
  completion& operator=(completion&&) = delete;

 protected:
  completion() = default;

 private:
  template <class... A>
  friend void complete(std::unique_ptr<completion<A...>, completion_deleter> done, std::error_code ec,
                       std::type_identity_t<A>... args);
  friend struct completion_deleter;

  // Frees this completion, then posts the handler with the arguments.
  virtual void complete_and_free(std::error_code ec, Args... args) = 0;
  // Frees this completion without calling the handler (the operation was abandoned).
  virtual void discard() noexcept = 0;
};

struct completion_deleter {
  template <class... Args>
  void operator()(completion<Args...>* c) const noexcept {
    c->discard();
  }
};

// Owns a pending completion; dropping it without complete() destroys the handler uncalled.
template <class... Args>
using completion_ptr = std::unique_ptr<completion<Args...>, completion_deleter>;

// Posts `done`'s handler with (ec, args...) on its associated executor; never runs it inline.
template <class... Args>
void complete(completion_ptr<Args...> done, std::error_code ec, std::type_identity_t<Args>... args) {
  done.release()->complete_and_free(ec, std::move(args)...);
}

template <class Handler, class... Args>
class completion_of final : public completion<Args...> {
 public:
  using allocator_type =
      typename std::allocator_traits<asio::associated_allocator_t<Handler>>::template rebind_alloc<completion_of>;

  // Allocates with the handler's associated allocator. `fallback` is the executor to run on when the handler
  // has no associated executor.
  static completion_ptr<Args...> make(Handler handler, const asio::any_io_executor& fallback) {
    allocator_type alloc(asio::get_associated_allocator(handler));
    using traits = std::allocator_traits<allocator_type>;
    completion_of* memory = traits::allocate(alloc, 1);
    try {
      traits::construct(alloc, memory, std::move(handler), fallback, alloc);
    } catch (...) {
      traits::deallocate(alloc, memory, 1);
      throw;
    }
    return completion_ptr<Args...>(memory);
  }

  completion_of(Handler handler, const asio::any_io_executor& fallback, const allocator_type& alloc)
      : holder_(std::move(handler), fallback), alloc_(alloc) {}

 private:
// GCC 12 wrongly sees the moved holder's emptied std::optional<work executor> as maybe uninitialized.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
  void complete_and_free(std::error_code ec, Args... args) override {
    // Out of this memory first, so that it is given back before the handler can run (on any thread).
    handler_holder<Handler> holder(std::move(holder_));
    discard();
    holder.invoke(true, ec, std::move(args)...);
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  void discard() noexcept override {
    allocator_type alloc(alloc_);
    using traits = std::allocator_traits<allocator_type>;
    traits::destroy(alloc, this);
    traits::deallocate(alloc, this, 1);
  }

  handler_holder<Handler> holder_;
  allocator_type alloc_;
};

// The pending completion of `handler`, for signature void(std::error_code, Args...).
template <class... Args, class Handler>
completion_ptr<Args...> make_completion(Handler&& handler, const asio::any_io_executor& fallback) {
  return completion_of<std::decay_t<Handler>, Args...>::make(std::forward<Handler>(handler), fallback);
}

}  // namespace zkwire::detail
