#pragma once
// Encode and decode of a described record (records.hpp), derived from its fields in wire order (record_fields<R>).
// Both directions follow that one list (encode_fields, decode_fields) by each field's C++ type:
//   std::string                  ustring (a buffer that is never null, such as an auth blob, has the same encoding)
//   std::optional<std::string>   buffer, a null kept as nullopt
//   bool, std::int32_t, std::int64_t   boolean, int, long; an enum is its int
//   std::vector<std::string>     vector of ustrings
//   std::vector<Record>          vector of a described record (an ACL list is one)
//   anything else                a record with encode/decode of its own
// and by the two field kinds of records.hpp: optional_at_end (may be missing at the end) and multi_list.
// Decoding stays bounded and non-throwing: the reader checks every length and count before allocating, and its
// errors are sticky (zkwire/jute/reader.hpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "records.hpp"
#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"

namespace zkwire::proto::detail {

// Multi lists, one per direction (multi.cpp).
void write_multi_list(jute::writer& w, const std::vector<multi_op>& ops);
void read_multi_list(jute::reader& r, std::vector<multi_op>& ops);
void write_multi_list(jute::writer& w, const std::vector<multi_result>& results);
void read_multi_list(jute::reader& r, std::vector<multi_result>& results);

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {
  using element = T;
};

template <class Record>
constexpr std::size_t min_wire_size();

template <class Field>
struct is_optional_at_end : std::false_type {};
template <class Member>
struct is_optional_at_end<optional_at_end<Member>> : std::true_type {};
template <class Field>
struct is_multi_list : std::false_type {};
template <class Member>
struct is_multi_list<multi_list<Member>> : std::true_type {};

// The fewest bytes a field of type T takes on the wire (a vector's count bounds the allocation by it).
template <class T>
constexpr std::size_t min_field_size() {
  if constexpr (std::is_same_v<T, bool>) {
    return 1;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return 8;
  } else if constexpr (std::is_same_v<T, std::int32_t> || std::is_enum_v<T> || std::is_same_v<T, std::string> ||
                       std::is_same_v<T, std::optional<std::string>> || is_vector<T>::value) {
    return 4;  // the value, or a length or count
  } else {
    return min_wire_size<T>();
  }
}

template <class Record, class Field>
constexpr std::size_t min_described_size(Field field) {
  if constexpr (is_optional_at_end<Field>::value) {
    return 0;
  } else if constexpr (is_multi_list<Field>::value) {
    return multi_header_size;  // the terminator
  } else {
    return min_field_size<std::remove_cvref_t<decltype(std::declval<Record&>().*field)>>();
  }
}

template <class Record>
constexpr std::size_t min_wire_size() {
  return std::apply([](auto... field) { return (std::size_t{0} + ... + min_described_size<Record>(field)); },
                    record_fields<Record>);
}

template <class T>
void write_field(jute::writer& w, const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    w.write_ustring(v);
  } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
    w.write_buffer(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    w.write_bool(v);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    w.write_int(v);
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    w.write_long(v);
  } else if constexpr (std::is_enum_v<T>) {
    static_assert(sizeof(T) == sizeof(std::int32_t), "an enum field is a Jute int");
    w.write_int(static_cast<std::int32_t>(v));
  } else if constexpr (is_vector<T>::value) {
    w.write_vector(v, [](jute::writer& out, const auto& element) { write_field(out, element); });
  } else {
    encode(w, v);
  }
}

template <class T>
void read_field(jute::reader& r, T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    v = r.read_ustring();
  } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
    v = r.read_buffer();
  } else if constexpr (std::is_same_v<T, bool>) {
    v = r.read_bool();
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    v = r.read_int();
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    v = r.read_long();
  } else if constexpr (std::is_enum_v<T>) {
    static_assert(sizeof(T) == sizeof(std::int32_t), "an enum field is a Jute int");
    v = static_cast<T>(r.read_int());
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    v = r.read_ustring_vector();
  } else if constexpr (is_vector<T>::value) {
    using element = typename is_vector<T>::element;
    r.read_vector(v, min_field_size<element>(), [](jute::reader& in) {
      element e;
      read_field(in, e);
      return e;
    });
  } else {
    decode(r, v);
  }
}

template <class Record, class Field>
void write_described(jute::writer& w, const Record& v, Field field) {
  if constexpr (is_optional_at_end<Field>::value) {
    write_field(w, v.*field.member);
  } else if constexpr (is_multi_list<Field>::value) {
    write_multi_list(w, v.*field.member);
  } else {
    write_field(w, v.*field);
  }
}

template <class Record, class Field>
void read_described(jute::reader& r, Record& v, Field field) {
  if constexpr (is_optional_at_end<Field>::value) {
    using type = std::remove_cvref_t<decltype(v.*field.member)>;
    // Read only when a byte is left: a record that ends right before the field leaves it at its default.
    if (!r.ok() || r.remaining() == 0) {
      v.*field.member = type{};
    } else {
      read_field(r, v.*field.member);
    }
  } else if constexpr (is_multi_list<Field>::value) {
    read_multi_list(r, v.*field.member);
  } else {
    read_field(r, v.*field);
  }
}

template <class Record>
void encode_fields(jute::writer& w, const Record& v) {
  std::apply([&](auto... field) { (write_described(w, v, field), ...); }, record_fields<Record>);
}

template <class Record>
void decode_fields(jute::reader& r, Record& v) {
  std::apply([&](auto... field) { (read_described(r, v, field), ...); }, record_fields<Record>);
}

}  // namespace zkwire::proto::detail
