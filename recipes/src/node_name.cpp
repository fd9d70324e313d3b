#include "zkwire/recipes/node_name.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <random>

namespace zkwire::recipes {
namespace {

bool all_digits(std::string_view s) noexcept {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
bool all_hex(std::string_view s) noexcept {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); });
}

// A 36-character uuid with dashes at 8, 13, 18, 23.
bool is_uuid36(std::string_view s) noexcept {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (s[i] == '-')) return false;
    if (!dash && !all_hex(s.substr(i, 1))) return false;
  }
  return true;
}

// A marker that sits right before the sequence suffix, and what it says about the node.
struct marker {
  std::string_view text;
  contender_kind kind;
  node_family family;   // curator markers may turn out to be go's (see classify_protected)
  bool needs_boundary;  // "lock-" must start the name or follow a '-'
};

constexpr std::array<marker, 6> markers{{
    {"__READ__", contender_kind::read, node_family::curator, false},
    {"__WRIT__", contender_kind::write, node_family::curator, false},
    {"__rlock__", contender_kind::read, node_family::kazoo, false},
    {"__lock__", contender_kind::exclusive, node_family::kazoo, false},
    {"lock-", contender_kind::exclusive, node_family::curator, true},
    {"latch-", contender_kind::exclusive, node_family::curator, true},
}};

// Curator's protected prefix "_c_<guid>-": the guid, and whether it is go-zookeeper's 32-hex form.
void classify_protected(std::string_view prefix_before_marker, node_name& out) {
  if (prefix_before_marker.size() < 4 || !prefix_before_marker.starts_with("_c_")) return;
  std::string_view guid = prefix_before_marker.substr(3);
  if (guid.ends_with('-')) guid.remove_suffix(1);
  out.guid = std::string(guid);
  if (out.family == node_family::curator && guid.size() == 32 && all_hex(guid) && !is_uuid36(guid)) {
    out.family = node_family::go;
  }
}

bool parse_with_marker(std::string_view name, const marker& m, node_name& out) {
  for (auto pos = name.rfind(m.text); pos != std::string_view::npos;
       pos = pos == 0 ? std::string_view::npos : name.rfind(m.text, pos - 1)) {
    if (m.needs_boundary && pos != 0 && name[pos - 1] != '-') continue;
    const auto suffix = name.substr(pos + m.text.size());
    const auto seq = parse_sequence(suffix);
    if (!seq) continue;
    out.kind = m.kind;
    out.family = m.family;
    out.sequence = *seq;
    out.prefix = std::string(name.substr(0, pos + m.text.size()));
    const auto before = name.substr(0, pos);
    if (m.family == node_family::kazoo) {
      out.guid = std::string(before);
    } else {
      classify_protected(before, out);
    }
    return true;
  }
  return false;
}

// ZooKeeper's recipes: "x-<session id>-<seq>" (Java: decimal id, C: %016lx).
bool parse_zookeeper_recipe(std::string_view name, node_name& out) {
  if (!name.starts_with("x-")) return false;
  const auto dash = name.find('-', 2);
  if (dash == std::string_view::npos || dash == 2) return false;
  const auto session = name.substr(2, dash - 2);
  if (!all_hex(session)) return false;
  const auto seq = parse_sequence(name.substr(dash + 1));
  if (!seq) return false;
  out.kind = contender_kind::exclusive;
  out.family = node_family::zookeeper_recipe;
  out.sequence = *seq;
  out.prefix = std::string(name.substr(0, dash + 1));
  out.guid = std::string(session);
  return true;
}

std::mt19937_64& random_engine() {
  thread_local std::mt19937_64 engine = [] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }();
  return engine;
}

std::string random_hex(std::size_t digits, const guid_source& source) {
  static constexpr std::string_view hex = "0123456789abcdef";
  std::string s(digits, '0');
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    if (i % 16 == 0) bits = source.next();
    s[i] = hex[bits & 0xfU];
    bits >>= 4U;
  }
  return s;
}

}  // namespace

struct guid_source::engine {
  std::mt19937_64 bits;
};

guid_source guid_source::seeded(std::uint64_t seed) {
  guid_source source;
  source.engine_ = std::make_shared<engine>(engine{std::mt19937_64(seed)});
  return source;
}

std::uint64_t guid_source::next() const { return engine_ ? engine_->bits() : random_engine()(); }

std::string_view contender_kind_name(contender_kind kind) noexcept {
  switch (kind) {
    case contender_kind::exclusive:
      return "exclusive";
    case contender_kind::read:
      return "read";
    case contender_kind::write:
      return "write";
    case contender_kind::foreign:
      break;
  }
  return "foreign";
}

std::string_view node_family_name(node_family family) noexcept {
  switch (family) {
    case node_family::curator:
      return "curator";
    case node_family::go:
      return "go";
    case node_family::kazoo:
      return "kazoo";
    case node_family::zookeeper_recipe:
      return "zookeeper";
    case node_family::unknown:
      break;
  }
  return "unknown";
}

std::optional<std::int32_t> parse_sequence(std::string_view text) noexcept {
  const bool negative = text.starts_with('-');
  const auto digits = negative ? text.substr(1) : text;
  // "%010d" pads to a width of 10 that includes the sign (node_name.hpp): a negative value only needs all 10
  // digits, with no padding zero, from -1000000000 down.
  const bool size_ok =
      negative ? digits.size() == 9 || (digits.size() == 10 && digits.front() != '0') : digits.size() == 10;
  if (!size_ok || !all_digits(digits)) return std::nullopt;
  std::int64_t value = 0;
  for (const char c : digits) value = value * 10 + (c - '0');
  if (negative) value = -value;
  if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<std::int32_t>(value);
}

node_name parse_node_name(std::string_view name) {
  node_name out;
  out.name = std::string(name);
  for (const auto& m : markers) {
    if (parse_with_marker(name, m, out)) return out;
  }
  if (parse_zookeeper_recipe(name, out)) return out;
  return out;
}

bool sequence_before(std::int32_t a, std::int32_t b) noexcept {
  // Serial-number order: b is after a when (b - a) mod 2^32 lies in (0, 2^31).
  const auto diff = static_cast<std::uint32_t>(b) - static_cast<std::uint32_t>(a);
  return diff != 0 && diff < (std::uint32_t{1} << 31);
}

std::vector<node_name> sort_in_lock_order(const std::vector<std::string>& children) {
  std::vector<node_name> parsed;
  parsed.reserve(children.size());
  for (const auto& child : children) parsed.push_back(parse_node_name(child));
  // Keys relative to one contender's sequence: plain integers (a strict weak order) that follow the serial order
  // as long as the live contenders span less than 2^31.
  std::optional<std::int32_t> reference;
  for (const auto& n : parsed) {
    if (n.is_contender()) {
      reference = n.sequence;
      break;
    }
  }
  const auto key = [&](const node_name& n) -> std::int64_t {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(n.sequence) - static_cast<std::uint32_t>(*reference));
  };
  std::sort(parsed.begin(), parsed.end(), [&](const node_name& a, const node_name& b) {
    if (a.is_contender() != b.is_contender()) return a.is_contender();
    if (a.is_contender()) {
      const auto ka = key(a);
      const auto kb = key(b);
      if (ka != kb) return ka < kb;
    }
    return a.name < b.name;
  });
  return parsed;
}

std::string make_guid(naming format, const guid_source& source) {
  if (format == naming::kazoo) return random_hex(32, source);
  std::string hex = random_hex(32, source);
  hex[12] = '4';                                            // version 4
  hex[16] = "89ab"[static_cast<std::size_t>(hex[16] % 4)];  // RFC 4122 variant
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20);
}

namespace {

// Curator's protected names: "_c_", the guid, then the recipe's own part.
std::string protected_name(std::string_view guid, std::string_view marker) {
  std::string name;
  name.reserve(3 + guid.size() + marker.size());
  name.append("_c_").append(guid).append(marker);
  return name;
}

}  // namespace

std::string node_prefix(naming format, lock_kind kind, std::string_view guid) {
  if (format == naming::kazoo) return std::string(guid) + (kind == lock_kind::read ? "__rlock__" : "__lock__");
  switch (kind) {
    case lock_kind::read:
      return protected_name(guid, "-__READ__");
    case lock_kind::write:
      return protected_name(guid, "-__WRIT__");
    case lock_kind::exclusive:
      break;
  }
  return protected_name(guid, "-lock-");
}

std::string lease_prefix(std::string_view guid) { return protected_name(guid, "-lease-"); }

bool has_prefix_and_sequence(std::string_view name, std::string_view prefix) noexcept {
  return name.starts_with(prefix) && parse_sequence(name.substr(prefix.size())).has_value();
}

}  // namespace zkwire::recipes
