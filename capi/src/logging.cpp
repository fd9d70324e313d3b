#include "logging.hpp"

#include <sys/time.h>
#include <unistd.h>

#include <pthread.h>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <string>

#include "handle.hpp"
#include "zookeeper_log.h"

namespace zkwire::capi {

namespace {

std::atomic<FILE*> log_stream{nullptr};

const char* level_name(ZooLogLevel level) {
  switch (level) {
    case ZOO_LOG_LEVEL_ERROR:
      return "ERROR";
    case ZOO_LOG_LEVEL_WARN:
      return "WARN";
    case ZOO_LOG_LEVEL_INFO:
      return "INFO";
    case ZOO_LOG_LEVEL_DEBUG:
      return "DEBUG";
  }
  return "INVALID";
}

bool enabled(ZooLogLevel level) {
  const ZooLogLevel current = logLevel;
  return level == ZOO_LOG_LEVEL_DEBUG ? current == ZOO_LOG_LEVEL_DEBUG : current >= level;
}

// The line without its end of line.
std::string format_line(ZooLogLevel level, const char* function, int line, std::string_view message) {
  timeval tv{};
  gettimeofday(&tv, nullptr);
  std::tm local{};
  const std::time_t seconds = tv.tv_sec;
  localtime_r(&seconds, &local);
  char stamp[32];
  const std::size_t n = std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &local);
  stamp[n] = '\0';
  char head[160];
  std::snprintf(head, sizeof head, "%s,%03d:%d(0x%lx):ZOO_%s@%s@%d: ", stamp, static_cast<int>(tv.tv_usec / 1000),
                static_cast<int>(getpid()), static_cast<unsigned long>(pthread_self()), level_name(level),
                function != nullptr ? function : "", line);
  std::string out = head;
  out.append(message);
  return out;
}

void emit(log_callback_fn callback, const std::string& text) {
  if (callback != nullptr) {
    callback(text.c_str());
    return;
  }
  FILE* stream = zoo_get_log_stream();
  std::fprintf(stream, "%s\n", text.c_str());
  std::fflush(stream);
}

}  // namespace

void log_line(const zhandle_t* zh, ZooLogLevel level, const char* function, int line, std::string_view message) {
  if (!enabled(level)) return;
  emit(zh != nullptr ? zh->log_callback.load() : nullptr, format_line(level, function, line, message));
}

}  // namespace zkwire::capi

extern "C" {

ZOOAPI void zoo_set_debug_level(ZooLogLevel level) {
  if (static_cast<int>(level) <= 0) {
    logLevel = static_cast<ZooLogLevel>(0);  // off
    return;
  }
  logLevel = static_cast<int>(level) > ZOO_LOG_LEVEL_DEBUG ? ZOO_LOG_LEVEL_DEBUG : level;
}

ZOOAPI void zoo_set_log_stream(FILE* stream) { zkwire::capi::log_stream = stream; }

ZOOAPI FILE* zoo_get_log_stream(void) {
  FILE* stream = zkwire::capi::log_stream;
  return stream != nullptr ? stream : stderr;
}

ZOOAPI log_callback_fn zoo_get_log_callback(const zhandle_t* zh) {
  return zh != nullptr ? zh->log_callback.load() : nullptr;
}

ZOOAPI void zoo_set_log_callback(zhandle_t* zh, log_callback_fn callback) {
  if (zh != nullptr) zh->log_callback = callback;
}

ZOOAPI void log_message(log_callback_fn callback, ZooLogLevel level, int line, const char* function, const char* format,
                        ...) {
  if (format == nullptr) return;
  va_list args;
  va_start(args, format);
  char small[512];
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(small, sizeof small, format, copy);
  va_end(copy);
  std::string message;
  if (n >= 0 && static_cast<std::size_t>(n) < sizeof small) {
    message.assign(small, static_cast<std::size_t>(n));
  } else if (n >= 0) {
    message.resize(static_cast<std::size_t>(n) + 1);
    std::vsnprintf(message.data(), message.size(), format, args);
    message.resize(static_cast<std::size_t>(n));
  }
  va_end(args);
  zkwire::capi::emit(callback, zkwire::capi::format_line(level, function, line, message));
}

}  // extern "C"
