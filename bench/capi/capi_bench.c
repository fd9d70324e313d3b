/* zkwire_capi_bench: the ZooKeeper C API measured from a C program linked against Debian's libzookeeper_mt, so the
 * same binary runs on Debian's library and, through LD_LIBRARY_PATH, on zkwire's (capi_compare.py interleaves the
 * two round by round). Prints one JSON line:
 *   library                  the libzookeeper_mt file the loader mapped (resolved)
 *   sync_get_p50_us, sync_get_p99_us, sync_create_p50_us, sync_create_p99_us
 *                            one request at a time (zoo_get, zoo_create), latency per call
 *   sync_get_cpu_us, sync_create_cpu_us
 *                            the process's CPU time (user + system, getrusage) per request over the phase
 *   pipelined_get_ops_per_s, pipelined_get_cpu_us
 *                            zoo_aget with a fixed number in flight, refilled as completions arrive
 *   idle_handle_rss_kb, idle_handle_heap_kb
 *                            resident memory and malloc'd bytes per connected idle handle (RSS from
 *                            /proc/self/statm, heap from mallinfo2, before and after opening them)
 *
 *   zkwire_capi_bench -s HOSTS [-n SYNC_OPS] [-p PIPELINED_OPS] [-w WINDOW] [-i IDLE_HANDLES] [-d DATA_BYTES] */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

struct options {
  const char* hosts;
  int sync_ops;
  int pipelined_ops;
  int window;
  int idle_handles;
  int data_bytes;
};

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double cpu_us(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
         (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

static int compare_double(const void* a, const void* b) {
  double x = *(const double*)a;
  double y = *(const double*)b;
  return (x > y) - (x < y);
}

static double percentile(double* samples, int count, double p) {
  qsort(samples, (size_t)count, sizeof *samples, compare_double);
  int index = (int)(p * (count - 1) + 0.5);
  return samples[index];
}

/* --- connecting ------------------------------------------------------------------------------------------------ */

struct connection {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int connected;
};

static void on_session(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)zh;
  (void)path;
  struct connection* connection = context;
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) {
    pthread_mutex_lock(&connection->mutex);
    ++connection->connected;
    pthread_cond_broadcast(&connection->cond);
    pthread_mutex_unlock(&connection->mutex);
  }
}

/* Waits until `count` handles sharing `connection` are connected, at most 30 s; 1 if they are. */
static int wait_connected(struct connection* connection, int count) {
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 30;
  pthread_mutex_lock(&connection->mutex);
  int rc = 0;
  while (connection->connected < count && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&connection->cond, &connection->mutex, &deadline);
  int ok = connection->connected >= count;
  pthread_mutex_unlock(&connection->mutex);
  return ok;
}

/* --- the loaded library --------------------------------------------------------------------------------------- */

static int find_library(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  if (info->dlpi_name != NULL && strstr(info->dlpi_name, "libzookeeper_mt.so") != NULL) {
    if (realpath(info->dlpi_name, data) == NULL) snprintf(data, PATH_MAX, "%s", info->dlpi_name);
  }
  return 0;
}

/* --- phases ---------------------------------------------------------------------------------------------------- */

struct sync_result {
  double p50;
  double p99;
  double cpu_per_op;
};

static int sync_get(zhandle_t* zh, const char* node, int ops, struct sync_result* result) {
  double* samples = calloc((size_t)ops, sizeof *samples);
  char buffer[4096];
  struct Stat stat;
  int errors = 0;
  double cpu_start = cpu_us();
  for (int i = 0; i < ops; ++i) {
    int len = sizeof buffer;
    double start = now_us();
    errors += zoo_get(zh, node, 0, buffer, &len, &stat) != ZOK;
    samples[i] = now_us() - start;
  }
  result->cpu_per_op = (cpu_us() - cpu_start) / ops;
  result->p99 = percentile(samples, ops, 0.99);
  result->p50 = percentile(samples, ops, 0.50);
  free(samples);
  return errors;
}

static int sync_create(zhandle_t* zh, const char* parent, const char* data, int data_len, int ops,
                       struct sync_result* result) {
  double* samples = calloc((size_t)ops, sizeof *samples);
  char path[256];
  int errors = 0;
  double cpu_start = cpu_us();
  for (int i = 0; i < ops; ++i) {
    snprintf(path, sizeof path, "%s/n%d", parent, i);
    double start = now_us();
    errors += zoo_create(zh, path, data, data_len, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0) != ZOK;
    samples[i] = now_us() - start;
  }
  result->cpu_per_op = (cpu_us() - cpu_start) / ops;
  result->p99 = percentile(samples, ops, 0.99);
  result->p50 = percentile(samples, ops, 0.50);
  free(samples);
  for (int i = 0; i < ops; ++i) {
    snprintf(path, sizeof path, "%s/n%d", parent, i);
    zoo_delete(zh, path, -1);
  }
  return errors;
}

struct pipeline {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int in_flight;
  int done;
  int errors;
};

static void on_get(int rc, const char* value, int value_len, const struct Stat* stat, const void* data) {
  (void)value;
  (void)value_len;
  (void)stat;
  struct pipeline* pipeline = (struct pipeline*)data;
  pthread_mutex_lock(&pipeline->mutex);
  --pipeline->in_flight;
  ++pipeline->done;
  pipeline->errors += rc != ZOK;
  pthread_cond_signal(&pipeline->cond);
  pthread_mutex_unlock(&pipeline->mutex);
}

/* Keeps `window` zoo_aget calls in flight until `ops` have completed; ops/s, CPU per op in *cpu_per_op. */
static double pipelined_get(zhandle_t* zh, const char* node, int ops, int window, double* cpu_per_op, int* errors) {
  struct pipeline pipeline = {.in_flight = 0, .done = 0, .errors = 0};
  pthread_mutex_init(&pipeline.mutex, NULL);
  pthread_cond_init(&pipeline.cond, NULL);
  double cpu_start = cpu_us();
  double start = now_us();
  int issued = 0;
  pthread_mutex_lock(&pipeline.mutex);
  while (pipeline.done < ops) {
    while (pipeline.in_flight < window && issued < ops) {
      ++pipeline.in_flight;
      ++issued;
      pthread_mutex_unlock(&pipeline.mutex);
      int rc = zoo_aget(zh, node, 0, on_get, &pipeline);
      pthread_mutex_lock(&pipeline.mutex);
      if (rc != ZOK) {
        --pipeline.in_flight;
        ++pipeline.done;
        ++pipeline.errors;
      }
    }
    if (pipeline.done < ops) pthread_cond_wait(&pipeline.cond, &pipeline.mutex);
  }
  pthread_mutex_unlock(&pipeline.mutex);
  double elapsed = now_us() - start;
  *cpu_per_op = (cpu_us() - cpu_start) / ops;
  *errors = pipeline.errors;
  pthread_cond_destroy(&pipeline.cond);
  pthread_mutex_destroy(&pipeline.mutex);
  return ops / (elapsed / 1e6);
}

static long rss_kb(void) {
  FILE* statm = fopen("/proc/self/statm", "r");
  long pages = 0;
  long resident = 0;
  if (statm != NULL) {
    if (fscanf(statm, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(statm);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double heap_kb(void) {
  struct mallinfo2 info = mallinfo2();
  return (double)(info.uordblks + info.hblkhd) / 1024.0;
}

/* Opens `count` handles, waits until all are connected and have been idle for a second, and reports the growth
 * of RSS and heap per handle. */
static int idle_handles(const char* hosts, int count, double* rss_per_handle, double* heap_per_handle) {
  zhandle_t** handles = calloc((size_t)count, sizeof *handles);
  struct connection connection = {.connected = 0};
  pthread_mutex_init(&connection.mutex, NULL);
  pthread_cond_init(&connection.cond, NULL);
  long rss_before = rss_kb();
  double heap_before = heap_kb();
  for (int i = 0; i < count; ++i) handles[i] = zookeeper_init(hosts, on_session, 10000, NULL, &connection, 0);
  int ok = wait_connected(&connection, count);
  sleep(1);
  *rss_per_handle = (double)(rss_kb() - rss_before) / count;
  *heap_per_handle = (heap_kb() - heap_before) / count;
  for (int i = 0; i < count; ++i)
    if (handles[i] != NULL) zookeeper_close(handles[i]);
  free(handles);
  pthread_cond_destroy(&connection.cond);
  pthread_mutex_destroy(&connection.mutex);
  return ok;
}

static int parse(int argc, char** argv, struct options* options) {
  *options = (struct options){NULL, 2000, 20000, 100, 50, 100};
  int opt;
  while ((opt = getopt(argc, argv, "s:n:p:w:i:d:")) != -1) {
    switch (opt) {
      case 's':
        options->hosts = optarg;
        break;
      case 'n':
        options->sync_ops = atoi(optarg);
        break;
      case 'p':
        options->pipelined_ops = atoi(optarg);
        break;
      case 'w':
        options->window = atoi(optarg);
        break;
      case 'i':
        options->idle_handles = atoi(optarg);
        break;
      case 'd':
        options->data_bytes = atoi(optarg);
        break;
      default:
        return 0;
    }
  }
  return options->hosts != NULL && options->sync_ops > 0 && options->pipelined_ops > 0 && options->window > 0 &&
         options->idle_handles > 0 && options->data_bytes >= 0 && options->data_bytes <= 4096;
}

int main(int argc, char** argv) {
  struct options options;
  if (!parse(argc, argv, &options)) {
    fprintf(stderr,
            "usage: zkwire_capi_bench -s HOSTS [-n SYNC_OPS] [-p PIPELINED_OPS] [-w WINDOW] "
            "[-i IDLE_HANDLES] [-d DATA_BYTES (<= 4096)]\n");
    return 2;
  }
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  char library[PATH_MAX] = "";
  dl_iterate_phdr(find_library, library);

  struct connection connection = {.connected = 0};
  pthread_mutex_init(&connection.mutex, NULL);
  pthread_cond_init(&connection.cond, NULL);
  zhandle_t* zh = zookeeper_init(options.hosts, on_session, 10000, NULL, &connection, 0);
  if (zh == NULL || !wait_connected(&connection, 1)) {
    fprintf(stderr, "zkwire_capi_bench: cannot connect to %s\n", options.hosts);
    return 1;
  }
  char root[64];
  char node[96];
  snprintf(root, sizeof root, "/zkwire-capi-bench-%d", (int)getpid());
  snprintf(node, sizeof node, "%s/data", root);
  char* data = malloc((size_t)options.data_bytes + 1);
  memset(data, 'x', (size_t)options.data_bytes);
  int errors = zoo_create(zh, root, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0) != ZOK;
  errors += zoo_create(zh, node, data, options.data_bytes, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0) != ZOK;

  /* Warm-up: connections, caches and the allocator's pools reach their steady state. */
  struct sync_result warm;
  errors += sync_get(zh, node, options.sync_ops / 10 + 1, &warm);

  struct sync_result get;
  struct sync_result create;
  errors += sync_get(zh, node, options.sync_ops, &get);
  errors += sync_create(zh, root, data, options.data_bytes, options.sync_ops, &create);
  double pipelined_cpu = 0;
  int pipelined_errors = 0;
  double pipelined = pipelined_get(zh, node, options.pipelined_ops, options.window, &pipelined_cpu, &pipelined_errors);
  errors += pipelined_errors;
  double rss_per_handle = 0;
  double heap_per_handle = 0;
  errors += !idle_handles(options.hosts, options.idle_handles, &rss_per_handle, &heap_per_handle);

  zoo_delete(zh, node, -1);
  zoo_delete(zh, root, -1);
  zookeeper_close(zh);
  free(data);
  printf(
      "{\"library\": \"%s\", \"errors\": %d, \"sync_get_p50_us\": %.1f, \"sync_get_p99_us\": %.1f, "
      "\"sync_get_cpu_us\": %.2f, \"sync_create_p50_us\": %.1f, \"sync_create_p99_us\": %.1f, "
      "\"sync_create_cpu_us\": %.2f, \"pipelined_get_ops_per_s\": %.0f, \"pipelined_get_cpu_us\": %.2f, "
      "\"idle_handle_rss_kb\": %.1f, \"idle_handle_heap_kb\": %.1f}\n",
      library, errors, get.p50, get.p99, get.cpu_per_op, create.p50, create.p99, create.cpu_per_op, pipelined,
      pipelined_cpu, rss_per_handle, heap_per_handle);
  return errors == 0 ? 0 : 1;
}
