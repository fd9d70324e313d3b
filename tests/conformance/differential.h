/* The differential test's program (differential.c, differential_ops.c): one seeded sequence of C API calls on two
 * handles against one server, printed as a transcript in which every value that differs from run to run is
 * normalized, so that two runs of a seed on two libraries can be compared line by line (README.md, "Differential
 * test"). */
#ifndef ZKWIRE_TESTS_CONFORMANCE_DIFFERENTIAL_H
#define ZKWIRE_TESTS_CONFORMANCE_DIFFERENTIAL_H

#include <pthread.h>
#include <stdint.h>
#include <zookeeper/zookeeper.h>

/* One of the two handles: 'A' sees the whole tree, 'B' is chrooted at the run's root. What its watchers and
 * completions report (on its completion thread) is kept in `log` until the next barrier prints it. */
struct dt_handle {
  char tag;
  zhandle_t* zh;
  int64_t session;
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  char* log;
  size_t log_len;
  size_t log_cap;
  int barrier_done;
};

/* The run: its root (the chroot of B), the zxid that paths and Stats are printed relative to, the PRNG. */
struct dt_run {
  const char* root;
  int64_t base_zxid;
  uint64_t rng;
  struct dt_handle handles[2];
};

extern struct dt_run dt;

/* A uniformly drawn integer in [0, n). */
unsigned dt_pick(unsigned n);
/* Appends a formatted line to the handle's log (any thread). */
void dt_log(struct dt_handle* h, const char* format, ...) __attribute__((format(printf, 2, 3)));
/* Writes `path` as the transcript shows it: the run's root as "R" (a chrooted handle's paths are printed as given). */
const char* dt_path(char* out, size_t size, const char* path);
/* A Stat with the run-specific values normalized: zxids relative to the run's base, times left out, the ephemeral
 * owner as the handle whose session it is. */
const char* dt_stat(char* out, size_t size, const struct Stat* stat);
/* Data as the transcript shows it: NULL, or the bytes quoted with their length. */
const char* dt_data(char* out, size_t size, const char* data, int len);

/* The watchers and contexts the calls use, and their names. */
extern watcher_fn dt_watchers[3];
extern void* dt_contexts[3];
extern watcher_fn dt_global_watcher; /* each handle's own watcher ... */
extern void* dt_handle_context;      /* ... and the context zookeeper_init gave it */
const char* dt_context_name(const void* context);

/* Runs one step: a call on a handle chosen by the PRNG, its line printed; the caller prints the logs after. */
void dt_step(int index);

#endif
