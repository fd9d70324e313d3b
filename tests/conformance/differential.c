/* capi_differential SEED STEPS ROOT: the differential test's program (README.md, "Differential test"). Connects two
 * handles to ZKWIRE_CAPI_HOSTS, A to the whole tree and B chrooted at ROOT (which it creates), runs STEPS seeded
 * steps (differential_ops.c) and then closes both handles while they watch their own ephemeral nodes. After each
 * step a barrier on each handle (an asynchronous call whose completion comes after every watcher call and
 * completion of what was issued before it) makes the logs complete; they are printed A first, then B. Exit status
 * 0 once the transcript is printed (differences are the driver's to find), 1 if the server could not be used. */
#define _GNU_SOURCE
#include "differential.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct dt_run dt;

unsigned dt_pick(unsigned n) {
  /* splitmix64: the same sequence on every machine for a seed */
  uint64_t z = (dt.rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (unsigned)(z % n);
}

void dt_log(struct dt_handle* h, const char* format, ...) {
  char line[1024];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  pthread_mutex_lock(&h->mutex);
  if (h->log_len + (size_t)n + 2 > h->log_cap) {
    h->log_cap = (h->log_len + (size_t)n + 2) * 2;
    h->log = realloc(h->log, h->log_cap);
  }
  memcpy(h->log + h->log_len, line, (size_t)n);
  h->log_len += (size_t)n;
  h->log[h->log_len++] = '\n';
  h->log[h->log_len] = '\0';
  pthread_mutex_unlock(&h->mutex);
}

const char* dt_path(char* out, size_t size, const char* path) {
  const size_t root_len = strlen(dt.root);
  if (path == NULL) {
    snprintf(out, size, "(null)");
  } else if (strncmp(path, dt.root, root_len) == 0 && (path[root_len] == '/' || path[root_len] == '\0')) {
    snprintf(out, size, "R%s", path + root_len);
  } else {
    snprintf(out, size, "%s", path);
  }
  return out;
}

static const char* owner_name(int64_t owner) {
  if (owner == 0) return "0";
  for (int i = 0; i < 2; ++i) {
    if (dt.handles[i].session == owner) return dt.handles[i].tag == 'A' ? "A" : "B";
  }
  return "other";
}

const char* dt_stat(char* out, size_t size, const struct Stat* stat) {
  if (stat == NULL) {
    snprintf(out, size, "stat=NULL");
    return out;
  }
  snprintf(out, size, "stat{cz=%" PRId64 " mz=%" PRId64 " pz=%" PRId64 " v=%d cv=%d av=%d eph=%s len=%d kids=%d}",
           stat->czxid - dt.base_zxid, stat->mzxid - dt.base_zxid, stat->pzxid - dt.base_zxid, stat->version,
           stat->cversion, stat->aversion, owner_name(stat->ephemeralOwner), stat->dataLength, stat->numChildren);
  return out;
}

const char* dt_data(char* out, size_t size, const char* data, int len) {
  if (data == NULL) {
    snprintf(out, size, "NULL/%d", len);
  } else {
    const int shown = len < 0 ? 0 : (len > 32 ? 32 : len);
    snprintf(out, size, "\"%.*s\"/%d", shown, data, len);
  }
  return out;
}

/* --- watchers ------------------------------------------------------------------------------------------------- */

static char context_objects[4][4] = {"c0", "c1", "c2", "h"};
void* dt_contexts[3] = {context_objects[0], context_objects[1], context_objects[2]};

const char* dt_context_name(const void* context) {
  for (int i = 0; i < 4; ++i) {
    if (context == context_objects[i]) return context_objects[i];
  }
  return context == NULL ? "NULL" : "?";
}

static struct dt_handle* handle_of(zhandle_t* zh) {
  for (int i = 0; i < 2; ++i) {
    if (dt.handles[i].zh == zh) return &dt.handles[i];
  }
  return NULL;
}

static void record(const char* name, zhandle_t* zh, int type, int state, const char* path, void* context) {
  struct dt_handle* h = handle_of(zh);
  if (h == NULL) return; /* an event before zookeeper_init returned: the connect loop waits for the state */
  char shown[512];
  dt_log(h, "  watcher %s/%s type=%d state=%d path=%s", name, dt_context_name(context), type, state,
         dt_path(shown, sizeof shown, path));
}

static void global_watcher(zhandle_t* zh, int type, int state, const char* path, void* context) {
  record("G", zh, type, state, path, context);
}
static void watcher0(zhandle_t* zh, int type, int state, const char* path, void* context) {
  record("w0", zh, type, state, path, context);
}
static void watcher1(zhandle_t* zh, int type, int state, const char* path, void* context) {
  record("w1", zh, type, state, path, context);
}
static void watcher2(zhandle_t* zh, int type, int state, const char* path, void* context) {
  record("w2", zh, type, state, path, context);
}
watcher_fn dt_watchers[3] = {watcher0, watcher1, watcher2};
watcher_fn dt_global_watcher = global_watcher;
void* dt_handle_context = context_objects[3];

/* --- handles, barriers, logs ------------------------------------------------------------------------------------ */

static void barrier_done(int rc, const char* value, const void* data) {
  (void)rc;
  (void)value;
  struct dt_handle* h = (struct dt_handle*)data;
  pthread_mutex_lock(&h->mutex);
  h->barrier_done = 1;
  pthread_cond_broadcast(&h->cond);
  pthread_mutex_unlock(&h->mutex);
}

/* Waits until what the handle was sent so far has reported; 0 if the barrier did not come back in 10 s. */
static int barrier(struct dt_handle* h) {
  pthread_mutex_lock(&h->mutex);
  h->barrier_done = 0;
  pthread_mutex_unlock(&h->mutex);
  if (zoo_async(h->zh, "/", barrier_done, h) != ZOK) return 0;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 10;
  pthread_mutex_lock(&h->mutex);
  int ok = 1;
  while (!h->barrier_done && ok) ok = pthread_cond_timedwait(&h->cond, &h->mutex, &until) == 0;
  pthread_mutex_unlock(&h->mutex);
  return h->barrier_done;
}

static int compare_lines(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* Prints and clears the handle's log; `sorted`: its lines in byte order (what a session's end fires comes in the
 * order the server keeps that session's ephemeral nodes, by their paths' hashes, which differ from run to run). */
static void print_log(struct dt_handle* h, int sorted) {
  pthread_mutex_lock(&h->mutex);
  if (h->log_len > 0) {
    printf("%c:\n", h->tag);
    if (sorted) {
      char* lines[4096];
      size_t count = 0;
      for (char* line = strtok(h->log, "\n"); line != NULL && count < 4096; line = strtok(NULL, "\n")) {
        lines[count++] = line;
      }
      qsort(lines, count, sizeof *lines, compare_lines);
      for (size_t i = 0; i < count; ++i) printf("%s\n", lines[i]);
    } else {
      printf("%s", h->log);
    }
    h->log_len = 0;
    h->log[0] = '\0';
  }
  pthread_mutex_unlock(&h->mutex);
}

static int connect_handle(struct dt_handle* h, char tag, const char* hosts) {
  h->tag = tag;
  pthread_mutex_init(&h->mutex, NULL);
  pthread_cond_init(&h->cond, NULL);
  h->zh = zookeeper_init(hosts, global_watcher, 10000, NULL, context_objects[3], 0);
  for (int i = 0; i < 1000 && h->zh != NULL && zoo_state(h->zh) != ZOO_CONNECTED_STATE; ++i) usleep(10000);
  if (h->zh == NULL || zoo_state(h->zh) != ZOO_CONNECTED_STATE) {
    fprintf(stderr, "FAIL: handle %c did not connect to %s\n", tag, hosts);
    return 0;
  }
  h->session = zoo_client_id(h->zh)->client_id;
  if (!barrier(h)) return 0;
  /* The connection's session event may come before zookeeper_init returned the handle its watcher is looked up
   * by: not part of the transcript (the watches program checks it). */
  pthread_mutex_lock(&h->mutex);
  h->log_len = 0;
  pthread_mutex_unlock(&h->mutex);
  return 1;
}

/* Both handles' logs, once each has reported everything (the acting one first, so that what it changed has
 * reached the other's connection before the other's barrier). */
static int settle(void) {
  if (!barrier(&dt.handles[0]) || !barrier(&dt.handles[1]) || !barrier(&dt.handles[0])) {
    fprintf(stderr, "FAIL: a barrier did not come back\n");
    return 0;
  }
  print_log(&dt.handles[0], 0);
  print_log(&dt.handles[1], 0);
  return 1;
}

/* Each handle watches an ephemeral node of its own, also through the other handle, and is closed: what its
 * watchers hear during zookeeper_close, and what the other handle hears. */
static void close_watching_own_ephemeral(struct dt_handle* h, struct dt_handle* other) {
  char path[256];
  char shown[256];
  snprintf(path, sizeof path, "%s/eph-%c", h->tag == 'A' ? dt.root : "", h->tag);
  struct Stat stat;
  printf("close %c: create %s -> %d\n", h->tag, dt_path(shown, sizeof shown, path),
         zoo_create(h->zh, path, "e", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0));
  printf("close %c: exists(watch) -> %d\n", h->tag, zoo_exists(h->zh, path, 1, &stat));
  printf("close %c: wexists(w0/c0) -> %d\n", h->tag, zoo_wexists(h->zh, path, dt_watchers[0], dt_contexts[0], &stat));
  char other_path[256];
  snprintf(other_path, sizeof other_path, "%s/eph-%c", other != NULL && other->tag == 'A' ? dt.root : "", h->tag);
  if (other != NULL) {
    printf("close %c: %c wexists(w1/c1) -> %d\n", h->tag, other->tag,
           zoo_wexists(other->zh, other_path, dt_watchers[1], dt_contexts[1], &stat));
  }
  if (!barrier(h)) printf("close %c: barrier failed\n", h->tag);
  print_log(h, 0);
  printf("close %c: zookeeper_close -> %d\n", h->tag, zookeeper_close(h->zh));
  print_log(h, 0);
  h->zh = NULL;
  if (other != NULL) {
    if (!barrier(other)) printf("close %c: %c barrier failed\n", h->tag, other->tag);
    print_log(other, 1);
  }
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOFBF, 1 << 16);
  const char* hosts = getenv("ZKWIRE_CAPI_HOSTS");
  if (argc != 4 || hosts == NULL) {
    fprintf(stderr, "usage: ZKWIRE_CAPI_HOSTS=... capi_differential SEED STEPS ROOT\n");
    return 2;
  }
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  dt.rng = strtoull(argv[1], NULL, 10);
  const int steps = atoi(argv[2]);
  dt.root = argv[3];
  printf("seed %s, %d steps\n", argv[1], steps);
  if (!connect_handle(&dt.handles[0], 'A', hosts)) return 1;
  struct Stat stat;
  if (zoo_create(dt.handles[0].zh, dt.root, "root", 4, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0) != ZOK ||
      zoo_exists(dt.handles[0].zh, dt.root, 0, &stat) != ZOK) {
    fprintf(stderr, "FAIL: cannot create %s\n", dt.root);
    return 1;
  }
  dt.base_zxid = stat.czxid;
  /* A few nodes to start from, so that early calls find something. */
  static const char* const initial[] = {"/a", "/b", "/a/c"};
  for (int i = 0; i < 3; ++i) {
    char path[1024];
    snprintf(path, sizeof path, "%s%s", dt.root, initial[i]);
    if (zoo_create(dt.handles[0].zh, path, "init", 4, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0) != ZOK) {
      fprintf(stderr, "FAIL: cannot create %s\n", path);
      return 1;
    }
  }
  char chrooted[1024];
  snprintf(chrooted, sizeof chrooted, "%s%s", hosts, dt.root);
  if (!connect_handle(&dt.handles[1], 'B', chrooted)) return 1;
  for (int i = 0; i < steps; ++i) {
    dt_step(i);
    if (!settle()) return 1;
  }
  close_watching_own_ephemeral(&dt.handles[0], &dt.handles[1]);
  close_watching_own_ephemeral(&dt.handles[1], NULL);
  printf("end\n");
  return 0;
}
