// The type-erased completion shared by the client and the recipes (zkwire/client/detail/completion.hpp): the
// handler's associated allocator, executor and cancellation slot are honoured, work is tracked on the handler's
// executor until completion, and the handler never runs inside complete().

#include "zkwire/client/detail/completion.hpp"

#include <gtest/gtest.h>

#include <asio/bind_allocator.hpp>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/bind_executor.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/strand.hpp>
#include <cstddef>
#include <memory>
#include <system_error>

namespace {

using zkwire::detail::complete;
using zkwire::detail::make_completion;

struct allocation_counts {
  std::size_t allocations = 0;
  std::size_t live = 0;
};

// Counts what is allocated through it; the memory itself comes from std::allocator.
template <class T>
struct counting_allocator {
  using value_type = T;

  explicit counting_allocator(allocation_counts* c) noexcept : counts(c) {}
  template <class U>
  counting_allocator(const counting_allocator<U>& other) noexcept  // NOLINT(google-explicit-constructor): rebind
      : counts(other.counts) {}

  T* allocate(std::size_t n) {
    T* p = std::allocator<T>{}.allocate(n);
    ++counts->allocations;
    ++counts->live;
    return p;
  }
  void deallocate(T* p, std::size_t n) noexcept {
    --counts->live;
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  bool operator==(const counting_allocator<U>& other) const noexcept {
    return counts == other.counts;
  }

  allocation_counts* counts;
};

TEST(Completion, MemoryComesFromTheHandlersAllocatorAndIsFreedBeforeTheHandlerRuns) {
  asio::io_context io;
  allocation_counts counts;
  std::size_t live_when_called = 1;
  int value = 0;
  auto handler = asio::bind_allocator(counting_allocator<void>(&counts),
                                      asio::bind_executor(io.get_executor(), [&](std::error_code ec, int v) {
                                        EXPECT_FALSE(ec);
                                        value = v;
                                        live_when_called = counts.live;
                                      }));
  auto done = make_completion<int>(std::move(handler), asio::any_io_executor(io.get_executor()));
  EXPECT_EQ(counts.allocations, 1U);  // the pending completion itself
  EXPECT_EQ(counts.live, 1U);

  complete(std::move(done), {}, 42);
  io.run();
  EXPECT_EQ(value, 42);
  // The queued function too: the handler's executor is concrete, so it honours the allocator property.
  EXPECT_GE(counts.allocations, 2U);
  EXPECT_EQ(live_when_called, 0U);  // as with Asio's own operations, given back before the upcall
  EXPECT_EQ(counts.live, 0U);
}

TEST(Completion, AbandonedCompletionGivesItsMemoryBack) {
  asio::io_context io;
  allocation_counts counts;
  bool called = false;
  auto done = make_completion<>(
      asio::bind_allocator(counting_allocator<void>(&counts), [&](std::error_code) { called = true; }),
      asio::any_io_executor(io.get_executor()));
  EXPECT_EQ(counts.live, 1U);
  done.reset();
  EXPECT_EQ(counts.live, 0U);
  io.run();
  EXPECT_FALSE(called);
}

TEST(Completion, RunsOnTheHandlersAssociatedExecutor) {
  asio::io_context io;
  auto strand = asio::make_strand(io);
  bool called = false;
  bool on_strand = false;
  auto done = make_completion<>(asio::bind_executor(strand,
                                                    [&](std::error_code) {
                                                      called = true;
                                                      on_strand = strand.running_in_this_thread();
                                                    }),
                                asio::any_io_executor(io.get_executor()));
  complete(std::move(done), {});
  io.run();
  EXPECT_TRUE(called);
  EXPECT_TRUE(on_strand);
}

TEST(Completion, TracksWorkOnTheHandlersExecutorUntilCompleted) {
  asio::io_context client_io;
  asio::io_context handler_io;
  bool called = false;
  auto done = make_completion<>(asio::bind_executor(handler_io.get_executor(), [&](std::error_code) { called = true; }),
                                asio::any_io_executor(client_io.get_executor()));
  // poll() stops an io_context that has no outstanding work; the pending completion is such work.
  handler_io.poll();
  EXPECT_FALSE(handler_io.stopped());

  complete(std::move(done), {});
  client_io.run();
  EXPECT_FALSE(called);  // not on the fallback executor: the handler has its own
  handler_io.run();
  EXPECT_TRUE(called);
  EXPECT_TRUE(handler_io.stopped());  // and the work ended with the completion

  // A completion dropped without completing ends its work too.
  handler_io.restart();
  auto dropped = make_completion<>(asio::bind_executor(handler_io.get_executor(), [](std::error_code) {}),
                                   asio::any_io_executor(client_io.get_executor()));
  handler_io.poll();
  EXPECT_FALSE(handler_io.stopped());
  dropped.reset();
  handler_io.poll();
  EXPECT_TRUE(handler_io.stopped());
}

TEST(Completion, NeverRunsTheHandlerInsideComplete) {
  // Completed from code already running on the handler's executor, where a dispatch would run it inline.
  asio::io_context io;
  auto strand = asio::make_strand(io);
  bool returned = false;
  bool called_after_return = false;
  auto done = make_completion<>(asio::bind_executor(strand, [&](std::error_code) { called_after_return = returned; }),
                                asio::any_io_executor(io.get_executor()));
  asio::post(strand, [&] {
    complete(std::move(done), {});
    returned = true;
  });
  io.run();
  EXPECT_TRUE(returned);
  EXPECT_TRUE(called_after_return);
}

TEST(Completion, ClearsTheCancellationSlotBeforeDelivering) {
  asio::io_context io;
  asio::cancellation_signal signal;
  bool called = false;
  bool cancel_handler_ran = false;
  auto done = make_completion<>(asio::bind_cancellation_slot(signal.slot(), [&](std::error_code) { called = true; }),
                                asio::any_io_executor(io.get_executor()));
  // What an initiating function installs (e.g. the recipes' cancellers).
  signal.slot().assign([&](asio::cancellation_type) { cancel_handler_ran = true; });
  complete(std::move(done), {});
  EXPECT_FALSE(signal.slot().has_handler());
  signal.emit(asio::cancellation_type::terminal);  // late: must find nothing to cancel
  io.run();
  EXPECT_TRUE(called);
  EXPECT_FALSE(cancel_handler_ran);
}

}  // namespace
