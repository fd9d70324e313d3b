#pragma once
// The checks of client_options that need no I/O, made by the client constructor before anything starts.

#include "zkwire/client/options.hpp"

namespace zkwire::detail {

// Throws std::invalid_argument naming the option, its value and what it must be, for a value no session could
// work with (a session timeout of 0 or less, a negative time limit, a frame size too small for any reply, ...).
void check_options(const client_options& options);

}  // namespace zkwire::detail
