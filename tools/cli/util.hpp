#pragma once
// Small helpers the commands share: path checks, DATA arguments, output.

#include <span>
#include <string>
#include <string_view>

#include "errors.hpp"

namespace zkwire::cli {

// Throws usage_error unless `path` is a valid ZooKeeper path (with `sequential`, a valid prefix for a sequential
// create, e.g. "/a/" or "/a/lock-").
void check_path(const std::string& path, bool sequential = false);

// DATA, or all of stdin for "-".
std::string data_argument(const std::string& argument);

// Writes `bytes` to stdout as they are.
void write_stdout(std::string_view bytes);
// Writes `line` and a newline to stdout.
void print_line(std::string_view line);

}  // namespace zkwire::cli
