// The election's namings and the rules the peers decide leadership by (election_order.hpp): Curator's text order
// after a marker, Kazoo's pattern and text order, and zkwire's decision on top of them.

#include "zkwire/recipes/election_order.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

namespace zkwire::recipes {
namespace {

constexpr std::string_view latch_marker = "latch-";
constexpr std::string_view lock_marker = "lock-";
constexpr std::string_view kazoo_marker = "__lock__";

// One UTF-16 code unit at a time from UTF-8 text, as Java holds a string it decoded from the server's bytes
// (malformed bytes read as U+FFFD, one per byte: close enough for names no peer creates).
class utf16_units {
 public:
  explicit utf16_units(std::string_view text) : text_(text) {}
  [[nodiscard]] bool done() const noexcept { return pending_ == 0 && pos_ >= text_.size(); }
  std::uint16_t next() noexcept {
    if (pending_ != 0) return std::exchange(pending_, 0);
    const auto lead = static_cast<unsigned char>(text_[pos_]);
    std::size_t length = lead < 0x80            ? 1
                         : (lead >> 5U) == 0x6  ? 2
                         : (lead >> 4U) == 0xe  ? 3
                         : (lead >> 3U) == 0x1e ? 4
                                                : 0;
    if (length == 0 || pos_ + length > text_.size()) {
      ++pos_;
      return 0xfffd;
    }
    std::uint32_t cp = length == 1 ? lead : lead & (0x7fU >> length);
    for (std::size_t i = 1; i < length; ++i) {
      const auto c = static_cast<unsigned char>(text_[pos_ + i]);
      if ((c >> 6U) != 0x2) {
        ++pos_;
        return 0xfffd;
      }
      cp = (cp << 6U) | (c & 0x3fU);
    }
    pos_ += length;
    if (cp < 0x10000) return static_cast<std::uint16_t>(cp);
    cp -= 0x10000;
    pending_ = static_cast<std::uint16_t>(0xdc00 + (cp & 0x3ffU));
    return static_cast<std::uint16_t>(0xd800 + (cp >> 10U));
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint16_t pending_ = 0;  // the low surrogate of a pair whose high one was returned
};

bool is_ascii(std::string_view s) noexcept {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// java.lang.String.compareTo: UTF-16 code units, lexicographic (for ASCII, the bytes' order).
int java_compare(std::string_view a, std::string_view b) noexcept {
  if (is_ascii(a) && is_ascii(b)) return a.compare(b);
  utf16_units x(a);
  utf16_units y(b);
  while (!x.done() && !y.done()) {
    const auto ux = x.next();
    const auto uy = y.next();
    if (ux != uy) return ux < uy ? -1 : 1;
  }
  return x.done() ? (y.done() ? 0 : -1) : 1;
}

// Curator's StandardLockInternalsDriver.fixForSorting: the text after the last occurrence of the marker, or the
// whole name.
std::string_view curator_key(std::string_view name, std::string_view marker) noexcept {
  const auto pos = name.rfind(marker);
  return pos == std::string_view::npos ? name : name.substr(pos + marker.size());
}

bool ascii_digits(std::string_view s) noexcept {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Kazoo Lock's contender pattern `(?:__lock__)(-?\d{10})$`: the captured digits (with a '-' before them), or
// nullopt when the name is no contender to Kazoo. (Python's \d also takes non-ASCII digits, which no server's
// sequence suffix has; they are not matched here.)
std::optional<std::string_view> kazoo_key(std::string_view name) noexcept {
  if (name.size() < kazoo_marker.size() + 10) return std::nullopt;
  const auto digits = name.substr(name.size() - 10);
  if (!ascii_digits(digits)) return std::nullopt;
  const auto before = name.substr(0, name.size() - 10);
  if (before.ends_with(kazoo_marker)) return digits;
  if (before.ends_with('-') && before.substr(0, before.size() - 1).ends_with(kazoo_marker)) {
    return name.substr(name.size() - 11);
  }
  return std::nullopt;
}

struct keyed {
  std::string_view key;
  const std::string* name;
};

// The children a peer considers, with the key it sorts them by, in its (stable) order.
std::vector<keyed> peer_keys(election_naming naming, const std::vector<std::string>& children) {
  std::vector<keyed> keys;
  keys.reserve(children.size());
  for (const auto& child : children) {
    if (naming == election_naming::kazoo) {
      if (const auto key = kazoo_key(child)) keys.push_back({*key, &child});
    } else {
      keys.push_back({curator_key(child, naming == election_naming::latch ? latch_marker : lock_marker), &child});
    }
  }
  // Kazoo sorts Python strings of ASCII digits and '-': byte order, which java_compare also gives for ASCII.
  std::stable_sort(keys.begin(), keys.end(),
                   [](const keyed& a, const keyed& b) { return java_compare(a.key, b.key) < 0; });
  return keys;
}

// Whom the peer rule makes `ours` wait for: the child it puts closest before ours. A child ranked equal to ours
// counts as before it (the peer's stable sort then follows the server's listing order, which nobody can predict).
// Kazoo: if it does not count our node as a contender at all, its Lock takes the last contender for our predecessor.
std::optional<std::string> peer_blocker(election_naming naming, const std::vector<std::string>& children,
                                        std::string_view ours) {
  const auto keys = peer_keys(naming, children);
  const auto self = std::find_if(keys.begin(), keys.end(), [&](const keyed& k) { return *k.name == ours; });
  if (self == keys.end()) {
    if (keys.empty()) return std::nullopt;
    return *keys.back().name;
  }
  std::optional<std::string> blocker;
  for (auto it = keys.begin(); it != keys.end(); ++it) {
    if (it == self) continue;
    if (java_compare(it->key, self->key) > 0) break;  // sorted: the rest come after ours
    blocker = *it->name;
  }
  return blocker;
}

// The child the peer rule alone puts first, if exactly one child is first (a tie at the top leads nobody here).
std::optional<std::string> unique_rule_leader(election_naming naming, const std::vector<std::string>& children) {
  const auto keys = peer_keys(naming, children);
  if (keys.empty()) return std::nullopt;
  if (keys.size() > 1 && java_compare(keys[0].key, keys[1].key) == 0) return std::nullopt;
  return *keys.front().name;
}

}  // namespace

std::string_view election_naming_name(election_naming naming) noexcept {
  switch (naming) {
    case election_naming::latch:
      return "latch";
    case election_naming::lock:
      return "lock";
    case election_naming::kazoo:
      break;
  }
  return "kazoo";
}

std::optional<election_naming> election_naming_of(std::string_view child) {
  const node_name n = parse_node_name(child);
  if (n.kind != contender_kind::exclusive) return std::nullopt;
  switch (n.family) {
    case node_family::kazoo:
      return election_naming::kazoo;
    case node_family::curator:
    case node_family::go:
      if (n.prefix.ends_with(latch_marker)) return election_naming::latch;
      return election_naming::lock;
    default:
      return std::nullopt;
  }
}

std::string make_election_guid(election_naming naming, const guid_source& source) {
  return make_guid(naming == election_naming::kazoo ? naming::kazoo : naming::curator, source);
}

std::string election_node_prefix(election_naming naming, std::string_view guid) {
  switch (naming) {
    case election_naming::latch:
      return "_c_" + std::string(guid) + "-" + std::string(latch_marker);
    case election_naming::lock:
      return node_prefix(naming::curator, lock_kind::exclusive, guid);
    case election_naming::kazoo:
      break;
  }
  return node_prefix(naming::kazoo, lock_kind::exclusive, guid);
}

std::vector<std::string> peer_order(election_naming naming, const std::vector<std::string>& children) {
  std::vector<std::string> order;
  for (const auto& k : peer_keys(naming, children)) order.push_back(*k.name);
  return order;
}

std::optional<std::string> peer_leader(election_naming naming, const std::vector<std::string>& children) {
  const auto keys = peer_keys(naming, children);
  if (keys.empty()) return std::nullopt;
  return *keys.front().name;
}

election_decision decide_leadership(election_naming naming, const std::vector<std::string>& children,
                                    std::string_view ours) {
  election_decision d;
  d.found = std::find(children.begin(), children.end(), ours) != children.end();
  if (!d.found) return d;
  // Rule 2: every contender of a known family before ours in sequence order (all of them, should ours be no
  // contender name at all).
  std::optional<std::string> sequence_blocker;
  for (const auto& n : sort_in_lock_order(children)) {
    if (!n.is_contender() || n.name == ours) break;
    ++d.ahead;
    sequence_blocker = n.name;
  }
  // Rule 1: the peer's own order.
  auto rule_blocker = peer_blocker(naming, children, ours);
  d.leads = d.ahead == 0 && !rule_blocker;
  if (!d.leads) d.wait_for = sequence_blocker ? std::move(sequence_blocker) : std::move(rule_blocker);
  return d;
}

election_view view_election(const std::vector<std::string>& children) {
  election_view v;
  for (auto& n : sort_in_lock_order(children)) {
    if (!n.is_contender()) break;
    v.order.push_back(std::move(n));
  }
  // Each naming's rule leader, computed once (a listing of n participants is not judged n times).
  std::array<std::optional<std::optional<std::string>>, 3> rule_leaders;
  const auto leads_by_own_rule = [&](const node_name& n) -> std::optional<bool> {
    const auto naming = election_naming_of(n.name);
    if (!naming) return std::nullopt;
    auto& cached = rule_leaders.at(static_cast<std::size_t>(*naming));
    if (!cached) cached = unique_rule_leader(*naming, children);
    return *cached == n.name;
  };
  for (std::size_t i = 0; i < v.order.size(); ++i) {
    const auto own = leads_by_own_rule(v.order[i]);
    if (i == 0) {
      if (own.value_or(true)) v.leader = 0;
    } else if (own.value_or(false)) {
      v.also_leading.push_back(i);
    }
  }
  return v;
}

}  // namespace zkwire::recipes
