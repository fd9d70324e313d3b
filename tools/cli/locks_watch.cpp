// The live views of a directory, refreshed by a child watch on it (an exists watch while it does not exist), never
// by polling: `zkwire locks --watch` (the lock's contenders) and `zkwire leader --watch` (an election's
// participants) differ only in what they read and print.

#include <unistd.h>
#include <asio/signal_set.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <system_error>

#include "async_session.hpp"
#include "commands.hpp"
#include "directory_watch.hpp"
#include "errors.hpp"
#include "lock_view.hpp"
#include "util.hpp"
#include "zkwire/recipes/contenders.hpp"

namespace zkwire::cli {
namespace {

// What the client's callbacks tell the loop (all on the loop's thread: the io_context runs here).
struct watch_state {
  bool changed = false;      // a watch fired: list again
  std::error_code ended;     // the session ended (expired, authentication failed, lost)
  bool interrupted = false;  // SIGINT or SIGTERM
};

std::int64_t epoch_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int watch_directory(const global_options& global, const std::string& directory, bool as_json,
                    const directory_renderer& render) {
  async_session s(global);
  s.connect();
  auto state = std::make_shared<watch_state>();
  asio::signal_set signals(s.io(), SIGINT, SIGTERM);
  signals.async_wait([state](std::error_code ec, int) {
    if (!ec) state->interrupted = true;
  });
  const auto observer = s.client().add_state_observer([state](const state_event& e) {
    if (e.to == session_state::expired) state->ended = client_error::session_expired;
    if (e.to == session_state::auth_failed) state->ended = server_error::auth_failed;
    if (e.to == session_state::lost) state->ended = client_error::connection_loss;
  });
  const watch_callback on_change = [state](const watch_event& e) {
    if (e.error) {
      if (!state->ended) state->ended = e.error;
    } else {
      state->changed = true;
    }
  };
  const bool terminal = !as_json && isatty(STDOUT_FILENO) == 1;

  while (!state->interrupted && !state->ended) {
    state->changed = false;
    // Arm the watch with the listing that tells whether the directory exists.
    bool missing = false;
    try {
      s.read<children_result>(
          directory, [&](auto handler) { s.client().async_get_children(directory, on_change, std::move(handler)); });
    } catch (const operation_error& e) {
      if (e.code() != server_error::no_node) throw;
      missing = true;
    }
    std::string view;
    if (missing) {
      const auto st = s.read<std::optional<zkwire::stat>>(
          directory, [&](auto handler) { s.client().async_exists(directory, on_change, std::move(handler)); });
      if (st) continue;  // created in between: list it
      view = render.missing();
    } else {
      try {
        view = render.listed(s);
      } catch (const operation_error& e) {
        if (e.code() != server_error::no_node) throw;
        continue;  // deleted in between (the watch fired too): look again
      }
    }
    // On a terminal the view replaces the previous one (cursor home, clear to the end); elsewhere the views follow
    // each other, separated by a blank line (JSON: one line each).
    if (as_json) {
      print_line(view);
    } else {
      write_stdout(terminal ? "\x1b[H\x1b[J" + view : view + "\n");
    }
    if (std::fflush(stdout) != 0) throw operation_error(std::make_error_code(std::errc::io_error), "stdout");
    s.run_until([&] { return state->changed || state->interrupted || state->ended; });
  }
  s.client().remove_state_observer(observer);
  signals.cancel();
  if (state->ended && !state->interrupted) throw operation_error(state->ended, directory);
  s.close(s.connect_timeout());
  return exit_ok;
}

int watch_locks(const global_options& global, const std::string& directory, bool as_json) {
  lock_view_tracker tracker;
  directory_renderer render;
  render.listed = [&](async_session& s) {
    const auto contenders = s.read<std::vector<recipes::contender>>(
        directory, [&](auto handler) { recipes::async_contenders(s.client(), directory, std::move(handler)); });
    const lock_view view = tracker.update(contenders, epoch_ms(), std::chrono::steady_clock::now());
    return as_json ? lock_view_json(directory, view) : lock_view_text(directory, view);
  };
  render.missing = [&] {
    const lock_view view = tracker.update_missing(std::chrono::steady_clock::now());
    return as_json ? lock_view_json(directory, view) : lock_view_text(directory, view);
  };
  return watch_directory(global, directory, as_json, render);
}

}  // namespace zkwire::cli
