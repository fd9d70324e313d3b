#pragma once
// Helpers for the record variants; an implementation detail of message.hpp and multi.hpp, not API.

#include <cstddef>
#include <type_traits>
#include <utility>
#include <variant>

namespace zkwire::proto::detail {

// The index of T among the alternatives of Variant, or std::variant_npos when it is not one of them.
template <class T, class Variant>
struct find_index;

template <class T, class... Ts>
struct find_index<T, std::variant<Ts...>> {
  static constexpr std::size_t value = [] {
    constexpr bool matches[] = {std::is_same_v<T, Ts>...};
    for (std::size_t i = 0; i < sizeof...(Ts); ++i) {
      if (matches[i]) return i;
    }
    return std::variant_npos;
  }();
};

// The index of T among the alternatives of Variant (T must occur, exactly once).
template <class T, class Variant>
struct index_of {
  static constexpr std::size_t value = find_index<T, Variant>::value;
  static_assert(value != std::variant_npos, "type is not an alternative of the variant");
};

template <class T, class Variant>
inline constexpr std::size_t index_of_v = index_of<T, Variant>::value;

// Default-constructs alternative `index` in `v` (a runtime index; must be < the number of alternatives).
template <class Variant>
void emplace_index(Variant& v, std::size_t index) {
  [&]<std::size_t... I>(std::index_sequence<I...>) { ((index == I ? (void)v.template emplace<I>() : (void)0), ...); }
  (std::make_index_sequence<std::variant_size_v<Variant>>{});
}

}  // namespace zkwire::proto::detail
