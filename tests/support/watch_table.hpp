#pragma once
// The server's watch tables as the four-letter words print them, for tests that check which watches a session
// left or armed. wchp, wchc and wchs show data watches (getData, exists) only; mntr's zk_watch_count counts child
// watches (getChildren) too.

#include <cstddef>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace zkwire::test {

// wchp: watched path -> sessions watching it.
inline std::map<std::string, std::vector<std::string>> parse_wchp(const std::string& text) {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  std::string current;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line.front() == '/') {
      current = line;
      out[current];
    } else {
      const auto start = line.find("0x");
      if (start != std::string::npos && !current.empty()) out[current].push_back(line.substr(start));
    }
  }
  return out;
}

// The number after `key` in a four-letter word's text ("zk_watch_count\t3", "Total watches:3"); nullopt if absent.
inline std::optional<std::size_t> number_after(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream in(text.substr(at + key.size()));
  std::size_t n = 0;
  if (!(in >> n)) return std::nullopt;
  return n;
}

// The server's watches by kind at one moment: data watches (wchs) and child watches (mntr's count of all minus them).
struct watch_counts {
  std::size_t data = 0;
  std::size_t child = 0;
};

// watch_counts from a wchs, mntr, wchs sequence of replies (`ask(word)` returns one), or nullopt when the two wchs
// disagree or a reply lacks its number: a data watch armed or fired between the replies would otherwise be counted
// as a child watch or hide one. Callers retry (eventually) until the tables hold still.
template <class Ask>
std::optional<watch_counts> watch_counts_of(Ask ask) {
  const auto data = number_after(ask("wchs"), "Total watches:");
  const auto all = number_after(ask("mntr"), "zk_watch_count");
  const auto data_again = number_after(ask("wchs"), "Total watches:");
  if (!data || !all || data != data_again || *all < *data) return std::nullopt;
  return watch_counts{*data, *all - *data};
}

}  // namespace zkwire::test
