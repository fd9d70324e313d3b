#pragma once
// What the tests derive from the record registry (proto/src/records.hpp) instead of listing records by hand: the
// registry as a type list, values of any described record generated field by field, whether a record's encoding is
// canonical, and a walk over every described record inside a value. A record added to the registry is covered by
// every test that uses these, with no edit here.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "record_fields.hpp"
#include "zkwire/proto/detail/variant.hpp"
#include "zkwire/proto/op_traits.hpp"
#include "zkwire/proto/proto.hpp"

namespace zkwire::proto::test {

namespace registry = zkwire::proto::detail;

// The registry as a list of types: registry_types<List>::type is List<R...> for every described record R.
template <template <class...> class List, class Seq = std::make_index_sequence<registry::record_count>>
struct registry_types;
template <template <class...> class List, std::size_t... I>
struct registry_types<List, std::index_sequence<I...>> {
  using type = List<registry::record_at<I>...>;
};

using registry::is_vector;

// The member a described field designates, whatever its field kind.
template <class Field>
constexpr auto member_of(Field field) {
  if constexpr (std::is_member_object_pointer_v<Field>) {
    return field;
  } else {
    return field.member;
  }
}

template <class Record, class Field>
using field_type = std::remove_cvref_t<decltype(std::declval<Record&>().*member_of(std::declval<Field>()))>;

template <class Field>
inline constexpr bool is_multi_list = registry::is_multi_list<Field>::value;
template <class Field>
inline constexpr bool is_optional_at_end = registry::is_optional_at_end<Field>::value;

// ---------------------------------------------------------------------------------------------------------------
// Generated values. Variant 0 is all zero, empty and null; 1 small values; 2 extremes and binary bytes; 3 negative
// values and non-ASCII text. `salt` differs per field, so two fields of one record never hold the same value.
// ---------------------------------------------------------------------------------------------------------------

inline constexpr int generated_variants = 4;

template <class T>
T generated_value(int k, int salt);

template <class Record>
Record generated_record(int k);

template <class Entry>
std::vector<Entry> generated_multi_list(int k) {
  std::vector<Entry> list;
  if (k == 0) return list;
  int salt = 0;
  for (const op_code op : all_op_codes) {
    const op_traits* t = find_op_traits(op);
    const std::size_t index = std::is_same_v<Entry, multi_op> ? t->multi_op_body : t->multi_result_body;
    if (index == std::variant_npos) continue;
    Entry& entry = list.emplace_back();
    entry.type = op;
    detail::emplace_index(entry.body, index);
    std::visit([&](auto& body) { body = generated_record<std::remove_cvref_t<decltype(body)>>(k); }, entry.body);
    if constexpr (std::is_same_v<Entry, multi_result>) {
      if (op == op_code::error) entry.err = -101 - ++salt;
    }
  }
  return list;
}

template <class T>
T generated_value(int k, int salt) {
  if constexpr (std::is_same_v<T, bool>) {
    return k % 2 == 1 || k == 2;
  } else if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) {
    const T values[] = {0, static_cast<T>(salt), static_cast<T>(std::numeric_limits<T>::max() - salt),
                        static_cast<T>(std::numeric_limits<T>::min() + salt)};
    return values[k];
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(generated_value<std::int32_t>(k, salt));
  } else if constexpr (std::is_same_v<T, std::string>) {
    const std::string values[] = {"", "/n" + std::to_string(salt), std::string("\0\x01\xff\x7f\x80", 5) + char(salt),
                                  "/\xc3\xa9t\xc3\xa9" + std::to_string(salt)};
    return values[k];
  } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
    if (k == 0) return std::nullopt;
    if (k == 1) return std::string();
    return generated_value<std::string>(k, salt);
  } else if constexpr (std::is_same_v<T, std::vector<multi_op>> || std::is_same_v<T, std::vector<multi_result>>) {
    return generated_multi_list<typename T::value_type>(k);
  } else if constexpr (is_vector<T>::value) {
    using element = typename is_vector<T>::element;
    if (k == 0) return {};
    return {generated_value<element>(k, salt), generated_value<element>(generated_variants - k, salt + 1)};
  } else {
    return generated_record<T>(k);
  }
}

template <class Record>
Record generated_record(int k) {
  Record v{};
  int salt = 0;
  std::apply(
      [&](auto... field) {
        ((v.*member_of(field) = generated_value<field_type<Record, decltype(field)>>(k, ++salt)), ...);
      },
      registry::record_fields<Record>);
  return v;
}

template <class Record>
std::vector<Record> generated_samples() {
  std::vector<Record> out;
  for (int k = 0; k < generated_variants; ++k) out.push_back(generated_record<Record>(k));
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Derived properties.
// ---------------------------------------------------------------------------------------------------------------

// Whether decoding and re-encoding any valid input gives its bytes back: false as soon as some field, at any depth,
// is a string or vector a peer may send as null (read as empty, written as length 0), or a multi list (its
// terminator and an error result's header err are not kept).
template <class T>
constexpr bool is_canonical();

template <class Record, class Field>
constexpr bool field_is_canonical() {
  using type = field_type<Record, Field>;
  if constexpr (is_multi_list<Field> || std::is_same_v<type, std::string> || is_vector<type>::value) {
    return false;
  } else if constexpr (registry::is_described<type>) {
    return is_canonical<type>();
  } else {
    return true;  // an integer, an enum, a bool or a nullable buffer
  }
}

template <class T>
constexpr bool is_canonical() {
  return std::apply([](auto... field) { return (field_is_canonical<T, decltype(field)>() && ...); },
                    registry::record_fields<T>);
}

// The bytes a record may end without: its optional_at_end fields as encoded.
template <class Record>
std::string optional_tail_bytes(const Record& value) {
  std::string tail;
  jute::writer w(tail);
  std::apply(
      [&](auto... field) {
        (
            [&] {
              if constexpr (is_optional_at_end<decltype(field)>) {
                registry::write_field(w, value.*member_of(field));
              }
            }(),
            ...);
      },
      registry::record_fields<Record>);
  return tail;
}

template <class Record>
std::size_t optional_tail_size(const Record& value) {
  return optional_tail_bytes(value).size();
}

// Calls f(value) for `value` and for every described record inside it (fields, vector elements, multi entries'
// bodies; an error result's ErrorResponse and each entry's MultiHeader are marked as error_response{} and
// multi_header{}).
template <class T, class F>
void for_each_record_in(const T& value, F&& f) {
  if constexpr (std::is_same_v<T, multi_op> || std::is_same_v<T, multi_result>) {
    f(multi_header{});
    if constexpr (std::is_same_v<T, multi_result>) {
      if (value.type == op_code::error) f(error_response{value.err});
    }
    std::visit([&](const auto& body) { for_each_record_in(body, f); }, value.body);
  } else if constexpr (is_vector<T>::value) {
    for (const auto& element : value) for_each_record_in(element, f);
  } else if constexpr (registry::is_described<T>) {
    f(value);
    std::apply([&](auto... field) { (for_each_record_in(value.*member_of(field), f), ...); },
               registry::record_fields<T>);
    if constexpr (std::is_same_v<T, multi_request> || std::is_same_v<T, multi_response>) f(multi_header{});
  }
}

}  // namespace zkwire::proto::test
