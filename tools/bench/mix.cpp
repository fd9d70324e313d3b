#include "zkwire_bench/mix.hpp"

#include <algorithm>
#include <charconv>

namespace zkwire::bench {

bool mixable(op_kind op) noexcept { return op != op_kind::remove && op != op_kind::lock; }

std::optional<std::vector<mix_entry>> parse_mix(std::string_view text, std::string& error) {
  constexpr std::uint32_t max_weight = 1'000'000;
  std::vector<mix_entry> mix;
  if (text.empty()) {
    error = "no operation given (e.g. get:80,set:20)";
    return std::nullopt;
  }
  while (true) {
    const auto comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    const auto colon = item.find(':');
    if (colon == std::string_view::npos) {
      error = "'" + std::string(item) + "' is not op:weight (e.g. get:80)";
      return std::nullopt;
    }
    const std::string_view name = item.substr(0, colon);
    const std::string_view weight_text = item.substr(colon + 1);
    const auto op = parse_op(name);
    if (!op) {
      error = "'" + std::string(name) + "' is not one of get, exists, set, create, children, multi";
      return std::nullopt;
    }
    if (!mixable(*op)) {
      error = "'" + std::string(name) + "' cannot be mixed (mixable: get, exists, set, create, children, multi)";
      return std::nullopt;
    }
    std::uint32_t weight = 0;
    const auto [end, ec] = std::from_chars(weight_text.data(), weight_text.data() + weight_text.size(), weight);
    if (weight_text.empty() || ec != std::errc() || end != weight_text.data() + weight_text.size() || weight == 0 ||
        weight > max_weight) {
      error = "the weight of " + std::string(name) + " ('" + std::string(weight_text) + "') is not an integer in [1, " +
              std::to_string(max_weight) + "]";
      return std::nullopt;
    }
    if (std::any_of(mix.begin(), mix.end(), [&](const mix_entry& e) { return e.op == *op; })) {
      error = std::string(name) + " appears twice";
      return std::nullopt;
    }
    mix.push_back(mix_entry{*op, weight});
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  return mix;
}

mix_picker::mix_picker(const std::vector<mix_entry>& mix) {
  std::uint64_t sum = 0;
  for (const auto& e : mix) cumulative_.push_back(sum += e.weight);
}

std::size_t mix_picker::next() noexcept {
  if (cumulative_.size() <= 1) return 0;
  const std::uint64_t draw = std::uniform_int_distribution<std::uint64_t>(0, cumulative_.back() - 1)(random_);
  return static_cast<std::size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), draw) - cumulative_.begin());
}

}  // namespace zkwire::bench
