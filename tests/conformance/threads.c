/* Threads: a handle runs two threads (I/O and completions), also when its servers are named by host name;
 * synchronous calls from many threads on one handle, completions that never run on the caller's thread (a caller
 * holding a lock its completions take does not deadlock), zookeeper_close from inside a completion, and every
 * completion called exactly once when a handle closes with requests outstanding. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "capi_test.h"

enum { THREADS = 16, ROUNDS = 50 };

struct worker {
  zhandle_t* zh;
  const char* root;
  int index;
  int errors;
};

static int thread_count(void) {
  int n = 0;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == NULL) return -1;
  for (struct dirent* entry; (entry = readdir(tasks)) != NULL;) n += entry->d_name[0] != '.';
  closedir(tasks);
  return n;
}

static void* nothing(void* arg) { return arg; }

/* The C client resolves host names on the caller's thread; a library that kept a thread for them (Asio's resolver
 * keeps one per io_context) would run three per handle named by host name. */
static void two_threads_per_handle_named_by_host(void) {
  const char* port = strrchr(ct_hosts(), ':');
  if (port == NULL || strncmp(ct_hosts(), "127.0.0.1:", 10) != 0) {
    ct_fail(__FILE__, __LINE__, "expected a connect string 127.0.0.1:PORT, got %s", ct_hosts());
    return;
  }
  char hosts[256];
  snprintf(hosts, sizeof hosts, "localhost%s", port);
  /* A sanitizer's runtime may start a thread of its own at the program's first pthread_create: let that happen
   * before the count. */
  pthread_t first;
  if (pthread_create(&first, NULL, nothing, NULL) == 0) pthread_join(first, NULL);
  const int before = thread_count();
  struct ct_session session;
  zhandle_t* zh = ct_connect_to(hosts, &session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  /* A thread that did the lookup may still be on its way out right after the connection. */
  for (int i = 0; i < 200 && thread_count() > before + 2; ++i) usleep(10000);
  CT_CHECK_INT(thread_count() - before, 2);
  zookeeper_close(zh);
  ct_latch_destroy(&session.events);
}

static void* sync_worker(void* arg) {
  struct worker* worker = arg;
  char path[200];
  snprintf(path, sizeof path, "%s/w%d", worker->root, worker->index);
  for (int round = 0; round < ROUNDS; ++round) {
    char value[32];
    int value_len = snprintf(value, sizeof value, "%d-%d", worker->index, round);
    if (zoo_create(worker->zh, path, value, value_len, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0) != ZOK) ++worker->errors;
    char back[32];
    int len = sizeof back;
    struct Stat stat;
    if (zoo_get(worker->zh, path, 0, back, &len, &stat) != ZOK || len != value_len ||
        memcmp(back, value, value_len) != 0)
      ++worker->errors;
    if (zoo_set(worker->zh, path, "s", 1, 0) != ZOK) ++worker->errors;
    if (zoo_exists(worker->zh, path, 0, &stat) != ZOK || stat.version != 1) ++worker->errors;
    if (zoo_delete(worker->zh, path, 1) != ZOK) ++worker->errors;
  }
  return NULL;
}

static void sync_calls_from_many_threads(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char root[128];
  ct_root(root, sizeof root, "threads");
  ct_create(zh, root, "");
  pthread_t threads[THREADS];
  struct worker workers[THREADS];
  for (int i = 0; i < THREADS; ++i) {
    workers[i] = (struct worker){zh, root, i, 0};
    CT_CHECK_INT(pthread_create(&threads[i], NULL, sync_worker, &workers[i]), 0);
  }
  for (int i = 0; i < THREADS; ++i) {
    pthread_join(threads[i], NULL);
    CT_CHECK_INT(workers[i].errors, 0);
  }
  struct String_vector children = {0, NULL};
  CT_CHECK_RC(zoo_get_children(zh, root, 0, &children), ZOK);
  CT_CHECK_INT(children.count, 0);
  deallocate_String_vector(&children);
  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* --- completion threads --------------------------------------------------------------------------------------- */

enum { ASYNC_CALLS = 200 };

struct completion_log {
  struct ct_latch latch;
  pthread_mutex_t caller_lock; /* error-checking: relocking from its holder's thread fails with EDEADLK */
  pthread_t caller;
  pthread_t first_thread;
  int same_as_caller;
  int other_threads;
  int deadlocks;
};

static void on_exists(int rc, const struct Stat* stat, const void* data) {
  (void)rc;
  (void)stat;
  struct completion_log* log = (struct completion_log*)data;
  /* A binding's completion takes the lock its caller holds while calling (an interpreter lock, say). */
  int locked = pthread_mutex_lock(&log->caller_lock);
  if (locked == EDEADLK) ++log->deadlocks;
  pthread_t self = pthread_self();
  if (pthread_equal(self, log->caller)) ++log->same_as_caller;
  if (log->latch.count == 0) log->first_thread = self;
  if (!pthread_equal(self, log->first_thread)) ++log->other_threads;
  if (locked == 0) pthread_mutex_unlock(&log->caller_lock);
  ct_latch_add(&log->latch, 1);
}

static void completions_off_the_callers_thread(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  struct completion_log log;
  memset(&log, 0, sizeof log);
  ct_latch_init(&log.latch);
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&log.caller_lock, &attr);
  pthread_mutexattr_destroy(&attr);
  log.caller = pthread_self();

  pthread_mutex_lock(&log.caller_lock);
  int issued = 0;
  for (int i = 0; i < ASYNC_CALLS; ++i) issued += zoo_aexists(zh, "/", 0, on_exists, &log) == ZOK;
  CT_CHECK_INT(issued, ASYNC_CALLS);
  /* Nothing could have completed: every completion waits for the lock we hold. */
  CT_CHECK_INT(log.latch.count, 0);
  pthread_mutex_unlock(&log.caller_lock);
  CT_CHECK(ct_latch_wait(&log.latch, ASYNC_CALLS, CT_WAIT_MS));
  CT_CHECK_INT(log.same_as_caller, 0);
  CT_CHECK_INT(log.deadlocks, 0);
  CT_CHECK_INT(log.other_threads, 0);
  /* The global watcher ran on the same completion thread. */
  pthread_mutex_lock(&session.events.mutex);
  CT_CHECK(pthread_equal(session.watcher_thread, log.first_thread));
  pthread_mutex_unlock(&session.events.mutex);

  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  pthread_mutex_destroy(&log.caller_lock);
  ct_latch_destroy(&log.latch);
  ct_latch_destroy(&session.events);
}

/* --- closing ------------------------------------------------------------------------------------------------- */

struct close_state {
  struct ct_latch latch;
  zhandle_t* zh;
  int close_rc;
  int closes;
  int calls[ASYNC_CALLS];
};

static void close_from_completion(int rc, const struct Stat* stat, const void* data) {
  (void)stat;
  struct close_state* state = (struct close_state*)data;
  state->close_rc = rc == ZOK ? zookeeper_close(state->zh) : rc;
  ++state->closes;
  ct_latch_add(&state->latch, 1);
}

static void zookeeper_close_inside_a_completion(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  struct close_state state = {.zh = zh, .close_rc = 12345};
  ct_latch_init(&state.latch);
  CT_CHECK_RC(zoo_aexists(zh, "/", 0, close_from_completion, &state), ZOK);
  CT_CHECK(ct_latch_wait(&state.latch, 1, CT_WAIT_MS));
  CT_CHECK_RC(state.close_rc, ZOK);
  CT_CHECK_INT(state.closes, 1);
  ct_latch_destroy(&state.latch);
  ct_latch_destroy(&session.events);
}

static void close_from_watcher(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)state;
  (void)path;
  struct close_state* close_state = context;
  if (type != ZOO_CREATED_EVENT) return;
  close_state->close_rc = zookeeper_close(zh);
  ++close_state->closes;
  ct_latch_add(&close_state->latch, 1);
}

/* The same from inside a watcher, the per-call watcher of a zoo_wexists. */
static void zookeeper_close_inside_a_watcher(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  struct ct_session other_session;
  zhandle_t* other = ct_connect(&other_session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL || other == NULL) return;
  struct close_state state = {.zh = zh, .close_rc = 12345};
  ct_latch_init(&state.latch);
  char node[128];
  ct_root(node, sizeof node, "closewatch");
  struct Stat stat;
  CT_CHECK_RC(zoo_wexists(zh, node, close_from_watcher, &state, &stat), ZNONODE);
  ct_create(other, node, NULL);
  CT_CHECK(ct_latch_wait(&state.latch, 1, CT_WAIT_MS));
  CT_CHECK_RC(state.close_rc, ZOK);
  CT_CHECK_INT(state.closes, 1);
  CT_CHECK_RC(zoo_delete(other, node, -1), ZOK);
  CT_CHECK_RC(zookeeper_close(other), ZOK);
  ct_latch_destroy(&state.latch);
  ct_latch_destroy(&session.events);
  ct_latch_destroy(&other_session.events);
}

struct counted_call {
  struct close_state* state;
  int index;
};

static void count_call(int rc, const struct Stat* stat, const void* data) {
  (void)rc;
  (void)stat;
  const struct counted_call* call = data;
  ++call->state->calls[call->index];
  ct_latch_add(&call->state->latch, 1);
}

/* zookeeper_close with requests in flight: no completion runs twice, none after close returns, nothing crashes.
 * (Debian's library drops most of them: 1 of 200 ran in our runs. Each running once, with the server's answer or
 * ZCLOSING, before zookeeper_close returns, is the better contract: zkwire's must keep it; the count is printed.) */
static void close_with_requests_outstanding(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  static struct close_state state;
  static struct counted_call calls[ASYNC_CALLS];
  memset(&state, 0, sizeof state);
  ct_latch_init(&state.latch);
  for (int i = 0; i < ASYNC_CALLS; ++i) {
    calls[i] = (struct counted_call){&state, i};
    CT_CHECK_RC(zoo_aexists(zh, "/", 0, count_call, &calls[i]), ZOK);
  }
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  int ran = state.latch.count;
  printf("completions run by the time zookeeper_close returned: %d of %d\n", ran, ASYNC_CALLS);
  for (int i = 0; i < ASYNC_CALLS; ++i) CT_CHECK(state.calls[i] <= 1);
  /* zkwire's library runs every one of them, once, before zookeeper_close returns (docs/libzookeeper.md#differences).
   */
  if (strcmp(ct_library(), "zkwire") == 0) CT_CHECK_INT(ran, ASYNC_CALLS);
  /* The handle is gone: give a late completion the time to show itself. */
  nanosleep(&(struct timespec){.tv_nsec = 200000000L}, NULL);
  CT_CHECK_INT(state.latch.count, ran);
  ct_latch_destroy(&state.latch);
  ct_latch_destroy(&session.events);
}

int main(void) {
  static const struct ct_case cases[] = {
      {"two_threads_per_handle_named_by_host", two_threads_per_handle_named_by_host},  // first: no other threads
      {"sync_calls_from_many_threads", sync_calls_from_many_threads},
      {"completions_off_the_callers_thread", completions_off_the_callers_thread},
      {"zookeeper_close_inside_a_completion", zookeeper_close_inside_a_completion},
      {"zookeeper_close_inside_a_watcher", zookeeper_close_inside_a_watcher},
      {"close_with_requests_outstanding", close_with_requests_outstanding},
  };
  return ct_main(cases, (int)(sizeof cases / sizeof cases[0]));
}
