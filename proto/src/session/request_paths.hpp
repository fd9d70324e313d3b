#pragma once
// Client paths in request bodies and results: validation, chroot prepending on the way out and stripping on the
// way back (docs/protocol.md#chroot). getEphemerals is left as is, as the Java 3.8 client does.

#include <string_view>
#include <system_error>

#include "zkwire/proto/message.hpp"

namespace zkwire::proto::session_detail {

// Validates every path of `body` (sequential creates as path + "1"; multi ops included) and prepends `chroot`
// to each. client_error::invalid_path for the first bad one, with `body` possibly half converted.
std::error_code apply_chroot(std::string_view chroot, request_body& body);

// The client path of a request body (op_path::path in op_traits; already validated), or "" if it has none: the
// path a watch or a removeWatches acts on.
std::string_view request_path(const request_body& body);

// Strips `chroot` from the server paths of a result: create, create2, sync and the create results of a multi.
void strip_chroot(std::string_view chroot, response_body& body);

}  // namespace zkwire::proto::session_detail
