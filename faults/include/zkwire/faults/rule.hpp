#pragma once
// Fault rules of the proxy: what frames they select and what they do to them (syntax: faults/README.md).
//
//   reply op=create2 path=/locks/* nth=1 action=drop-then-rst
//   request op=getData p=0.01 action=delay ms=300
//   accept for=2000 action=rst
//   member=2 request action=drop           (only the second ensemble member's traffic)
//
// A rule selects frames by direction, ensemble member, opcode, xid and path; nth / count / p / for then decide whether
// a selected frame fires it (rule_table.hpp). Plain values; parse_rule() is a pure function.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkwire/faults/frame_info.hpp"

namespace zkwire::faults {

// One step of a rule's action; a rule runs its steps in order ("drop-then-rst").
enum class action_step {
  pass,       // forward unchanged (only counts and logs)
  drop,       // do not forward this frame (on a reply rule: the request went through, its reply is lost)
  delay,      // forward after `ms`; later frames of the same direction wait behind it (order is kept)
  hold,       // stall the whole connection, both directions, pings included, for `ms` (0: until it closes)
  corrupt,    // flip one seeded byte of the body (no body: of the xid); length prefix and zxid stay intact
  truncate,   // forward the length prefix and only the first half of the payload: the stream is desynchronised
  duplicate,  // forward the frame twice
  inject,     // write the `hex` bytes before the frame
  rewrite,    // keep the frame's header (request 8 bytes, reply 16, handshake none), replace the rest with `hex`
  reorder,    // forward this frame after the next frame of the same direction
  rst,        // close both sockets with RST (SO_LINGER 0); output not yet written is lost
  fin,        // write what is queued, then close both sockets with FIN
  blackhole,  // keep both sockets open and forward nothing more in either direction
};

// The step's name in the rule syntax ("drop", "rst"); parse_action_step() reads it back.
std::string_view action_step_name(action_step step) noexcept;
std::optional<action_step> parse_action_step(std::string_view name) noexcept;
// Steps that end the connection (rst, fin, blackhole): the frame that fired them is never forwarded.
bool is_terminal(action_step step) noexcept;

struct rule {
  // --- what it selects ---
  rule_direction direction = rule_direction::any;
  // member=N[,N...]: only frames of these ensemble members (proxy_options::member; a lone proxy is member 1).
  // Empty: any member.
  std::vector<std::uint32_t> members;
  std::vector<std::string> ops;  // opcode names as frame_info::op spells them; empty: any
  std::optional<std::int32_t> xid;
  std::string path;  // "": any; with '*' or '?' a glob over the whole path, else a prefix
  // --- when a selected frame fires it ---
  std::uint64_t nth = 0;                    // only the nth selected frame (1-based); 0: every one
  std::uint64_t count = 0;                  // fire at most this many times; 0: no limit
  std::optional<double> p;                  // fire with this probability (seeded); empty: always
  std::chrono::milliseconds active_for{0};  // only during this long after the rule is added; 0: forever
  // --- what it does ---
  std::vector<action_step> steps{action_step::pass};
  std::chrono::milliseconds ms{0};  // for delay and hold
  std::string inject_bytes;         // for inject and rewrite (from hex=)

  bool operator==(const rule&) const = default;
};

// True if the rule's selectors (direction, member, op, xid, path) accept the frame; nth/count/p/for are not looked at.
bool selects(const rule& r, const frame_info& frame);

// `path` against a rule's path: a prefix, or a glob when it contains '*' (any run of characters, '/' included)
// or '?' (one character).
bool path_matches(std::string_view pattern, std::string_view path) noexcept;

struct parse_result {
  std::optional<faults::rule> rule;
  std::string error;  // why parsing failed, naming the offending word; empty on success
};

// Parses one rule in the documented syntax. Never throws except std::bad_alloc.
parse_result parse_rule(std::string_view text);

// The rule in the syntax parse_rule() reads (round-trips).
std::string to_string(const rule& r);

// Bytes as the lower-case hex digits a rule's `hex=` takes (two per byte).
std::string to_hex(std::string_view bytes);

}  // namespace zkwire::faults
