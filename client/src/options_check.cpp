#include "options_check.hpp"

#include <chrono>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace zkwire::detail {
namespace {

using std::chrono::milliseconds;

// The protocol carries the session timeout as a 32-bit count of milliseconds.
constexpr milliseconds max_wire_timeout{std::numeric_limits<std::int32_t>::max()};
// The smallest reply: a reply header (xid, zxid, err) is 16 bytes.
constexpr std::size_t min_frame_size = 16;

[[noreturn]] void reject(const char* option, const std::string& value, const char* rule) {
  throw std::invalid_argument(std::string("client_options::") + option + " is " + value + ": " + rule);
}

std::string ms(milliseconds d) { return std::to_string(d.count()) + " ms"; }

void check_not_negative(const char* option, milliseconds d) {
  if (d.count() < 0) reject(option, ms(d), "it must be 0 (the default) or positive");
}

}  // namespace

void check_options(const client_options& options) {
  if (options.session_timeout.count() <= 0 || options.session_timeout > max_wire_timeout) {
    reject("session_timeout", ms(options.session_timeout),
           "it must be positive and at most 2^31-1 ms (the server then clamps it to its minSessionTimeout.."
           "maxSessionTimeout, by default 2 to 20 ticks)");
  }
  check_not_negative("connect_timeout", options.connect_timeout);
  check_not_negative("host_connect_timeout", options.host_connect_timeout);
  check_not_negative("request_timeout", options.request_timeout);
  check_not_negative("read_write_probe_interval", options.read_write_probe_interval);
  check_not_negative("read_write_probe_max_interval", options.read_write_probe_max_interval);
  if (options.max_frame_size < min_frame_size) {
    reject("max_frame_size", std::to_string(options.max_frame_size) + " bytes",
           "it must be at least 16 bytes (a reply header); the default is 64 MiB");
  }
}

}  // namespace zkwire::detail
