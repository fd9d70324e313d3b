#include "golden_frames.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <system_error>

#ifndef ZKWIRE_GOLDEN_DIR
#error "ZKWIRE_GOLDEN_DIR must name tests/golden/data"
#endif

namespace zkwire::proto::golden {
namespace {

std::optional<unsigned> hex_digit(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
  return std::nullopt;  // the format is lowercase only
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const auto hi = hex_digit(hex[i]);
    const auto lo = hex_digit(hex[i + 1]);
    if (!hi || !lo) return std::nullopt;
    out.push_back(static_cast<char>((*hi << 4) | *lo));
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::filesystem::path golden_dir() {
  // ZKWIRE_GOLDEN_DIR in the environment points the test at another copy of the data (e.g. a mutated one, to
  // check that the test notices).
  if (const char* dir = std::getenv("ZKWIRE_GOLDEN_DIR"); dir != nullptr && *dir != '\0') {
    return std::filesystem::path(dir);
  }
  return std::filesystem::path(ZKWIRE_GOLDEN_DIR);
}

std::vector<std::string> capture_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(golden_dir(), ec)) {
    if (entry.path().extension() == ".frames") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

capture read_capture(const std::string& name) {
  capture out;
  out.name = name;
  const auto path = golden_dir() / (name + ".frames");
  std::ifstream in(path);
  if (!in) {
    out.errors.push_back("cannot open " + path.string());
    return out;
  }
  constexpr std::string_view open_marker = "# -- connection ";
  std::string text;
  std::size_t line_no = 0;
  while (std::getline(in, text)) {
    ++line_no;
    const std::string_view line = trim(text);
    const std::string where = name + ".frames:" + std::to_string(line_no) + ": ";
    if (line.empty()) continue;
    if (line.front() == '#') {
      if (line.substr(0, open_marker.size()) == open_marker && line.size() >= 5 &&
          line.substr(line.size() - 5) == " open") {
        ++out.connections;
        const std::string expected = std::string(open_marker) + std::to_string(out.connections) + " open";
        if (line != expected) out.errors.push_back(where + "expected \"" + expected + "\"");
      }
      continue;
    }
    if (line.size() < 2 || (line[0] != 'C' && line[0] != 'S') || line[1] != ' ') {
      out.errors.push_back(where + "neither a comment nor a C/S frame line");
      continue;
    }
    auto payload = from_hex(line.substr(2));
    if (!payload) {
      out.errors.push_back(where + "bad hex");
      continue;
    }
    if (out.connections == 0) out.errors.push_back(where + "frame before the first connection marker");
    frame f;
    f.ordinal = out.frames.size() + 1;
    f.line = line_no;
    f.connection = out.connections;
    f.dir = line[0] == 'C' ? direction::client : direction::server;
    f.payload = std::move(*payload);
    out.frames.push_back(std::move(f));
  }
  return out;
}

std::map<std::string, index_row> read_index(std::vector<std::string>& errors) {
  std::map<std::string, index_row> rows;
  const auto path = golden_dir() / "INDEX";
  std::ifstream in(path);
  if (!in) {
    errors.push_back("cannot open " + path.string());
    return rows;
  }
  std::string text;
  std::size_t line_no = 0;
  while (std::getline(in, text)) {
    ++line_no;
    const std::string_view line = trim(text);
    if (line.empty() || line.front() == '#') continue;
    const std::string where = "INDEX:" + std::to_string(line_no) + ": ";
    const auto tab1 = line.find('\t');
    const auto tab2 = tab1 == std::string_view::npos ? tab1 : line.find('\t', tab1 + 1);
    if (tab2 == std::string_view::npos) {
      errors.push_back(where + "expected three tab-separated columns");
      continue;
    }
    index_row& row = rows[std::string(line.substr(0, tab1))];
    std::string_view kinds = line.substr(tab2 + 1);
    // "kind(count), kind(count), ..."; a kind may itself contain parentheses and commas without a space.
    while (!kinds.empty()) {
      const auto sep = kinds.find(", ");
      const std::string_view item = kinds.substr(0, sep);
      kinds = sep == std::string_view::npos ? std::string_view() : kinds.substr(sep + 2);
      const auto open = item.rfind('(');
      if (open == std::string_view::npos || item.back() != ')') {
        errors.push_back(where + "bad item \"" + std::string(item) + "\"");
        continue;
      }
      const std::string count(item.substr(open + 1, item.size() - open - 2));
      if (count.empty() || !std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        errors.push_back(where + "bad count in \"" + std::string(item) + "\"");
        continue;
      }
      row[std::string(item.substr(0, open))] += std::stoi(count);
    }
  }
  return rows;
}

std::string to_hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 0x0f]);
  }
  return out;
}

}  // namespace zkwire::proto::golden
