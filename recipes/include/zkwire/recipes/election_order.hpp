#pragma once
// Leader election on a directory of EPHEMERAL_SEQUENTIAL children: the node names of the three election recipes in
// use, the rule each of them decides leadership by, and zkwire's own decision on top of them. Pure functions, no I/O.
//
//   naming  node we create            the peer's recipe                      how the peer decides who leads
//   latch   _c_<uuid36>-latch-<seq>   Curator LeaderLatch                    every child, sorted by the text after its
//                                                                            last "latch-" (the whole name when it has
//                                                                            none), as Java compares strings; the
//                                                                            first leads
//   lock    _c_<uuid36>-lock-<seq>    Curator LeaderSelector (its            the same with "lock-"
//                                     InterProcessMutex)
//   kazoo   <hex32>__lock__<seq>      Kazoo Election (its Lock)              only children ending in "__lock__" and
//                                                                            10 digits (or '-' and 10 digits), sorted
//                                                                            by those digits as text; the first leads
//
// On a path where every participant uses one naming these rules and the sequence order agree, so zkwire's
// participants and the peer's name one leader. zkwire leads only when BOTH hold (decide_leadership):
//   1. the peer rule of its own naming puts its node first (it never leads where the peer's participant would);
//   2. no contender of any known family (node_name.hpp: every naming above, Curator's and Kazoo's lock nodes,
//      go-zookeeper's, ZooKeeper's recipes) comes before its node in sequence order (it never leads while anyone
//      ahead of it might).
// The peers do not check (2): on a path that mixes namings they disagree, and two of them may lead at once
// (docs/design.md#mixed-namings says what each does). Where the two orders disagree on one naming (after the parent's
// sequence counter wraps past 2^31, the peers' text order puts the wrapped, negative numbers first), zkwire waits
// rather than lead against either.
//
// Thread safety: pure functions; call them from any thread.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkwire/recipes/node_name.hpp"

namespace zkwire::recipes {

// The node name we create, and so the peer recipe whose participants order us (`--naming` of docs/cli.md#elect).
enum class election_naming { latch, lock, kazoo };
std::string_view election_naming_name(election_naming naming) noexcept;  // "latch", "lock", "kazoo"

// The naming a child name follows (latch: a Curator-style name with "-latch-" before its sequence; lock: a Curator
// or go-zookeeper "-lock-" name; kazoo: "__lock__"), or nullopt for any other name (a read/write lock node,
// ZooKeeper's recipes, a foreign sibling): no election peer of ours creates those.
std::optional<election_naming> election_naming_of(std::string_view child);

// A fresh guid for a naming (latch and lock: a v4 uuid, kazoo: 32 hex digits; node_name.hpp make_guid) and the
// name we create with it (the server appends the sequence):
//   latch "_c_<guid>-latch-", lock "_c_<guid>-lock-", kazoo "<guid>__lock__".
std::string make_election_guid(election_naming naming, const guid_source& source = {});
std::string election_node_prefix(election_naming naming, std::string_view guid);

// The children the peer recipe of `naming` considers, in its order (Curator: all of them; Kazoo: its contenders).
// Children the peer ranks equal keep their order in `children` (Java's and Python's sorts are stable; the server's
// listing order is arbitrary).
std::vector<std::string> peer_order(election_naming naming, const std::vector<std::string>& children);

// Whom the peer recipe of `naming` takes for the leader of `children`: the first in peer_order (for Curator's rules
// that may be a child that is no participant at all: LeaderLatch then waits for it, as its participants do);
// nullopt when it considers no child.
std::optional<std::string> peer_leader(election_naming naming, const std::vector<std::string>& children);

// zkwire's decision for our node `ours` (a child name) in a listing of the election directory.
struct election_decision {
  bool found = false;     // `ours` is listed (otherwise it was deleted, or our session ended: join again)
  bool leads = false;     // both rules above put it first
  std::size_t ahead = 0;  // contenders of any known family before ours in sequence order
  // When it does not lead: the child to watch (the closest contender before ours in sequence order, else the child
  // the peer rule puts right before ours); when that one changes, list and decide again.
  std::optional<std::string> wait_for;
};
election_decision decide_leadership(election_naming naming, const std::vector<std::string>& children,
                                    std::string_view ours);

// A listing as the participants see it, for introspection (`zkwire leader`).
struct election_view {
  // The participants: every contender of a known family, in sequence order (wrap-aware; node_name.hpp
  // sort_in_lock_order). Foreign siblings are not participants.
  std::vector<node_name> order;
  // Index into `order` of the leader: the first participant, unless the rule of its own naming (when it has one)
  // does not put it first either (then nobody leads: zkwire's participants wait for it, and it waits too).
  std::optional<std::size_t> leader;
  // Indices of other participants that the rule of their own naming puts first although someone is ahead of them
  // in sequence order: on a path that mixes namings, a peer's participant there leads as well (two leaders). A zkwire
  // participant there does not (rule 2 above).
  std::vector<std::size_t> also_leading;
};
election_view view_election(const std::vector<std::string>& children);

}  // namespace zkwire::recipes
