// The record registry (proto/src/records.hpp) against the records themselves: every record a message carries is
// described, every description covers all of its record's members, and every described record, with values
// generated from its description, round-trips, re-encodes to the same bytes, fails at every truncation, and encodes
// its emptiest value in exactly the bytes the decoders' count bounds assume.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "described_records.hpp"
#include "samples.hpp"
#include "zkwire/proto/proto.hpp"

namespace zkwire::proto {
namespace test {

// Converts to any member type: T{any_field{}, ...} compiles for as many initializers as an aggregate has members.
struct any_field {
  template <class T>
  operator T() const;  // NOLINT(google-explicit-constructor): only ever named in unevaluated brace-initializers
};

}  // namespace test

namespace {

using test::registry::is_described;

template <class Variant>
struct all_described;
template <class... T>
struct all_described<std::variant<T...>> : std::bool_constant<(is_described<T> && ...)> {};

TEST(record_registry, describes_every_record_a_message_carries) {
  // A body added to one of these variants without a description: the property this test names. In practice its
  // encode() fails to compile first (record_index's static_assert), and so does a record described twice.
  EXPECT_TRUE(all_described<request_body>::value);
  EXPECT_TRUE(all_described<response_body>::value);
  EXPECT_TRUE(all_described<multi_op_body>::value);
  EXPECT_TRUE(all_described<multi_result_body>::value);
  EXPECT_TRUE((is_described<connect_request> && is_described<connect_response> && is_described<request_header> &&
               is_described<reply_header> && is_described<multi_header>));
}

template <class T, class... A>
constexpr std::size_t aggregate_arity() {
  if constexpr (requires { T{A{}..., test::any_field{}}; }) {
    return aggregate_arity<T, A..., test::any_field>();
  } else {
    return sizeof...(A);
  }
}

template <class Record>
class described_record : public ::testing::Test {};

using all_described_records = test::registry_types<::testing::Types>::type;
TYPED_TEST_SUITE(described_record, all_described_records);

TYPED_TEST(described_record, description_covers_every_member) {
  using record = TypeParam;
  constexpr auto fields = test::registry::record_fields<record>;
  constexpr std::size_t described = std::tuple_size_v<std::remove_cvref_t<decltype(fields)>>;
  if constexpr (std::is_aggregate_v<record>) {
    EXPECT_EQ(aggregate_arity<record>(), described) << "members of the struct vs fields in records.hpp";
  }
  if constexpr (std::is_empty_v<record>) {
    EXPECT_EQ(described, 0U);
  } else {
    // The described members tile the object: each starts where the previous ends (after alignment), the first at
    // 0, and the last ends the object. A member left out of the description leaves a hole.
    struct span {
      std::size_t offset, size, align;
    };
    std::vector<span> spans;
    const record object{};
    const auto* base = reinterpret_cast<const char*>(&object);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
    std::apply(
        [&](auto... field) {
          ((spans.push_back({static_cast<std::size_t>(reinterpret_cast<const char*>(  // NOLINT
                                                          &(object.*test::member_of(field))) -
                                                      base),
                             sizeof(test::field_type<record, decltype(field)>),
                             alignof(test::field_type<record, decltype(field)>)})),
           ...);
        },
        fields);
    std::sort(spans.begin(), spans.end(), [](const span& a, const span& b) { return a.offset < b.offset; });
    const auto aligned = [](std::size_t n, std::size_t align) { return (n + align - 1) / align * align; };
    std::size_t end = 0;
    for (const span& s : spans) {
      EXPECT_EQ(s.offset, aligned(end, s.align))
          << "a member between offsets " << end << " and " << s.offset << " is not in the description";
      end = s.offset + s.size;
    }
    EXPECT_EQ(aligned(end, alignof(record)), sizeof(record))
        << "a member after offset " << end << " is not in the description";
  }
}

TYPED_TEST(described_record, generated_values_round_trip) {
  for (const TypeParam& original : test::generated_samples<TypeParam>()) {
    const std::string bytes = test::encoded(original);
    TypeParam decoded{};
    ASSERT_FALSE(decode_exact(bytes, decoded));
    EXPECT_EQ(decoded, original);
    EXPECT_EQ(test::encoded(decoded), bytes);
  }
}

TYPED_TEST(described_record, every_truncation_fails) {
  for (const TypeParam& value : test::generated_samples<TypeParam>()) {
    const std::string bytes = test::encoded(value);
    const std::size_t may_end_at = bytes.size() - test::optional_tail_size(value);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      const std::string prefix = bytes.substr(0, n);  // own copy, so ASan sees reads past the end
      TypeParam out{};
      const std::error_code ec = decode_exact(prefix, out);
      if (n == may_end_at) {
        EXPECT_FALSE(ec) << "a record may end before its optional_at_end fields";
      } else {
        EXPECT_TRUE(is_protocol_violation(ec)) << "prefix of " << n << " of " << bytes.size() << " bytes decoded";
      }
    }
  }
}

TYPED_TEST(described_record, emptiest_value_takes_the_fewest_bytes) {
  // Vector counts are checked against min_wire_size before anything is allocated; it must be the true minimum.
  const TypeParam empty = test::generated_record<TypeParam>(0);
  EXPECT_EQ(test::encoded(empty).size() - test::optional_tail_size(empty), detail::min_wire_size<TypeParam>());
}

}  // namespace
}  // namespace zkwire::proto
