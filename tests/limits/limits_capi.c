/* limits_capi: the limits suite's C program (docs/testing.md#limits), built against Debian's zookeeper.h as any C
 * client's program is, and run by the suite on zkwire's libzookeeper_mt.so.2. Each subcommand prints what it saw,
 * one fact per line, and exits 0 when every check held, 1 otherwise (2 on a usage error).
 *
 *   limits_capi HOSTS data PATH SIZE          zoo_set of SIZE bytes, then SIZE + 1, then a read on the same session
 *   limits_capi HOSTS long-path PARENT SIZE   zoo_create of PARENT/<SIZE bytes>, then one byte longer
 *   limits_capi HOSTS multi DIR COUNT         zoo_multi of COUNT creates under DIR (created first)
 *   limits_capi HOSTS watches PATH COUNT      COUNT zoo_wget watchers on PATH, one change: each called once
 *   limits_capi HOSTS big-dir DIR COUNT       zoo_get_children of DIR (at least COUNT children), a child watch
 *   limits_capi HOSTS no-session - SECONDS     the library's log names maxClientCnxns within SECONDS, no session
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zookeeper/zookeeper.h>

static int failures = 0;

#define CHECK(cond, ...)                            \
  do {                                              \
    if (!(cond)) {                                  \
      fprintf(stderr, "check failed: %s: ", #cond); \
      fprintf(stderr, __VA_ARGS__);                 \
      fputc('\n', stderr);                          \
      ++failures;                                   \
    }                                               \
  } while (0)

static const char* rc_name(int rc) {
  switch (rc) {
    case ZOK:
      return "ZOK";
    case ZCONNECTIONLOSS:
      return "ZCONNECTIONLOSS";
    case ZMARSHALLINGERROR:
      return "ZMARSHALLINGERROR";
    case ZBADARGUMENTS:
      return "ZBADARGUMENTS";
    case ZOPERATIONTIMEOUT:
      return "ZOPERATIONTIMEOUT";
    case ZNONODE:
      return "ZNONODE";
    case ZNODEEXISTS:
      return "ZNODEEXISTS";
    case ZINVALIDSTATE:
      return "ZINVALIDSTATE";
    default:
      return "other";
  }
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void ignore(zhandle_t* zh, int type, int state, const char* path, void* ctx) {
  (void)zh, (void)type, (void)state, (void)path, (void)ctx;
}

/* A handle connected within 30 s, or NULL (reported). */
static zhandle_t* connect_to(const char* hosts) {
  zhandle_t* zh = zookeeper_init(hosts, ignore, 30000, NULL, NULL, 0);
  if (zh == NULL) {
    fprintf(stderr, "zookeeper_init failed\n");
    return NULL;
  }
  for (double until = now_s() + 30; zoo_state(zh) != ZOO_CONNECTED_STATE && now_s() < until;) sleep_ms(10);
  if (zoo_state(zh) != ZOO_CONNECTED_STATE) {
    fprintf(stderr, "no session within 30 s\n");
    zookeeper_close(zh);
    return NULL;
  }
  return zh;
}

static int data(zhandle_t* zh, const char* path, int size) {
  char* bytes = malloc((size_t)size + 1);
  memset(bytes, 'd', (size_t)size + 1);
  const int64_t session = zoo_client_id(zh)->client_id;
  int rc = zoo_set(zh, path, bytes, size, -1);
  printf("largest data: %s\n", rc_name(rc));
  CHECK(rc == ZOK, "%d", rc);
  int len = size + 1;
  rc = zoo_get(zh, path, 0, bytes, &len, NULL);
  CHECK(rc == ZOK && len == size, "rc %d, %d bytes read back", rc, len);
  rc = zoo_set(zh, path, bytes, size + 1, -1);
  printf("one byte over: %s\n", rc_name(rc));
  CHECK(rc == ZBADARGUMENTS, "%d", rc);
  struct Stat stat;
  rc = zoo_exists(zh, path, 0, &stat);
  const int same = zoo_client_id(zh)->client_id == session && zoo_state(zh) == ZOO_CONNECTED_STATE;
  printf("after: %s, %s\n", rc_name(rc), same ? "same session" : "another session or not connected");
  CHECK(rc == ZOK && same && stat.dataLength == size, "rc %d, data length %d", rc, stat.dataLength);
  free(bytes);
  return 0;
}

static int long_path(zhandle_t* zh, const char* parent, int size) {
  const size_t parent_len = strlen(parent);
  char* path = malloc(parent_len + (size_t)size + 3);
  memcpy(path, parent, parent_len);
  path[parent_len] = '/';
  memset(path + parent_len + 1, 'n', (size_t)size);
  path[parent_len + 1 + (size_t)size] = '\0';
  int rc = zoo_create(zh, path, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  printf("longest path: %s\n", rc_name(rc));
  CHECK(rc == ZOK, "%d", rc);
  strcat(path, "x");
  rc = zoo_create(zh, path, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  printf("one byte over: %s\n", rc_name(rc));
  CHECK(rc == ZBADARGUMENTS, "%d", rc);
  CHECK(zoo_exists(zh, parent, 0, NULL) == ZOK, "the next request");
  free(path);
  return 0;
}

static int multi(zhandle_t* zh, const char* dir, int count) {
  int rc = zoo_create(zh, dir, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  CHECK(rc == ZOK, "create %s: %d", dir, rc);
  zoo_op_t* ops = calloc((size_t)count, sizeof *ops);
  zoo_op_result_t* results = calloc((size_t)count, sizeof *results);
  char(*created)[600] = calloc((size_t)count, sizeof *created);
  for (int i = 0; i < count; ++i) {
    snprintf(created[i], sizeof created[i], "%s/n%d", dir, i);
    zoo_create_op_init(&ops[i], created[i], "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  }
  rc = zoo_multi(zh, count, ops, results);
  struct String_vector children = {0, NULL};
  const int listed = zoo_get_children(zh, dir, 0, &children);
  printf("multi of %d creates: %s, %d children\n", count, rc_name(rc), listed == ZOK ? children.count : -1);
  CHECK(rc == ZOK && listed == ZOK && children.count == count, "rc %d, listing %d", rc, listed);
  deallocate_String_vector(&children);
  free(ops);
  free(results);
  free(created);
  return 0;
}

static atomic_int* calls;

static void count_call(zhandle_t* zh, int type, int state, const char* path, void* ctx) {
  (void)zh, (void)state, (void)path;
  if (type == ZOO_CHANGED_EVENT) atomic_fetch_add(&calls[(intptr_t)ctx], 1);
}

static int all_equal(int count, int n) {
  for (int i = 0; i < count; ++i) {
    if (atomic_load(&calls[i]) != n) return 0;
  }
  return 1;
}

static int watches(zhandle_t* zh, const char* path, int count) {
  calls = calloc((size_t)count + 1, sizeof *calls); /* the last one for the fresh watcher below */
  char buffer[16];
  for (int i = 0; i < count; ++i) {
    int len = sizeof buffer;
    const int rc = zoo_wget(zh, path, count_call, (void*)(intptr_t)i, buffer, &len, NULL);
    CHECK(rc == ZOK, "zoo_wget %d: %d", i, rc);
  }
  CHECK(zoo_set(zh, path, "1", 1, -1) == ZOK, "set");
  for (double until = now_s() + 30; !all_equal(count, 1) && now_s() < until;) sleep_ms(10);
  /* A second change and a fresh watcher set after it: once it is called, a second call of any other would show. */
  CHECK(zoo_set(zh, path, "2", 1, -1) == ZOK, "second set");
  int len = sizeof buffer;
  CHECK(zoo_wget(zh, path, count_call, (void*)(intptr_t)count, buffer, &len, NULL) == ZOK, "fresh wget");
  CHECK(zoo_set(zh, path, "3", 1, -1) == ZOK, "third set");
  for (double until = now_s() + 30; atomic_load(&calls[count]) == 0 && now_s() < until;) sleep_ms(10);
  const int once = all_equal(count, 1);
  if (once) printf("%d watchers called once each\n", count);
  CHECK(once && atomic_load(&calls[count]) == 1, "a watcher was not called, or more than once");
  free(calls);
  return 0;
}

static atomic_int child_events;

static void on_children(zhandle_t* zh, int type, int state, const char* path, void* ctx) {
  (void)zh, (void)state, (void)path, (void)ctx;
  if (type == ZOO_CHILD_EVENT) atomic_fetch_add(&child_events, 1);
}

static int big_dir(zhandle_t* zh, const char* dir, int count) {
  struct String_vector children = {0, NULL};
  double started = now_s();
  int rc = zoo_wget_children(zh, dir, on_children, NULL, &children);
  printf("listed: %s, %s\n", rc_name(rc), rc == ZOK && children.count >= count ? "all children" : "too few");
  CHECK(rc == ZOK && children.count >= count, "rc %d, %d children (%.1f s)", rc, children.count, now_s() - started);
  deallocate_String_vector(&children);
  char child[600];
  snprintf(child, sizeof child, "%s/capi-child", dir);
  CHECK(zoo_create(zh, child, "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0) == ZOK, "create %s", child);
  for (double until = now_s() + 30; atomic_load(&child_events) == 0 && now_s() < until;) sleep_ms(10);
  printf("child watch: %d event(s)\n", atomic_load(&child_events));
  CHECK(atomic_load(&child_events) == 1, "the child watch");
  return 0;
}

/* With every connection of this client's address taken, the library must say why it has no session. */
static int no_session(const char* hosts, int seconds) {
  char* log_text = NULL;
  size_t log_size = 0;
  FILE* log = open_memstream(&log_text, &log_size);
  zoo_set_log_stream(log);
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  zhandle_t* zh = zookeeper_init(hosts, ignore, 30000, NULL, NULL, 0);
  CHECK(zh != NULL, "zookeeper_init");
  int named = 0;
  for (double until = now_s() + seconds; !named && now_s() < until;) {
    sleep_ms(20);
    fflush(log);
    named = log_text != NULL && strstr(log_text, "maxClientCnxns") != NULL;
  }
  printf("log names maxClientCnxns: %s\nstate: %s\n", named ? "yes" : "no",
         zh != NULL && zoo_state(zh) == ZOO_CONNECTED_STATE ? "connected" : "not connected");
  CHECK(named, "the log within %d s:\n%s", seconds, log_text != NULL ? log_text : "");
  if (zh != NULL) zookeeper_close(zh);
  zoo_set_log_stream(NULL);
  fclose(log);
  free(log_text);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: limits_capi HOSTS data|long-path|multi|watches|big-dir|no-session ARG NUMBER\n");
    return 2;
  }
  const char* hosts = argv[1];
  const char* command = argv[2];
  const char* arg = argv[3];
  const int number = atoi(argv[4]);
  zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);
  if (strcmp(command, "no-session") == 0) {
    no_session(hosts, number);
    return failures == 0 ? 0 : 1;
  }
  zhandle_t* zh = connect_to(hosts);
  if (zh == NULL) return 1;
  if (strcmp(command, "data") == 0) {
    data(zh, arg, number);
  } else if (strcmp(command, "long-path") == 0) {
    long_path(zh, arg, number);
  } else if (strcmp(command, "multi") == 0) {
    multi(zh, arg, number);
  } else if (strcmp(command, "watches") == 0) {
    watches(zh, arg, number);
  } else if (strcmp(command, "big-dir") == 0) {
    big_dir(zh, arg, number);
  } else {
    fprintf(stderr, "unknown command %s\n", command);
    zookeeper_close(zh);
    return 2;
  }
  zookeeper_close(zh);
  return failures == 0 ? 0 : 1;
}
