#include "zkwire/jute/error.hpp"

#include <string>

namespace zkwire::jute {
namespace {

class jute_category final : public std::error_category {
 public:
  [[nodiscard]] const char* name() const noexcept override { return "zkwire.jute"; }

  [[nodiscard]] std::string message(int value) const override {
    switch (static_cast<error>(value)) {
      case error::need_more_bytes:
        return "jute: input ended in the middle of a value";
      case error::negative_length:
        return "jute: negative length or count";
      case error::length_exceeds_limit:
        return "jute: buffer or string length exceeds the configured maximum";
      case error::count_exceeds_input:
        return "jute: vector count larger than the bytes left could hold";
      case error::invalid_boolean:
        return "jute: boolean byte is neither 0 nor 1";
      case error::trailing_bytes:
        return "jute: unexpected bytes after the end of the record";
      case error::value_too_large:
        return "jute: value too large to encode";
      case error::invalid_value:
        return "jute: field value out of range";
    }
    return "jute: unknown error " + std::to_string(value);
  }
};

}  // namespace

const std::error_category& category() noexcept {
  static const jute_category instance;
  return instance;
}

}  // namespace zkwire::jute
