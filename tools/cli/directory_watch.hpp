#pragma once
// A live view of a directory until SIGINT or SIGTERM, refreshed by a child watch on it (an exists watch while it
// does not exist), never by polling: the loop of `zkwire locks --watch` and `zkwire leader --watch`
// (locks_watch.cpp), which differ only in what they read and print.

#include <functional>
#include <string>

#include "async_session.hpp"
#include "global_options.hpp"

namespace zkwire::cli {

struct directory_renderer {
  // One view of the existing directory, read through the session (operation_error NONODE if it went away
  // meanwhile: the loop looks again). JSON: one line, without its newline.
  std::function<std::string(async_session&)> listed;
  // One view while the directory does not exist.
  std::function<std::string()> missing;
};

// Prints a view at the start and after every change: on a terminal (text) redrawn in place, otherwise one after
// the other (text: separated by a blank line; JSON: one line each, flushed at once). Returns exit_ok after
// SIGINT/SIGTERM; throws operation_error when the session ends (expired, authentication failed, lost) or a read is
// refused.
int watch_directory(const global_options& global, const std::string& directory, bool as_json,
                    const directory_renderer& render);

}  // namespace zkwire::cli
