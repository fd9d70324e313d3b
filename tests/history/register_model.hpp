#pragma once
// Linearizability of the writes on znodes used as compare-and-set registers: create, delete and set (each with the
// version it names, -1 for any) and, where the caller asks for them, reads. Each path is a register of its own and is
// checked alone (linearizability is compositional). The model of one path: absent, or present with a value and a
// data version; a create makes it present at version 0, a set with a matching version bumps the version, a delete
// with a matching version makes it absent. Refused writes are part of the history too: a BADVERSION says the version
// differed, a NONODE that the node was absent, a NODEEXISTS that it was present, each at some instant between the
// request's invocation and its completion. Values written must be unique in the run, so that a read names its write.
//
// ZooKeeper orders every write, refused ones included, in one log, so the writes must be linearizable, in the order
// of their zxids where the history shows them (order_by_zxid). A write without an answer whose value a read returned
// did happen, before that read completed: the search must place it (values are unique). Reads are
// not: a follower answers from its own, possibly older, state (they are checked per session instead,
// client_checks.hpp). `include_reads` is for histories whose reads are linearizable (the unit tests' textbook
// cases).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "history.hpp"
#include "linearizability.hpp"

namespace zkwire::history {

struct register_initial {
  bool present = false;
  std::string value;
  std::int32_t version = 0;
};

struct linearizability_options {
  std::uint64_t budget = 4'000'000;  // search steps per path
  bool include_reads = false;
  // Writes whose zxid is known (an applied set's mzxid, create's czxid, or the mzxid a read of a value without an
  // answer showed) take effect in zxid order: ZooKeeper's leader orders every write in one log, so the linearization
  // must agree with it. A large pruning of the search; off, the search is the textbook one.
  bool order_by_zxid = true;
  // A write without an answer took effect, if at all, before its client's next request that got one completed:
  // ZooKeeper applies a client's requests in the order it sent them, and a later session starts only once the earlier
  // one ended. Off, such a write may take effect at any time after it was sent.
  bool bound_unknown_by_next_answer = true;
  std::map<std::string, register_initial> initial;  // per path; absent when not named
};

struct path_verdict {
  std::string path;
  linearizability_result search;
  std::string explanation;  // for a path that is not linearizable or whose search gave up
};

struct writes_verdict {
  std::vector<path_verdict> paths;
  std::uint64_t steps = 0;  // summed over the paths
  std::size_t checked = 0;  // operations searched
  [[nodiscard]] bool linearizable() const;
  [[nodiscard]] bool gave_up() const;
};

writes_verdict check_registers_linearizable(const record& history, const linearizability_options& options = {});

}  // namespace zkwire::history
