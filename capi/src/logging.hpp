#pragma once
// The C API's logging: the level in `logLevel` (interposable: a program may read the variable itself), lines to
// the handle's log callback, else to the stream of zoo_set_log_stream (stderr by default), in the C client's
// line format: "<date> <time>,<ms>:<pid>(0x<thread>):ZOO_<LEVEL>@<function>@<line>: <message>".

#include <string_view>

#include "zookeeper.h"

namespace zkwire::capi {

// One line from the library itself for handle `zh` (may be NULL), if `level` is enabled.
void log_line(const zhandle_t* zh, ZooLogLevel level, const char* function, int line, std::string_view message);

}  // namespace zkwire::capi
