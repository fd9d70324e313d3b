// fuzz_records: decode_exact of every described record (the registry, proto/src/records.hpp), so a record added to
// the registry is fuzzed with no edit here.
//
// Input: byte 0 chooses the record (its position in the registry, modulo the number of records), the rest is the
// record's bytes.
//
// Properties:
//  1. A failure is a documented complete-input error (truncated_frame or a decoding jute::error) and a protocol
//     violation.
//  2. Success: re-encoding has the input's size, or is longer by exactly the optional_at_end fields' bytes when the
//     input ended before them (those bytes then encode the fields' defaults); it decodes to an equal value and
//     re-encodes to itself.
//  3. For a canonical record (is_canonical(): no field at any depth that a peer may send as null and that reads as
//     empty, no multi list) the re-encoding is the input; otherwise, except for multi lists (whose terminator and
//     error results' header err are not kept), it differs from the input only where a null (-1) was read as empty.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "described_records.hpp"
#include "fuzz_check.hpp"
#include "zkwire/proto/codec.hpp"

namespace {

namespace proto = zkwire::proto;
namespace registry = zkwire::proto::detail;

template <class Record>
std::string encode_record(const Record& value) {
  std::string out = "ab";  // encoders append: what was there stays
  ZKWIRE_FUZZ_CHECK(!proto::encode_append(out, value));
  ZKWIRE_FUZZ_CHECK(out.compare(0, 2, "ab") == 0);
  return out.substr(2);
}

template <class Record>
constexpr bool has_multi_list() {
  return std::apply([](auto... field) { return (proto::test::is_multi_list<decltype(field)> || ...); },
                    registry::record_fields<Record>);
}

template <class Record>
void check(std::string_view payload) {
  Record value{};
  const std::error_code ec = proto::decode_exact(payload, value);

  // Property 1.
  if (ec) {
    ZKWIRE_FUZZ_CHECK(zkwire::fuzz::is_complete_input_error(ec));
    ZKWIRE_FUZZ_CHECK(proto::is_protocol_violation(ec));
    return;
  }

  // Property 2.
  const std::string encoded = encode_record(value);
  const std::size_t tail = proto::test::optional_tail_size(value);
  ZKWIRE_FUZZ_CHECK(encoded.size() == payload.size() || encoded.size() == payload.size() + tail);
  const std::string_view ours = std::string_view(encoded).substr(0, payload.size());
  if (encoded.size() != payload.size()) {
    const std::string defaults = proto::test::optional_tail_bytes(Record{});
    ZKWIRE_FUZZ_CHECK(std::string_view(encoded).substr(payload.size()) == defaults);
  }
  Record again{};
  ZKWIRE_FUZZ_CHECK(!proto::decode_exact(encoded, again));
  ZKWIRE_FUZZ_CHECK(again == value);
  ZKWIRE_FUZZ_CHECK(encode_record(again) == encoded);

  // Property 3.
  if constexpr (proto::test::is_canonical<Record>()) {
    ZKWIRE_FUZZ_CHECK(ours == payload);
  } else if constexpr (!has_multi_list<Record>()) {
    ZKWIRE_FUZZ_CHECK(zkwire::fuzz::differs_only_by_nulls(payload, ours));
  }
}

template <std::size_t... I>
void check_record(std::size_t index, std::string_view payload, std::index_sequence<I...> /*records*/) {
  ((index == I ? check<registry::record_at<I>>(payload) : void()), ...);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  zkwire::fuzz::byte_source in(zkwire::fuzz::as_bytes(bytes, size));
  const std::size_t index = in.take_u8() % registry::record_count;
  check_record(index, in.rest(), std::make_index_sequence<registry::record_count>{});
  return 0;
}
