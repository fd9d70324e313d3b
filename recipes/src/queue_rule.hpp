#pragma once
// How a recipe object queues in a directory, as the lock's acquire task (acquire.cpp) asks it: the name of the node
// to create and, for a listing, whether that node may hold and whom it waits for otherwise. The lock's rules order
// by sequence number alone (by lock kind: exclusive, read, write); the election's add its peer's order
// (election_rule.cpp, docs/design.md#leader-election). Rules are immutable singletons: use them from any thread.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkwire/recipes/election_order.hpp"
#include "zkwire/recipes/node_name.hpp"

namespace zkwire::recipes::detail {

// Where our node stands in a listing.
struct position {
  bool found = false;                  // our node is in the listing
  std::size_t ahead = 0;               // contenders before ours, whatever their kind
  std::size_t blocking = 0;            // contenders before ours that keep us from holding (the blocker among them)
  bool last = false;                   // no contender after ours
  std::optional<std::string> blocker;  // the child to watch; none: we hold
  // The same listing without the blocker would let us hold. What that is worth depends on the rule's order
  // (sequence_order()): see there.
  bool holds_once_blocker_goes = false;
};

// The lock's rule on a sorted listing (sort_in_lock_order): exclusive and write wait for the contender right before
// ours; read for the closest earlier contender that is not a reader (`own_writer`, the node of our read_write_lock's
// write side while it holds, excepted: holding the write side, we may take the read side).
position find_lock_position(const std::vector<node_name>& sorted, std::string_view ours, lock_kind kind,
                            const std::string& own_writer);

class queue_rule {
 public:
  queue_rule() = default;
  virtual ~queue_rule() = default;
  queue_rule(const queue_rule&) = delete;
  queue_rule& operator=(const queue_rule&) = delete;
  queue_rule(queue_rule&&) = delete;
  queue_rule& operator=(queue_rule&&) = delete;

  // The name to create (the server appends the sequence), with a fresh guid drawn from `guids`.
  [[nodiscard]] virtual std::string node_prefix(const guid_source& guids) const = 0;
  // Where `ours` stands among `children` (the directory's listing, unsorted).
  [[nodiscard]] virtual position locate(const std::vector<std::string>& children, std::string_view ours,
                                        const std::string& own_writer) const = 0;
  // Whether the order is the sequence order alone, so that no node created after ours can come before it. Then the
  // acquire may hold without listing again when the only blocker its last listing showed is deleted, and may skip
  // the listing a zxid proves unneeded (acquire.cpp). The election's rules also follow a peer's text order, where a
  // later node (a foreign sibling, a wrapped sequence number) can come first: their listings set a child watch on
  // the directory, and the acquire holds without listing again only when that watch shows the blocker's deletion
  // was the directory's only change since the listing (acquire.cpp, docs/design.md#leader-election).
  [[nodiscard]] virtual bool sequence_order() const noexcept = 0;
};

// The lock's rule for our node names and lock kind.
const queue_rule& lock_rule(naming format, lock_kind kind);
// The election's rule for a naming (election_rule.cpp).
const queue_rule& election_rule(election_naming format);

}  // namespace zkwire::recipes::detail
