#include "zkwire/faults/rule.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "zkwire/proto/opcodes.hpp"

namespace zkwire::faults {

namespace {

constexpr std::array<std::pair<action_step, std::string_view>, 13> step_names = {{
    {action_step::pass, "pass"},
    {action_step::drop, "drop"},
    {action_step::delay, "delay"},
    {action_step::hold, "hold"},
    {action_step::corrupt, "corrupt"},
    {action_step::truncate, "truncate"},
    {action_step::duplicate, "duplicate"},
    {action_step::inject, "inject"},
    {action_step::rewrite, "rewrite"},
    {action_step::reorder, "reorder"},
    {action_step::rst, "rst"},
    {action_step::fin, "fin"},
    {action_step::blackhole, "blackhole"},
}};

constexpr std::string_view then_separator = "-then-";
// Words are separated by any blank, line breaks included: rules also arrive as HTTP bodies and lines of files.
constexpr std::string_view word_separators = " \t\r\n";

// Op names a rule may use: ZooKeeper's opcode names plus the handshake.
bool is_op_name(std::string_view name) {
  if (name == "connect" || name == "unknown") return true;
  return std::any_of(proto::all_op_codes.begin(), proto::all_op_codes.end(),
                     [&](proto::op_code op) { return proto::op_code_name(op) == name; });
}

template <class Int>
bool parse_int(std::string_view text, Int& out) {
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool parse_probability(std::string_view text, double& out) {
  // from_chars for double is not in every libstdc++ we build with; the text is short and NUL-free.
  const std::string copy(text);
  char* end = nullptr;
  out = std::strtod(copy.c_str(), &end);
  return !copy.empty() && end == copy.c_str() + copy.size() && out >= 0.0 && out <= 1.0;
}

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool parse_hex(std::string_view text, std::string& out) {
  if (text.starts_with("0x")) text.remove_prefix(2);
  if (text.empty() || text.size() % 2 != 0) return false;
  out.clear();
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = hex_value(text[i]);
    const int lo = hex_value(text[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out += static_cast<char>((hi << 4) | lo);
  }
  return true;
}

bool parse_steps(std::string_view text, std::vector<action_step>& out) {
  out.clear();
  while (true) {
    const std::size_t sep = text.find(then_separator);
    const auto step = parse_action_step(text.substr(0, sep));
    if (!step) return false;
    out.push_back(*step);
    if (sep == std::string_view::npos) return true;
    text.remove_prefix(sep + then_separator.size());
  }
}

std::optional<rule_direction> parse_direction(std::string_view word) {
  if (word == "request") return rule_direction::request;
  if (word == "reply") return rule_direction::reply;
  if (word == "any") return rule_direction::any;
  if (word == "accept") return rule_direction::accept;
  return std::nullopt;
}

// Cross-field checks once every word is read; "" when the rule is usable.
std::string check(const rule& r, bool has_action) {
  if (!has_action) return "missing action=STEP[-then-STEP...]";
  const auto has = [&](action_step s) { return std::find(r.steps.begin(), r.steps.end(), s) != r.steps.end(); };
  if (has(action_step::delay) && r.ms.count() <= 0) return "action delay needs ms=MS (> 0)";
  if ((has(action_step::inject) || has(action_step::rewrite)) && r.inject_bytes.empty()) {
    return "actions inject and rewrite need hex=BYTES";
  }
  for (std::size_t i = 0; i + 1 < r.steps.size(); ++i) {
    if (is_terminal(r.steps[i])) return "a closing step (rst, fin, blackhole) must be the last step";
  }
  if (r.direction == rule_direction::accept) {
    for (const auto s : r.steps) {
      if (s != action_step::pass && s != action_step::delay && !is_terminal(s)) {
        return "accept rules take only pass, delay, rst, fin or blackhole, not " + std::string(action_step_name(s));
      }
    }
    if (!r.ops.empty() || r.xid || !r.path.empty()) return "accept rules select by member/nth/count/p/for only";
  }
  return {};
}

// Glob match with '*' (any run, '/' included) and '?' (one character), iterative with one backtrack point.
bool glob_matches(std::string_view pattern, std::string_view text) noexcept {
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;
  std::size_t star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

std::string to_hex(std::string_view bytes) {
  static constexpr std::string_view digits = "0123456789abcdef";
  std::string out;
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    out += digits[c >> 4];
    out += digits[c & 0xf];
  }
  return out;
}

std::string_view action_step_name(action_step step) noexcept {
  for (const auto& [s, name] : step_names) {
    if (s == step) return name;
  }
  return "pass";
}

std::optional<action_step> parse_action_step(std::string_view name) noexcept {
  for (const auto& [s, n] : step_names) {
    if (n == name) return s;
  }
  return std::nullopt;
}

bool is_terminal(action_step step) noexcept {
  return step == action_step::rst || step == action_step::fin || step == action_step::blackhole;
}

bool path_matches(std::string_view pattern, std::string_view path) noexcept {
  if (pattern.empty()) return true;
  if (pattern.find_first_of("*?") == std::string_view::npos) return path.starts_with(pattern);
  return glob_matches(pattern, path);
}

bool selects(const rule& r, const frame_info& frame) {
  if (!r.members.empty()) {
    // A proxy outside an ensemble (member 0) is member 1, so member=1 works the same with one pair or several.
    const std::uint32_t member = std::max<std::uint32_t>(frame.member, 1);
    if (std::find(r.members.begin(), r.members.end(), member) == r.members.end()) return false;
  }
  if (r.direction == rule_direction::accept || frame.direction == rule_direction::accept) {
    return r.direction == frame.direction;
  }
  if (r.direction != rule_direction::any && r.direction != frame.direction) return false;
  if (!r.ops.empty() && std::find(r.ops.begin(), r.ops.end(), frame.op) == r.ops.end()) return false;
  if (r.xid && frame.xid != r.xid) return false;
  if (!r.path.empty() && (frame.path.empty() || !path_matches(r.path, frame.path))) return false;
  return true;
}

parse_result parse_rule(std::string_view text) {
  rule r;
  bool has_action = false;
  const auto fail = [](std::string why) { return parse_result{std::nullopt, std::move(why)}; };
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = text.find_first_not_of(word_separators, pos);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(text.find_first_of(word_separators, start), text.size());
    const std::string_view word = text.substr(start, end - start);
    pos = end;
    const std::size_t eq = word.find('=');
    if (eq == std::string_view::npos) {
      auto d = parse_direction(word);
      if (!d)
        return fail("unknown word '" + std::string(word) + "' (expected request, reply, any, accept or KEY=VALUE)");
      r.direction = *d;
      continue;
    }
    const std::string_view key = word.substr(0, eq);
    const std::string_view value = word.substr(eq + 1);
    const auto bad = [&](std::string_view expected) {
      return fail("bad " + std::string(key) + "='" + std::string(value) + "' (expected " + std::string(expected) + ")");
    };
    if (key == "dir") {
      auto d = parse_direction(value);
      if (!d) return bad("request, reply, any or accept");
      r.direction = *d;
    } else if (key == "op") {
      r.ops.clear();
      std::string_view rest = value;
      while (true) {
        const std::size_t comma = rest.find(',');
        const std::string_view name = rest.substr(0, comma);
        if (!is_op_name(name)) return bad("ZooKeeper opcode names such as create2, getData, ping, or connect");
        r.ops.emplace_back(name);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    } else if (key == "member") {
      r.members.clear();
      std::string_view rest = value;
      while (true) {
        const std::size_t comma = rest.find(',');
        std::uint32_t member = 0;
        if (!parse_int(rest.substr(0, comma), member) || member == 0) {
          return bad("ensemble member numbers from 1, comma-separated");
        }
        r.members.push_back(member);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    } else if (key == "xid") {
      std::int32_t xid = 0;
      if (!parse_int(value, xid)) return bad("a 32-bit integer");
      r.xid = xid;
    } else if (key == "path") {
      if (!value.starts_with('/') && !value.starts_with('*')) return bad("a path prefix or glob starting with /");
      r.path = std::string(value);
    } else if (key == "nth") {
      if (!parse_int(value, r.nth) || r.nth == 0) return bad("a positive integer");
    } else if (key == "count") {
      if (!parse_int(value, r.count) || r.count == 0) return bad("a positive integer");
    } else if (key == "p") {
      double p = 0;
      if (!parse_probability(value, p)) return bad("a probability between 0 and 1");
      r.p = p;
    } else if (key == "for" || key == "ms") {
      std::int64_t ms = 0;
      if (!parse_int(value, ms) || ms < 0) return bad("milliseconds");
      (key == "ms" ? r.ms : r.active_for) = std::chrono::milliseconds(ms);
    } else if (key == "hex") {
      if (!parse_hex(value, r.inject_bytes)) return bad("an even number of hex digits");
    } else if (key == "action") {
      if (!parse_steps(value, r.steps)) {
        return bad(
            "steps joined by -then-: pass drop delay hold corrupt truncate duplicate inject rewrite reorder rst "
            "fin blackhole");
      }
      has_action = true;
    } else {
      return fail("unknown key '" + std::string(key) + "'");
    }
  }
  if (auto why = check(r, has_action); !why.empty()) return fail(std::move(why));
  return parse_result{std::move(r), {}};
}

std::string to_string(const rule& r) {
  std::string out(direction_name(r.direction));
  if (!r.members.empty()) {
    out += " member=";
    for (std::size_t i = 0; i < r.members.size(); ++i) {
      if (i != 0) out += ',';
      out += std::to_string(r.members[i]);
    }
  }
  if (!r.ops.empty()) {
    out += " op=";
    for (std::size_t i = 0; i < r.ops.size(); ++i) out += (i == 0 ? "" : ",") + r.ops[i];
  }
  if (r.xid) out += " xid=" + std::to_string(*r.xid);
  if (!r.path.empty()) out += " path=" + r.path;
  if (r.nth != 0) out += " nth=" + std::to_string(r.nth);
  if (r.count != 0) out += " count=" + std::to_string(r.count);
  if (r.p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", *r.p);
    out += " p=";
    out += buf;
  }
  if (r.active_for.count() != 0) out += " for=" + std::to_string(r.active_for.count());
  if (r.ms.count() != 0) out += " ms=" + std::to_string(r.ms.count());
  if (!r.inject_bytes.empty()) out += " hex=" + to_hex(r.inject_bytes);
  out += " action=";
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    if (i != 0) out += then_separator;
    out += action_step_name(r.steps[i]);
  }
  return out;
}

}  // namespace zkwire::faults
