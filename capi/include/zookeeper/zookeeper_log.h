/* zkwire's libzookeeper_mt: the logging macros of ZooKeeper's C API. `logLevel` is the library's level variable
 * (set it with zoo_set_debug_level); the macros test it before formatting anything. */
#ifndef ZKWIRE_ZOOKEEPER_LOG_H
#define ZKWIRE_ZOOKEEPER_LOG_H

#include <zookeeper.h>

#ifdef __cplusplus
extern "C" {
#endif

extern ZOOAPI ZooLogLevel logLevel;

#define LOGCALLBACK(_zh) zoo_get_log_callback(_zh)
#define LOGSTREAM NULL

#define LOG_ERROR(_cb, ...) \
  if (logLevel >= ZOO_LOG_LEVEL_ERROR) log_message(_cb, ZOO_LOG_LEVEL_ERROR, __LINE__, __func__, __VA_ARGS__)
#define LOG_WARN(_cb, ...) \
  if (logLevel >= ZOO_LOG_LEVEL_WARN) log_message(_cb, ZOO_LOG_LEVEL_WARN, __LINE__, __func__, __VA_ARGS__)
#define LOG_INFO(_cb, ...) \
  if (logLevel >= ZOO_LOG_LEVEL_INFO) log_message(_cb, ZOO_LOG_LEVEL_INFO, __LINE__, __func__, __VA_ARGS__)
#define LOG_DEBUG(_cb, ...) \
  if (logLevel == ZOO_LOG_LEVEL_DEBUG) log_message(_cb, ZOO_LOG_LEVEL_DEBUG, __LINE__, __func__, __VA_ARGS__)

/* One line to the log callback `callback` (or the handle-less stream when NULL), formatted as printf does. */
ZOOAPI void log_message(log_callback_fn callback, ZooLogLevel curLevel, int line, const char* funcName,
                        const char* format, ...);
/* The stream set with zoo_set_log_stream (stderr when none). */
FILE* zoo_get_log_stream(void);

#ifdef __cplusplus
}
#endif

#endif /* ZKWIRE_ZOOKEEPER_LOG_H */
