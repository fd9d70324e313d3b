// zkwire_lock_waiter_memory: client heap memory per lock waiter. One client holds a lock; W lock objects on a second
// client queue behind it (each with its node, its watch on its predecessor and its pending acquire). Prints the
// heap bytes in use (glibc mallinfo2: the heap's chunks and the large blocks malloc maps on their own) and the
// allocations per waiter, against the same client idle, in one run: once all have queued, and again once the
// waiting client has been idle for a ping interval (it then gives back what the burst of their requests made its
// buffers grow), the steady cost of a waiting lock. The waiters start all at once by default; -b starts them in
// batches of BATCH, each once the previous one has queued.
//
//   zkwire_lock_waiter_memory -s HOST:PORT [-w WAITERS] [-b BATCH]     (default 1000, all at once)

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <asio/io_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "allocation_counter.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/recipes/lock.hpp"

namespace {

std::size_t heap_in_use() {
  const auto info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

// Runs the loop until `done()` or the deadline; false on timeout.
template <class Done>
bool run_until(asio::io_context& io, Done done, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    io.run_for(std::chrono::milliseconds(10));
  }
  return true;
}

int fail(const char* what, std::error_code ec = {}) {
  std::fprintf(stderr, "zkwire_lock_waiter_memory: %s%s%s\n", what, ec ? ": " : "", ec ? ec.message().c_str() : "");
  return 1;
}

int run(int argc, char** argv) {
  std::string servers = "127.0.0.1:2181";
  std::size_t waiters = 1000;
  std::size_t batch = 0;  // 0: all at once
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "-s") {
      servers = argv[i + 1];
    } else if (option == "-w") {
      waiters = std::strtoul(argv[i + 1], nullptr, 10);
    } else if (option == "-b") {
      batch = std::strtoul(argv[i + 1], nullptr, 10);
    } else {
      return fail("usage: zkwire_lock_waiter_memory -s HOST:PORT [-w WAITERS] [-b BATCH]");
    }
  }
  if (batch == 0 || batch > waiters) batch = waiters;
  using zkwire::recipes::lock;
  asio::io_context io;
  zkwire::client_options options;
  options.connect_string = servers;
  zkwire::client holder_client(io.get_executor(), options);
  zkwire::client waiter_client(io.get_executor(), options);
  const std::string directory = "/zkwire-waiter-memory-" + std::to_string(::getpid());

  lock holder(holder_client, directory);
  std::optional<std::error_code> held_ec;
  holder.async_acquire([&](std::error_code ec) { held_ec = ec; });
  std::optional<std::error_code> connect_ec;
  waiter_client.async_connect([&](std::error_code ec) { connect_ec = ec; });
  if (!run_until(io, [&] { return held_ec && connect_ec; })) return fail("no session or lock within 60 s");
  if (*held_ec) return fail("holder", *held_ec);
  if (*connect_ec) return fail("waiter client", *connect_ec);

  // The baseline: the waiting client connected and idle, after a round trip so its buffers have their size.
  bool synced = false;
  waiter_client.async_sync("/", [&](std::error_code, auto&&...) { synced = true; });
  run_until(io, [&] { return synced; });
  const std::size_t heap_before = heap_in_use();
  const std::uint64_t allocations_before = zkwire::bench::heap_allocations();

  std::vector<std::unique_ptr<lock>> queue;
  queue.reserve(waiters);
  std::size_t completed = 0;
  for (std::size_t i = 0; i < waiters; ++i) queue.push_back(std::make_unique<lock>(waiter_client, directory));
  const std::size_t heap_objects = heap_in_use();
  // Every waiter started has its node and its watch once the server has one child per waiter plus the holder's
  // (counted from the directory's stat: listing a thousand names would grow the holder client's buffers, which
  // this process's heap would count).
  std::size_t children = 0;
  const auto all_queued = [&](std::size_t started) {
    return run_until(io, [&] {
      bool looked = false;
      holder_client.async_exists(directory, [&](std::error_code ec, const std::optional<zkwire::stat>& st) {
        if (!ec && st) children = static_cast<std::size_t>(st->num_children);
        looked = true;
      });
      run_until(io, [&] { return looked; });
      return children == started + 1 && waiter_client.pending_requests() == 0;
    });
  };
  for (std::size_t started = 0; started < waiters;) {
    const std::size_t end = std::min(waiters, started + batch);
    for (; started < end; ++started) queue[started]->async_acquire([&](std::error_code) { ++completed; });
    if (!all_queued(started)) return fail("the waiters did not all queue within 60 s");
  }
  const std::size_t heap_queued = heap_in_use();
  const std::uint64_t allocations_after = zkwire::bench::heap_allocations();
  // Idle for a ping interval: an answer to a request written after the last waiter queued can only be a ping's.
  const auto queued_at = std::chrono::steady_clock::now();
  if (!run_until(io, [&] {
        const auto answered = waiter_client.last_answered_send_time();
        return answered && *answered > queued_at;
      })) {
    return fail("the waiting client did not ping within 60 s");
  }
  const std::size_t heap_idle = heap_in_use();

  const auto per_waiter = [&](std::size_t heap) {
    return static_cast<double>(heap - heap_before) / static_cast<double>(waiters);
  };
  const double per_waiter_bytes = per_waiter(heap_idle);
  const double per_object_bytes = per_waiter(heap_objects);
  const double per_waiter_allocations =
      static_cast<double>(allocations_after - allocations_before) / static_cast<double>(waiters);
  std::printf(
      "waiters %zu (started %zu at a time): client heap %zu -> %zu bytes, %.0f bytes per waiter (including the lock "
      "object) once the client was idle for a ping interval, %.0f right after they queued; %.1f allocations per "
      "waiter while queueing\n"
      "  of which the lock object %.0f bytes, the pending acquire (task, node, watch, request state) %.0f bytes\n",
      waiters, batch, heap_before, heap_idle, per_waiter_bytes, per_waiter(heap_queued), per_waiter_allocations,
      per_object_bytes, per_waiter_bytes - per_object_bytes);

  // Clean up: the waiters give up (their nodes are deleted in the background), the holder releases.
  queue.clear();
  bool released = false;
  holder.async_release([&](std::error_code) { released = true; });
  run_until(io, [&] { return released; });
  bool closed = false;
  waiter_client.async_close(
      [&](std::error_code) { holder_client.async_close([&](std::error_code) { closed = true; }); });
  run_until(io, [&] { return closed; });
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zkwire_lock_waiter_memory: %s\n", e.what());
    return 1;
  }
}
