#pragma once
// `zkwire lock`: takes a lock with the recipes library, runs CMD under the child supervisor while it is held, and
// turns what happens (timeout, loss, signals, CMD's end) into the exit statuses of docs/cli.md#lock.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "global_options.hpp"
#include "zkwire/recipes/node_name.hpp"

namespace zkwire::cli {

inline constexpr int exit_lock_timeout = 75;  // not acquired within --timeout
inline constexpr int exit_lock_lost = 76;     // lost while CMD ran; CMD was terminated

struct lock_request {
  std::string directory;
  recipes::lock_kind kind = recipes::lock_kind::exclusive;
  recipes::naming naming = recipes::naming::curator;
  std::optional<std::chrono::milliseconds> timeout;  // empty: wait forever; 0: try once
  std::chrono::milliseconds kill_after{10000};
  std::vector<std::string> command;  // CMD [ARG...], not empty
};

// Runs the whole command and returns its exit status. Must run on the main thread: CMD is tied to the calling
// thread's life (PR_SET_PDEATHSIG).
int run_lock(const global_options& global, const lock_request& request);

}  // namespace zkwire::cli
