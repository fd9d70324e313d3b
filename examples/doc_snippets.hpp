#pragma once
// The examples of README.md and of the public headers (doc_snippets.cpp), run against a server.

#include <string>

namespace zkwire_examples {

// Runs every example against `servers`, a connect string whose chroot is an existing, empty node (the examples
// create /config, /app, /job and lock directories under it). Throws on any failure the examples do not expect.
void run_doc_snippets(const std::string& servers);

}  // namespace zkwire_examples
