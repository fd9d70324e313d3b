#pragma once
// Kazoo (Debian's python3-kazoo under /usr/bin/python3), the reference Python client, for interoperability tests.

#include <string>

#include "support/child_process.hpp"

namespace zkwire::test {

inline constexpr const char* system_python = "/usr/bin/python3";

// True if /usr/bin/python3 can import kazoo.
bool have_kazoo();

// Runs a Python program with Kazoo connected to `connect_string` as `zk`; `body` is the indented (4 spaces)
// inside of a try block that stops the client.
outcome run_kazoo(const std::string& connect_string, const std::string& body);

}  // namespace zkwire::test
