#pragma once
// How `zkwire leader` prints an election's participants (docs/cli.md#leader). Pure functions.

#include <string>
#include <vector>

#include "zkwire/recipes/election.hpp"

namespace zkwire::cli {

// {"leader":ID|null,"participants":[{"id","node","session","leader"}...]}, "node" the full path. With a path (the
// --watch form): {"path","exists":true,...} first.
std::string participants_json(const std::vector<recipes::participant>& participants);
std::string participants_json(const std::string& path, const std::vector<recipes::participant>& participants);
// The --watch --json line while PATH does not exist: {"path","exists":false,"leader":null,"participants":[]}.
std::string missing_election_json(const std::string& path);

// One line per participant: its role ("leader", "waiting", or "leading" for one that its own naming's rule puts
// first although someone is ahead of it), its id (control characters escaped as in JSON), its node's full path and
// its session, in columns. Empty for no participants.
std::string participants_text(const std::vector<recipes::participant>& participants);

}  // namespace zkwire::cli
