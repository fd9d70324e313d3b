#pragma once
// Base64 (RFC 4648 section 4, standard alphabet, '=' padding). Pure functions.

#include <optional>
#include <string>
#include <string_view>

namespace zkwire::cli {

std::string base64_encode(std::string_view bytes);

// The bytes of padded standard base64 `text`, or nullopt if it is not that (wrong length, bad character, bits
// set in the padding).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace zkwire::cli
