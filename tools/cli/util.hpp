#pragma once
// Small helpers the commands share: path checks, DATA arguments, output.

#include <span>
#include <string>
#include <string_view>

#include "args.hpp"
#include "errors.hpp"

namespace zkwire::cli {

// Throws usage_error unless `path` is a valid ZooKeeper path (with `sequential`, a valid prefix for a sequential
// create, e.g. "/a/" or "/a/lock-").
void check_path(const std::string& path, bool sequential = false);

// The parent of a valid path ("/a/b" -> "/a", "/a" -> "/"); for a sequential prefix "/a/b/" it is "/a/b".
std::string parent_of(std::string_view path);

// `parent` + "/" + `name`, without doubling the root's slash.
std::string child_path(std::string_view parent, std::string_view name);

// DATA, or all of stdin for "-".
std::string data_argument(const std::string& argument);

// Parses the command's arguments with the hand-written parser (args.hpp); usage_error unless there are
// `min`..`max` positional arguments, help_requested for -h/--help. For the commands not yet on command_parser
// (cli11_support.hpp).
parsed_args parse_command(std::span<const std::string> args, std::span<const option_spec> specs, std::size_t min,
                          std::size_t max);

// Writes `bytes` to stdout as they are.
void write_stdout(std::string_view bytes);
// Writes `line` and a newline to stdout.
void print_line(std::string_view line);

}  // namespace zkwire::cli
