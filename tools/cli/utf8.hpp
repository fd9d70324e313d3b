#pragma once
// UTF-8 well-formedness, for deciding whether node data can be shown as a JSON string. Pure function.

#include <string_view>

namespace zkwire::cli {

// True if `bytes` is well-formed UTF-8 (no overlong forms, no encoded surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view bytes) noexcept;

}  // namespace zkwire::cli
