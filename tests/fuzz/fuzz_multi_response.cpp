// fuzz_multi_response: decode_multi_response(body), the body of a multi or multiRead reply after a ReplyHeader
// with err 0. The input is that body.
//
// Properties:
//  1. Errors are the documented complete-input errors (truncated_frame or a decoding jute::error, an unknown result
//     type being jute::error::invalid_value); is_protocol_violation() holds.
//  2. Bounded: every result takes at least one 9-byte MultiHeader and the list ends with one, so a success has at
//     most size / 9 - 1 results.
//  3. Each result's body is the one its *type* calls for (docs/protocol.md#multi): create -> path,
//     create2 -> path + Stat, setData -> Stat, getChildren -> names, getData -> data + Stat, delete/check/error ->
//     none; no other type.
//  4. Re-encoding has the input's size, ends with the canonical terminator {-1, true, -1}, decodes to an equal
//     value and re-encodes to itself. (Not the same bytes: any header with done set ends the list whatever its
//     type and err, an error result's header err is replaced by its body's, and null strings read as empty.)
//  5. first_error_index() follows the C client's rule: the first err that is neither 0 nor -2, else the first -2,
//     else none; first_error() is that err in the "zookeeper" category.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "fuzz_check.hpp"
#include "zkwire/proto/headers.hpp"
#include "zkwire/proto/multi.hpp"

namespace {

namespace proto = zkwire::proto;
using proto::op_code;

// The body each result type carries, from docs/protocol.md#multi; nullopt for types that are no result.
std::optional<std::size_t> expected_body(op_code type) {
  switch (type) {
    case op_code::error:
    case op_code::delete_:
    case op_code::check:
      return 0;  // no_body
    case op_code::create:
      return 1;  // create_response
    case op_code::create2:
      return 2;  // create2_response
    case op_code::set_data:
      return 3;  // set_data_response
    case op_code::get_children:
      return 4;  // get_children_response
    case op_code::get_data:
      return 5;  // get_data_response
    default:
      return std::nullopt;
  }
}

constexpr std::int32_t runtime_inconsistency = -2;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string_view body = zkwire::fuzz::as_bytes(bytes, size);

  proto::multi_response response;
  const std::error_code ec = proto::decode_multi_response(body, response);
  if (ec) {
    // Property 1.
    ZKWIRE_FUZZ_CHECK(zkwire::fuzz::is_complete_input_error(ec));
    ZKWIRE_FUZZ_CHECK(proto::is_protocol_violation(ec));
    return 0;
  }

  // Property 2.
  ZKWIRE_FUZZ_CHECK(body.size() >= proto::multi_header_size);
  ZKWIRE_FUZZ_CHECK(response.results.size() <= body.size() / proto::multi_header_size - 1);

  // Property 3.
  static_assert(std::is_same_v<std::variant_alternative_t<1, proto::multi_result_body>, proto::create_response>);
  static_assert(std::is_same_v<std::variant_alternative_t<5, proto::multi_result_body>, proto::get_data_response>);
  for (const auto& result : response.results) {
    const auto want = expected_body(result.type);
    ZKWIRE_FUZZ_CHECK(want.has_value());
    ZKWIRE_FUZZ_CHECK(result.body.index() == *want);
  }

  // Property 4.
  std::string encoded;
  ZKWIRE_FUZZ_CHECK(!proto::encode_append(encoded, response));
  ZKWIRE_FUZZ_CHECK(encoded.size() == body.size());
  ZKWIRE_FUZZ_CHECK(encoded.compare(encoded.size() - 9, 9, std::string("\xff\xff\xff\xff\x01\xff\xff\xff\xff", 9)) ==
                    0);
  proto::multi_response again;
  ZKWIRE_FUZZ_CHECK(!proto::decode_multi_response(encoded, again));
  ZKWIRE_FUZZ_CHECK(again == response);
  std::string encoded_again;
  ZKWIRE_FUZZ_CHECK(!proto::encode_append(encoded_again, again));
  ZKWIRE_FUZZ_CHECK(encoded_again == encoded);

  // Property 5.
  const auto index = proto::first_error_index(response);
  const std::error_code first = proto::first_error(response);
  if (!index) {
    for (const auto& result : response.results) ZKWIRE_FUZZ_CHECK(result.err == 0);
    ZKWIRE_FUZZ_CHECK(!first);
    return 0;
  }
  ZKWIRE_FUZZ_CHECK(*index < response.results.size());
  const std::int32_t err = response.results[*index].err;
  ZKWIRE_FUZZ_CHECK(err != 0);
  for (std::size_t i = 0; i < *index; ++i) {
    ZKWIRE_FUZZ_CHECK(response.results[i].err == 0 || response.results[i].err == runtime_inconsistency);
  }
  if (err == runtime_inconsistency) {
    for (const auto& result : response.results) {
      ZKWIRE_FUZZ_CHECK(result.err == 0 || result.err == runtime_inconsistency);
    }
    for (std::size_t i = 0; i < *index; ++i) ZKWIRE_FUZZ_CHECK(response.results[i].err == 0);
  }
  ZKWIRE_FUZZ_CHECK(first.value() == err);
  ZKWIRE_FUZZ_CHECK(first.category() == proto::server_category());
  return 0;
}
