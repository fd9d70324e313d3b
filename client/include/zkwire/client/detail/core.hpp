#pragma once
// The boundary between the header-only completion-token adapters (client.hpp, watch.hpp) and the compiled
// driver (client/src/client.cpp). Internal: everything here runs on the client's executor.

#include <asio/any_io_executor.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "zkwire/client/types.hpp"
#include "zkwire/proto/message.hpp"
#include "zkwire/proto/session/session.hpp"

namespace zkwire::detail {

class client_impl;  // NOLINT(cppcoreguidelines-virtual-class-destructor): final, owned by shared_ptr only

// The result of operations that only report success or an error.
struct no_result {};

// One pending request, connect or close: the type-erased completion handler.
class pending_op {
 public:
  pending_op() = default;
  pending_op(const pending_op&) = delete;
  pending_op& operator=(const pending_op&) = delete;
  pending_op(pending_op&&) = delete;
  pending_op& operator=(pending_op&&) = delete;
  virtual ~pending_op() = default;

  // The engine completed the request (dispatched: never called from an initiating function).
  virtual void complete(proto::completion&& c) = 0;
  // Completes without an engine result (connect/close waiters, shutdown): with `post`, never inline.
  virtual void fail(std::error_code ec, bool post) = 0;

  // One operation is allocated per request; these take its memory from a per-thread cache of blocks
  // (client/src/op_memory.cpp), so that in steady state a request costs no heap allocation for it.
  // Only the sized delete: with an unsized one in the class, a delete expression would pick that and lose the size.
  // NOLINTNEXTLINE(misc-new-delete-overloads,cert-dcl54-cpp)
  static void* operator new(std::size_t size);
  static void operator delete(void* p, std::size_t size) noexcept;
  // NOLINTNEXTLINE(misc-new-delete-overloads,cert-dcl54-cpp)
  static void* operator new(std::size_t size, std::align_val_t align);
  static void operator delete(void* p, std::size_t size, std::align_val_t align) noexcept;
};

// A pending watch::async_wait.
class event_waiter {
 public:
  event_waiter() = default;
  event_waiter(const event_waiter&) = delete;
  event_waiter& operator=(const event_waiter&) = delete;
  event_waiter(event_waiter&&) = delete;
  event_waiter& operator=(event_waiter&&) = delete;
  virtual ~event_waiter() = default;

  virtual void deliver(std::error_code ec, watch_event event, bool post) = 0;
};

// What a zkwire::watch refers to: the one event of a one-shot watch, and at most one waiter for it.
struct watch_state {
  std::optional<watch_event> event;
  std::unique_ptr<event_waiter> waiter;
};

// The user's side of a watcher to register with a request (getData/exists/getChildren2 with watch=true,
// addWatch). Its kind and path are the engine's: it derives them from the request.
struct watch_registration {
  watch_callback callback;             // either this ...
  std::shared_ptr<watch_state> state;  // ... or this
  std::optional<watcher_key> key;      // with a callback: the watcher it is, shared with other reads of that key
};

enum class wait_kind { connect, new_session, close };

// --- implemented in client/src/client.cpp (the driver: client_impl.cpp) ---
asio::any_io_executor executor_of(const client_impl& impl) noexcept;
// Queues a request with the engine; the completion comes later through op->complete (or op->fail on shutdown).
// `timeout`: the per-call request timeout (with_timeout); nullopt: client_options::request_timeout.
// `server_path`: the path is sent without the chroot (getConfig).
proto::request_id start_request(client_impl& impl, proto::op_code op, proto::request_body body,
                                std::optional<watch_registration> watch, std::unique_ptr<pending_op> op_state,
                                std::optional<std::chrono::nanoseconds> timeout, bool server_path = false);
// removeWatches; on success the engine also drops the local watchers of that path and kind, each with a final
// *_watch_removed event delivered before the completion. With `key`: checkWatches, and on success that watcher
// alone is dropped (NOWATCHER at once, unsent, when it has no such registration).
proto::request_id start_remove_watches(client_impl& impl, std::string path, watcher_type type,
                                       std::optional<watcher_key> key, std::unique_ptr<pending_op> op_state,
                                       std::optional<std::chrono::nanoseconds> timeout);
proto::request_id start_add_auth(client_impl& impl, std::string scheme, std::string credentials,
                                 std::unique_ptr<pending_op> op_state);
void cancel_request(const std::weak_ptr<client_impl>& impl, proto::request_id id);
std::uint64_t start_wait(client_impl& impl, wait_kind kind, std::unique_ptr<pending_op> op_state);
void cancel_wait(const std::weak_ptr<client_impl>& impl, std::uint64_t id);
void start_watch_wait(const std::shared_ptr<watch_state>& state, std::unique_ptr<event_waiter> waiter);
void cancel_watch_wait(const std::weak_ptr<watch_state>& state);

// --- result conversions, implemented in client/src/results.cpp ---
// Each returns the operation's error and fills `out` on success.
std::error_code convert(proto::completion&& c, no_result& out);
std::error_code convert(proto::completion&& c, create_result& out);
std::error_code convert(proto::completion&& c, get_result& out);
std::error_code convert(proto::completion&& c, std::optional<zkwire::stat>& out);  // exists: NONODE is nullopt
std::error_code convert(proto::completion&& c, zkwire::stat& out);                 // set, set_acl
std::error_code convert(proto::completion&& c, children_result& out);
std::error_code convert(proto::completion&& c, acl_result& out);
std::error_code convert(proto::completion&& c, std::vector<op_result>& out);    // multi, multi_read
std::error_code convert(proto::completion&& c, std::vector<std::string>& out);  // get_ephemerals
std::error_code convert(proto::completion&& c, std::int32_t& out);              // get_all_children_number
std::error_code convert(proto::completion&& c, std::vector<client_info>& out);  // whoami

}  // namespace zkwire::detail
