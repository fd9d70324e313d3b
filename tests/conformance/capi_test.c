/* The conformance suite's harness (capi_test.h). */
#define _GNU_SOURCE
#include "capi_test.h"

#include <errno.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;
static const char* current_case = "";
static pthread_mutex_t fail_mutex = PTHREAD_MUTEX_INITIALIZER;

void ct_fail(const char* file, int line, const char* format, ...) {
  va_list args;
  va_start(args, format);
  pthread_mutex_lock(&fail_mutex);
  ++failures;
  fprintf(stderr, "FAIL [%s] %s:%d: ", current_case, file, line);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  pthread_mutex_unlock(&fail_mutex);
  va_end(args);
}

const char* ct_hosts(void) {
  const char* hosts = getenv("ZKWIRE_CAPI_HOSTS");
  return hosts != NULL ? hosts : "";
}

const char* ct_library(void) {
  const char* library = getenv("ZKWIRE_CAPI_LIBRARY");
  return library != NULL ? library : "";
}

int ct_isolated(int (*call)(void*), void* arg) {
  fflush(NULL);
  pid_t child = fork();
  if (child < 0) return CT_CRASHED;
  if (child == 0) {
    alarm(10); /* a hang counts as a crash */
    _exit(-call(arg) & 0xff);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return CT_CRASHED;
  return -WEXITSTATUS(status);
}

void ct_check_isolated(const char* file, int line, const char* name, int (*call)(void*), void* arg, int expected) {
  int rc = ct_isolated(call, arg);
  if (rc == expected) return;
  if (rc == CT_CRASHED && strcmp(ct_library(), "debian") == 0) {
    printf("known defect of Debian's library: %s crashes or hangs (expected %d, %s)\n", name, expected,
           zerror(expected));
    return;
  }
  if (rc == CT_CRASHED) {
    ct_fail(file, line, "%s crashed or hung, expected %d (%s)", name, expected, zerror(expected));
  } else {
    ct_fail(file, line, "%s: rc %d (%s), expected %d (%s)", name, rc, zerror(rc), expected, zerror(expected));
  }
}

void ct_root(char* out, size_t size, const char* name) { snprintf(out, size, "/capi-%d-%s", (int)getpid(), name); }

/* --- which library was loaded ---------------------------------------------------------------------------------- */

struct found_library {
  char path[PATH_MAX];
  int count;
};

static int find_libzookeeper(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct found_library* found = data;
  if (info->dlpi_name != NULL && strstr(info->dlpi_name, "libzookeeper_mt.so") != NULL) {
    ++found->count;
    snprintf(found->path, sizeof found->path, "%s", info->dlpi_name);
  }
  return 0;
}

/* 1 if exactly one libzookeeper_mt is mapped and it is the file ZKWIRE_CAPI_EXPECT_LIB names. */
static int check_loaded_library(void) {
  const char* expected = getenv("ZKWIRE_CAPI_EXPECT_LIB");
  if (expected == NULL || *expected == '\0') {
    fprintf(stderr, "FAIL: ZKWIRE_CAPI_EXPECT_LIB is not set (run through zkwire_capi_launch)\n");
    return 0;
  }
  struct found_library found = {.count = 0};
  dl_iterate_phdr(find_libzookeeper, &found);
  if (found.count != 1) {
    fprintf(stderr, "FAIL: %d libzookeeper_mt libraries are mapped, expected 1\n", found.count);
    return 0;
  }
  char loaded[PATH_MAX];
  char wanted[PATH_MAX];
  if (realpath(found.path, loaded) == NULL || realpath(expected, wanted) == NULL) {
    fprintf(stderr, "FAIL: cannot resolve %s or %s: %s\n", found.path, expected, strerror(errno));
    return 0;
  }
  if (strcmp(loaded, wanted) != 0) {
    fprintf(stderr, "FAIL: loaded %s (%s), expected %s (%s)\n", found.path, loaded, expected, wanted);
    return 0;
  }
  printf("library: %s\n", loaded);
  return 1;
}

int ct_main(const struct ct_case* cases, int count) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!check_loaded_library()) return 1;
  if (*ct_hosts() == '\0') {
    fprintf(stderr, "FAIL: ZKWIRE_CAPI_HOSTS is not set (run through zkwire_capi_launch)\n");
    return 1;
  }
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  int failed_cases = 0;
  for (int i = 0; i < count; ++i) {
    current_case = cases[i].name;
    int before = failures;
    printf("[ RUN  ] %s\n", cases[i].name);
    cases[i].run();
    int ok = failures == before;
    failed_cases += !ok;
    printf("[ %s ] %s\n", ok ? " OK " : "FAIL", cases[i].name);
  }
  printf("%d of %d cases passed\n", count - failed_cases, count);
  return failures == 0 ? 0 : 1;
}

/* --- latches ----------------------------------------------------------------------------------------------------- */

void ct_latch_init(struct ct_latch* latch) {
  pthread_mutex_init(&latch->mutex, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&latch->cond, &attr);
  pthread_condattr_destroy(&attr);
  latch->count = 0;
}

void ct_latch_destroy(struct ct_latch* latch) {
  pthread_cond_destroy(&latch->cond);
  pthread_mutex_destroy(&latch->mutex);
}

void ct_latch_add(struct ct_latch* latch, int n) {
  pthread_mutex_lock(&latch->mutex);
  latch->count += n;
  pthread_cond_broadcast(&latch->cond);
  pthread_mutex_unlock(&latch->mutex);
}

int ct_latch_wait(struct ct_latch* latch, int target, int timeout_ms) {
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += timeout_ms / 1000;
  deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&latch->mutex);
  int rc = 0;
  while (latch->count < target && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&latch->cond, &latch->mutex, &deadline);
  int reached = latch->count >= target;
  pthread_mutex_unlock(&latch->mutex);
  return reached;
}

/* --- sessions ---------------------------------------------------------------------------------------------------- */

static void session_watcher(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)zh;
  struct ct_session* session = context;
  pthread_mutex_lock(&session->events.mutex);
  session->watcher_thread = pthread_self();
  if (type == ZOO_SESSION_EVENT) {
    session->last_state = state;
    if (state == ZOO_CONNECTED_STATE) ++session->connected;
    if (state == ZOO_EXPIRED_SESSION_STATE) ++session->expired;
    if (path == NULL || *path != '\0') ++session->bad_path;
    ++session->events.count;
    pthread_cond_broadcast(&session->events.cond);
  } else {
    ++session->non_session_events;
  }
  pthread_mutex_unlock(&session->events.mutex);
}

int ct_wait_state(struct ct_session* session, int state, int timeout_ms) {
  for (int seen = 0;; ++seen) {
    if (!ct_latch_wait(&session->events, seen + 1, timeout_ms)) return 0;
    pthread_mutex_lock(&session->events.mutex);
    int reached = (state == ZOO_CONNECTED_STATE && session->connected > 0) ||
                  (state == ZOO_EXPIRED_SESSION_STATE && session->expired > 0) || session->last_state == state;
    seen = session->events.count - 1;
    pthread_mutex_unlock(&session->events.mutex);
    if (reached) return 1;
  }
}

zhandle_t* ct_connect(struct ct_session* session, const clientid_t* clientid, int timeout_ms) {
  return ct_connect_to(ct_hosts(), session, clientid, timeout_ms);
}

static zhandle_t* init_handle(const char* hosts, struct ct_session* session, const clientid_t* clientid, int timeout_ms,
                              int flags) {
  memset(session, 0, sizeof *session);
  ct_latch_init(&session->events);
  zhandle_t* zh = zookeeper_init(hosts, session_watcher, timeout_ms, clientid, session, flags);
  if (zh == NULL) ct_fail(__FILE__, __LINE__, "zookeeper_init(%s) failed: %s", hosts, strerror(errno));
  return zh;
}

zhandle_t* ct_init(const char* hosts, struct ct_session* session, int timeout_ms, int flags) {
  return init_handle(hosts, session, NULL, timeout_ms, flags);
}

zhandle_t* ct_connect_to(const char* hosts, struct ct_session* session, const clientid_t* clientid, int timeout_ms) {
  zhandle_t* zh = init_handle(hosts, session, clientid, timeout_ms, 0);
  if (zh == NULL) return NULL;
  if (!ct_wait_state(session, ZOO_CONNECTED_STATE, CT_WAIT_MS)) {
    ct_fail(__FILE__, __LINE__, "not connected within %d ms (state %d)", CT_WAIT_MS, zoo_state(zh));
  }
  return zh;
}

void ct_create(zhandle_t* zh, const char* path, const char* data) {
  int rc = zoo_create(zh, path, data, data != NULL ? (int)strlen(data) : -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  if (rc != ZOK) ct_fail(__FILE__, __LINE__, "create %s: %d (%s)", path, rc, zerror(rc));
}

void ct_delete_tree(zhandle_t* zh, const char* path) {
  struct String_vector children = {0, NULL};
  if (zoo_get_children(zh, path, 0, &children) == ZOK) {
    for (int i = 0; i < children.count; ++i) {
      char child[1024];
      snprintf(child, sizeof child, "%s/%s", path, children.data[i]);
      ct_delete_tree(zh, child);
    }
    deallocate_String_vector(&children);
  }
  zoo_delete(zh, path, -1);
}

int ct_in_expired_session(void (*checks)(zhandle_t* zh, struct ct_session* session)) {
  int channel[2];
  if (pipe(channel) != 0) {
    ct_fail(__FILE__, __LINE__, "pipe: %s", strerror(errno));
    return 0;
  }
  fflush(NULL);
  pid_t child = fork();
  if (child < 0) {
    ct_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
    return 0;
  }
  if (child == 0) {
    /* The session's owner: the server's shortest timeout, an ephemeral node the parent watches for the expiry. */
    close(channel[0]);
    failures = 0; /* the exit status reports this child's checks only */
    struct ct_session session;
    char node[128] = "";
    zhandle_t* zh = ct_connect(&session, NULL, 100);
    ct_root(node, sizeof node, "expiry");
    if (zh == NULL || zoo_create(zh, node, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0) != ZOK) node[0] = 0;
    ssize_t written = write(channel[1], node, sizeof node);
    close(channel[1]);
    if (written != (ssize_t)sizeof node || node[0] == 0) _exit(1);
    /* Stopped here by the parent until the server has expired the session. */
    if (!ct_wait_state(&session, ZOO_EXPIRED_SESSION_STATE, 2 * CT_WAIT_MS))
      ct_fail(__FILE__, __LINE__, "no expiry reported after the session's expiry");
    checks(zh, &session);
    _exit(failures == 0 ? 0 : 1);
  }
  close(channel[1]);
  char node[128] = "";
  ssize_t got = read(channel[0], node, sizeof node);
  close(channel[0]);
  int expired = 0;
  if (got == (ssize_t)sizeof node && node[0] != 0) {
    struct ct_session observer_session;
    zhandle_t* observer = ct_connect(&observer_session, NULL, CT_SESSION_TIMEOUT_MS);
    kill(child, SIGSTOP);
    struct Stat stat;
    for (int i = 0; observer != NULL && i < CT_WAIT_MS / 20 && !expired; ++i) {
      expired = zoo_exists(observer, node, 0, &stat) == ZNONODE;
      if (!expired) nanosleep(&(struct timespec){.tv_nsec = 20000000L}, NULL);
    }
    kill(child, SIGCONT);
    if (observer != NULL) zookeeper_close(observer);
    ct_latch_destroy(&observer_session.events);
    if (!expired) ct_fail(__FILE__, __LINE__, "the server did not expire the stopped session");
  } else {
    ct_fail(__FILE__, __LINE__, "the child did not open a session");
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ct_fail(__FILE__, __LINE__, "the checks in the expired session failed (status %d)", status);
    return 0;
  }
  return expired;
}
