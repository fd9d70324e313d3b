#pragma once
// `zkwire lock`, `zkwire semaphore` and `zkwire elect`: take a lock (a semaphore's lease, an election's leadership)
// with the recipes library, run CMD under the child supervisor while it is held, and turn what happens (timeout,
// loss, signals, CMD's end) into the exit statuses of docs/cli.md#lock.

#include <asio/cancellation_signal.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "global_options.hpp"
#include "zkwire/client/client.hpp"
#include "zkwire/recipes/lock.hpp"
#include "zkwire/recipes/node_name.hpp"

namespace zkwire::cli {

inline constexpr int exit_lock_timeout = 75;  // not acquired within --timeout
inline constexpr int exit_lock_lost = 76;     // lost while CMD ran; CMD was terminated

struct lock_request {
  std::vector<std::string> directories;  // one: a lock (or one side of a read/write lock); several: a multi_lock
  recipes::lock_kind kind = recipes::lock_kind::exclusive;
  recipes::naming naming = recipes::naming::curator;
  std::optional<std::chrono::milliseconds> timeout;  // empty: wait forever; 0: try once
  std::chrono::milliseconds kill_after{10000};
  std::optional<std::chrono::milliseconds> safety_margin;  // empty: the recipes' default (lock_options)
  std::vector<std::string> command;                        // CMD [ARG...], not empty
};

// What the runner holds while CMD runs (a lock, or a semaphore's lease), as the runner uses it; everything is
// called on the session's loop thread.
class held_resource {
 public:
  using done_handler = std::function<void(std::error_code)>;
  held_resource() = default;
  virtual ~held_resource() = default;
  held_resource(const held_resource&) = delete;
  held_resource& operator=(const held_resource&) = delete;
  held_resource(held_resource&&) = delete;
  held_resource& operator=(held_resource&&) = delete;

  virtual void set_listener(recipes::lock_listener listener) = 0;
  // Revocation requests, for what supports them; others ignore the handler.
  virtual void set_revocation_handler(recipes::revocation_handler handler) = 0;
  // As lock::async_acquire / async_release / async_wait_lost, cancelled through `slot`.
  virtual void acquire(std::chrono::milliseconds timeout, asio::cancellation_slot slot, done_handler done) = 0;
  virtual void release(asio::cancellation_slot slot, done_handler done) = 0;
  virtual void wait_lost(done_handler done) = 0;
  [[nodiscard]] virtual recipes::lock_state state() const = 0;
  [[nodiscard]] virtual std::string node_path() const = 0;  // the node named to CMD
  [[nodiscard]] virtual std::int64_t fencing_token() const = 0;
  // ZKWIRE_FENCING_TOKEN: the token in decimal (one line per lock for a multi-lock).
  [[nodiscard]] virtual std::string fencing_token_text() const { return std::to_string(fencing_token()); }
  [[nodiscard]] virtual std::int64_t session_id() const = 0;
  // Variables CMD gets besides the node, the token and the session (elect: ZKWIRE_LEADER_ID).
  [[nodiscard]] virtual std::vector<std::pair<std::string, std::string>> environment() const { return {}; }
};

struct hold_spec {
  std::string name;           // the command, in messages ("lock", "semaphore", "elect")
  std::string node_variable;  // CMD's variable naming our node ("ZKWIRE_LOCK_NODE", "ZKWIRE_LEASE_NODE")
  std::string path;           // what is locked, in messages
  // How messages say what we wait for and what is lost ("acquired" / "held by another contender" / "lock";
  // elect: "leading" / "another participant leads" / "leadership").
  std::string granted = "acquired";
  std::string busy = "held by another contender";
  std::string subject = "lock";
  std::optional<std::chrono::milliseconds> timeout;  // empty: wait forever; 0: try once
  std::chrono::milliseconds kill_after{10000};
  std::vector<std::string> command;  // CMD [ARG...], not empty
  // Makes the resource once the session is up.
  std::function<std::unique_ptr<held_resource>(client& c)> make;
};

// Runs CMD while holding what `spec.make` gives and returns the exit status (see run_lock).
int run_holding(const global_options& global, const hold_spec& spec);

// Runs the whole command and returns its exit status. Must run on the main thread: CMD is tied to the calling
// thread's life (PR_SET_PDEATHSIG).
int run_lock(const global_options& global, const lock_request& request);

}  // namespace zkwire::cli
