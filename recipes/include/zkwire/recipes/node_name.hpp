#pragma once
// Lock node names: parsing every known family, ordering them, and making our own. Pure functions, no I/O.
//
// Every lock recipe in use creates EPHEMERAL_SEQUENTIAL children of one lock directory, so the server-assigned
// suffix (the parent's counter, printed "%010d"; a signed 32-bit int that wraps to "-2147483648") is the only
// order all of them agree on. We parse a name by a known marker followed by that suffix:
//
//   family            exclusive                     read                       write
//   curator           _c_<uuid36>-lock-<seq>        _c_<uuid36>-__READ__<seq>  _c_<uuid36>-__WRIT__<seq>
//   go (go-zookeeper) _c_<hex32>-lock-<seq>
//   kazoo             <hex32>__lock__<seq>          <hex32>__rlock__<seq>      (writers use __lock__)
//   zookeeper recipe  x-<session id>-<seq>          (the Java and C recipes; decimal or hex session id)
//
// Curator's leader latch (`-latch-`) orders like an exclusive contender. Anything else is `foreign`: not a
// contender, never waited for, but reported by introspection. Kazoo writers (`__lock__`) and every other
// exclusive node block readers exactly like a writer.
//
// Thread safety: pure functions; call them from any thread.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zkwire::recipes {

// What we create.
enum class lock_kind { exclusive, read, write };
// What we find: a lock_kind, or a sibling that is no contender.
enum class contender_kind { exclusive, read, write, foreign };
// "exclusive", "read", "write", "foreign" (the `kind` field of `zkwire locks`).
std::string_view contender_kind_name(contender_kind kind) noexcept;

// The library family a name was recognised as.
enum class node_family { curator, go, kazoo, zookeeper_recipe, unknown };
std::string_view node_family_name(node_family family) noexcept;  // "curator", "go", "kazoo", "zookeeper", "unknown"

// The node-name format we create (`--naming` of docs/cli.md#lock): curator (default; understood by Curator,
// go-zookeeper and ZooKeeper's recipes) or kazoo (so that Kazoo's Lock, which only looks at `__lock__`/`__rlock__`,
// orders us too).
enum class naming { curator, kazoo };

struct node_name {
  std::string name;  // the child name as given
  contender_kind kind = contender_kind::foreign;
  node_family family = node_family::unknown;
  std::int32_t sequence = 0;  // the server's suffix; meaningless for foreign names
  // Everything before the suffix ("_c_<uuid>-lock-"): the creator's own node is found again by it.
  std::string prefix;
  // The creator's unique part: Curator/go uuid, Kazoo hex, the recipe's session id; "" if none.
  std::string guid;

  [[nodiscard]] bool is_contender() const noexcept { return kind != contender_kind::foreign; }
};

// Parses one child name (not a path). Never fails: unknown names come back foreign.
node_name parse_node_name(std::string_view name);

// Parses a sequence suffix exactly as the server prints the signed 32-bit counter with "%010d"
// (docs/protocol.md#sequential-names): 10 digits, or for a wrapped (negative) counter '-' and 9 digits, or '-' and
// 10 digits not starting with 0; nullopt for anything else.
std::optional<std::int32_t> parse_sequence(std::string_view text) noexcept;

// Lock order of two sequences: serial-number arithmetic on the signed 32-bit values, so after the counter wraps
// -2147483648 comes after 2147483647 (correct while the live contenders span less than 2^31 creates).
bool sequence_before(std::int32_t a, std::int32_t b) noexcept;

// Parses and sorts children in lock order: contenders by sequence (wrap-aware; ties by name), then foreign
// siblings by name. The sort is a strict weak order even across a wrap.
std::vector<node_name> sort_in_lock_order(const std::vector<std::string>& children);

// Where the random bits of our guids come from (lock_options::guids, semaphore_options::guids). The default (an
// empty source) draws from a per-thread engine seeded from std::random_device, so two processes never make the same
// name. seeded(n) draws a fixed sequence from n instead: a run that must replay exactly (the simulation seeds it
// from its schedule) gets the same node names every time. Two seeded sources with one seed make the same guids, so
// give each client its own seed; lock objects may share one source (its sequence then interleaves their draws).
// Copies share one sequence. Thread safety: like the lock objects that use it (one executor); the default source
// may be used from any thread.
class guid_source {
 public:
  guid_source() = default;
  static guid_source seeded(std::uint64_t seed);
  // 64 random bits.
  [[nodiscard]] std::uint64_t next() const;
  [[nodiscard]] bool is_seeded() const noexcept { return engine_ != nullptr; }

 private:
  struct engine;
  std::shared_ptr<engine> engine_;
};

// A fresh guid for a name format: curator a random (v4) uuid "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", kazoo 32
// lower-case hex digits, its bits from `source`.
std::string make_guid(naming format, const guid_source& source = {});

// The name we create (the server appends the suffix):
//   curator: "_c_<guid>-lock-", "_c_<guid>-__READ__", "_c_<guid>-__WRIT__"
//   kazoo:   "<guid>__lock__",  "<guid>__rlock__",    "<guid>__lock__"
std::string node_prefix(naming format, lock_kind kind, std::string_view guid);

// The name of a semaphore lease we create, as Curator's semaphore names its protected leases: "_c_<guid>-lease-".
std::string lease_prefix(std::string_view guid);

// Whether `name` is `prefix` followed by a valid sequence suffix (how we recognise our own node).
bool has_prefix_and_sequence(std::string_view name, std::string_view prefix) noexcept;

}  // namespace zkwire::recipes
