#pragma once
// multi (14) and multiRead (22): several ops in one request, applied atomically (multi) or independently
// (multiRead) (docs/protocol.md#multi). Plain values.
//
// Wire shape, both directions: each op or result is preceded by a MultiHeader, and MultiHeader{-1, true, -1}
// ends the list. Requests send {opcode, false, -1}; results carry {type, false, err}. An empty multi is just the
// terminator, and the server answers it with just the terminator.
//
// Results are decoded by the result's *type*, not by the op that was sent. That matters on 3.8.0/3.8.1, where a
// create2 inside a multi comes back as a type-1 result (path only, no Stat), fixed in 3.8.2 (docs/protocol.md#multi);
// createTTL and createContainer results come back as type 15 (path and Stat). So a create result is either a
// create_response or a create2_response: handle both.
//
// A failed multi is *not* a failed reply: ReplyHeader.err is 0 and every result has type -1 (error). Ops before the
// failing one carry 0 (rolled back), the failing one its real error, later ones RUNTIMEINCONSISTENCY (-2); use
// first_error(). multiRead never aborts: each op gets its own result or error result.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>
#include <vector>

#include "zkwire/jute/reader.hpp"
#include "zkwire/jute/writer.hpp"
#include "zkwire/proto/codec.hpp"
#include "zkwire/proto/opcodes.hpp"
#include "zkwire/proto/requests.hpp"
#include "zkwire/proto/responses.hpp"

namespace zkwire::proto {

// The ops a multi may contain: create/create2/createContainer (create_request), createTTL (create_ttl_request),
// delete, setData, check; and a multiRead: getChildren, getData.
using multi_op_body = std::variant<create_request, create_ttl_request, delete_request, set_data_request,
                                   check_version_request, get_children_request, get_data_request>;

// Not an aggregate (see acl.hpp on GCC 12 and braced temporaries); build one with the functions below.
struct multi_op {
  op_code type = op_code::check;  // must agree with the body: create/create2/createContainer need a create_request
  multi_op_body body;

  multi_op();
  multi_op(op_code op, multi_op_body request);

  bool operator==(const multi_op&) const = default;
};

// Ops with the opcode the Java client would use.
multi_op create_op(create_request request);      // create2, or createContainer for create_mode::container
multi_op create_op(create_ttl_request request);  // createTTL
multi_op delete_op(std::string path, std::int32_t version = -1);
multi_op set_data_op(std::string path, std::optional<std::string> data, std::int32_t version = -1);
multi_op check_op(std::string path, std::int32_t version);
multi_op get_data_op(std::string path);
multi_op get_children_op(std::string path);

struct multi_request {
  std::vector<multi_op> ops;

  bool operator==(const multi_request&) const = default;
};

// The opcode to send `request` with: multiRead when it is non-empty and holds only read ops, otherwise multi.
op_code multi_opcode(const multi_request& request) noexcept;

// client_error::invalid_argument unless `op` is multi or multiRead and every op is allowed there (no mixing of read
// and write ops: the server answers MARSHALLINGERROR), its type matches its body, and create ops pass
// is_valid_create(). Empty is valid.
std::error_code validate(op_code op, const multi_request& request) noexcept;

// The body of one result; which alternative depends on the result type:
//   create (1) create_response; create2 (15) create2_response; setData (5) set_data_response;
//   getChildren (8) get_children_response; getData (4) get_data_response; delete (2), check (13), error (-1) none.
using multi_result_body = std::variant<no_body, create_response, create2_response, set_data_response,
                                       get_children_response, get_data_response>;

struct multi_result {
  op_code type = op_code::error;  // op_code::error (-1) for a failed or rolled-back op
  // For an error result, the op's error (its ErrorResponse, which the server also copies into the header);
  // otherwise the header's err, 0.
  std::int32_t err = 0;
  multi_result_body body;

  bool operator==(const multi_result&) const = default;
};

struct multi_response {
  std::vector<multi_result> results;

  bool operator==(const multi_response&) const = default;
};

// The error that made a multi fail, as an error_code: the first result err that is neither 0 nor
// RUNTIMEINCONSISTENCY (the C client's rule); if every error result carries -2, that; no error if all succeeded.
// For a multiRead, the first failed read.
std::error_code first_error(const multi_response& response) noexcept;
// Index of the result first_error() reports.
std::optional<std::size_t> first_error_index(const multi_response& response) noexcept;

// Encoders and decoders. encode() records jute::error::invalid_value in the writer for an op whose type does not
// fit its body (check validate() first for a better error); decode() rejects unknown op and result types the same
// way. Each op or result consumes at least 9 bytes, so a hostile input cannot make the decoder loop or allocate
// beyond its size.
void encode(jute::writer& w, const multi_op& v);
void encode(jute::writer& w, const multi_request& v);
void decode(jute::reader& r, multi_request& v);
void encode(jute::writer& w, const multi_result& v);
void encode(jute::writer& w, const multi_response& v);
void decode(jute::reader& r, multi_response& v);

// Decoder entry point for a multi or multiRead reply body (after a ReplyHeader with err 0).
std::error_code decode_multi_response(std::string_view body, multi_response& out);

}  // namespace zkwire::proto
