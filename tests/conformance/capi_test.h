/* The conformance suite's shared harness: C programs written against the ZooKeeper C client's header and linked
 * against Debian's libzookeeper_mt, so each binary is what a user of the C client has. The same binary runs on
 * Debian's library and, through LD_LIBRARY_PATH, on zkwire's (tests/conformance/README.md).
 *
 * Environment (set by zkwire_capi_launch): ZKWIRE_CAPI_HOSTS, the server's connect string; ZKWIRE_CAPI_EXPECT_LIB,
 * the file the dynamic loader must have loaded as libzookeeper_mt.so.2 (compared after resolving symlinks), so a
 * run meant for zkwire's library that silently falls back to Debian's fails.
 *
 * Checks record a failure and go on; ct_main returns 1 if any check failed. Waits are bounded (CT_WAIT_MS) so a
 * missing event fails the check instead of hanging the test. */
#ifndef ZKWIRE_TESTS_CAPI_CAPI_TEST_H
#define ZKWIRE_TESTS_CAPI_CAPI_TEST_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <zookeeper/zookeeper.h>

enum { CT_WAIT_MS = 15000, CT_SESSION_TIMEOUT_MS = 10000 };

/* One test case: a name and a function. */
struct ct_case {
  const char* name;
  void (*run)(void);
};

/* Checks the loaded library, runs every case in order, prints a summary; the exit status for main(). */
int ct_main(const struct ct_case* cases, int count);

/* Records a failure at file:line with a printf-style message. */
void ct_fail(const char* file, int line, const char* format, ...) __attribute__((format(printf, 3, 4)));

#define CT_CHECK(cond)                                     \
  do {                                                     \
    if (!(cond)) ct_fail(__FILE__, __LINE__, "%s", #cond); \
  } while (0)
#define CT_CHECK_RC(expr, expected)                                                                                \
  do {                                                                                                             \
    int ct_rc_ = (expr);                                                                                           \
    int ct_expected_ = (expected);                                                                                 \
    if (ct_rc_ != ct_expected_)                                                                                    \
      ct_fail(__FILE__, __LINE__, "%s: rc %d (%s), expected %d (%s)", #expr, ct_rc_, zerror(ct_rc_), ct_expected_, \
              zerror(ct_expected_));                                                                               \
  } while (0)
#define CT_CHECK_INT(actual, expected)                                                                   \
  do {                                                                                                   \
    long long ct_a_ = (long long)(actual);                                                               \
    long long ct_e_ = (long long)(expected);                                                             \
    if (ct_a_ != ct_e_) ct_fail(__FILE__, __LINE__, "%s == %lld, expected %lld", #actual, ct_a_, ct_e_); \
  } while (0)
#define CT_CHECK_STR(actual, expected)                                                                        \
  do {                                                                                                        \
    const char* ct_a_ = (actual);                                                                             \
    const char* ct_e_ = (expected);                                                                           \
    if (ct_a_ == NULL || strcmp(ct_a_, ct_e_) != 0)                                                           \
      ct_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #actual, ct_a_ ? ct_a_ : "(null)", ct_e_); \
  } while (0)

/* Which library the launcher meant to load: "debian" or "zkwire" (ZKWIRE_CAPI_LIBRARY). */
const char* ct_library(void);

/* Runs call(arg) in a forked child so a crash cannot take the suite down: the call's return value (which must lie
 * in -255..0, as the C client's codes do), or CT_CRASHED if the child died of a signal. */
enum { CT_CRASHED = 1000 };
int ct_isolated(int (*call)(void*), void* arg);

/* Checks that call(arg), run isolated, returns `expected`. Where Debian's library crashes instead, the Debian run
 * records a known defect of the reference (printed, not a failure); every other library must return `expected`. */
#define CT_CHECK_ISOLATED(call, arg, expected) ct_check_isolated(__FILE__, __LINE__, #call, call, arg, expected)
void ct_check_isolated(const char* file, int line, const char* name, int (*call)(void*), void* arg, int expected);

/* The server's connect string. */
const char* ct_hosts(void);

/* A node path unique to this process and case: "/capi-<pid>-<name>". */
void ct_root(char* out, size_t size, const char* name);

/* A latch: a counter under a mutex that waiters wait on until it reaches a value. */
struct ct_latch {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int count;
};
void ct_latch_init(struct ct_latch* latch);
void ct_latch_destroy(struct ct_latch* latch);
void ct_latch_add(struct ct_latch* latch, int n);
/* 1 once count >= target, 0 after timeout_ms. */
int ct_latch_wait(struct ct_latch* latch, int target, int timeout_ms);

/* Session events seen by the global watcher of a handle made by ct_connect. */
struct ct_session {
  struct ct_latch events;   /* count of session events */
  int last_state;           /* state of the last session event */
  int connected;            /* count of ZOO_CONNECTED_STATE events */
  int expired;              /* count of ZOO_EXPIRED_SESSION_STATE events */
  int non_session_events;   /* node events that reached the global watcher */
  int bad_path;             /* session events whose path was NULL or not "" */
  pthread_t watcher_thread; /* the thread the last event ran on */
};

/* Opens a handle whose global watcher records into `session` (which must outlive the handle), optionally
 * resuming `clientid`, and waits until it is connected; NULL (with a recorded failure) if it is not. */
zhandle_t* ct_connect(struct ct_session* session, const clientid_t* clientid, int timeout_ms);
/* The same with another connect string. */
zhandle_t* ct_connect_to(const char* hosts, struct ct_session* session, const clientid_t* clientid, int timeout_ms);
/* Opens a handle whose global watcher records into `session`, with zookeeper_init's `flags` (ZOO_READONLY), and
 * returns at once, connected or not; NULL (with a recorded failure) if zookeeper_init fails. */
zhandle_t* ct_init(const char* hosts, struct ct_session* session, int timeout_ms, int flags);
/* Waits until `session` has seen a session event with `state`; 1 if it has. */
int ct_wait_state(struct ct_session* session, int state, int timeout_ms);

/* Creates `path` (persistent, open ACL) with `data`; records a failure unless the create succeeds. */
void ct_create(zhandle_t* zh, const char* path, const char* data);
/* Deletes `path` and everything below it (best effort, for clean-up). */
void ct_delete_tree(zhandle_t* zh, const char* path);

/* Runs checks(zh, session) on a handle whose session the server has expired: in a child process that opens the
 * session with the server's shortest timeout and is stopped (SIGSTOP) until its ephemeral node is gone, then
 * continued and waits for ZOO_EXPIRED_SESSION_STATE. (A second handle closing the session races with the first
 * one's reconnect, which takes the session back.) The child prints its failures; 1 if it passed. */
int ct_in_expired_session(void (*checks)(zhandle_t* zh, struct ct_session* session));

#endif
