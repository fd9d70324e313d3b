/* Watches: one-shot data and child watches on the global watcher, per-call watchers with their context
 * (zoo_wget, zoo_wexists, zoo_wget_children), and the global watcher's session events. */
#include <stdio.h>
#include <stdlib.h>

#include "capi_test.h"

/* What one watcher saw: every event in order, up to a bound. */
enum { MAX_EVENTS = 16 };
struct recorded_event {
  int type;
  int state;
  char path[256];
  void* context;
  zhandle_t* zh;
  pthread_t thread;
};
struct recorder {
  struct ct_latch latch;
  struct recorded_event events[MAX_EVENTS];
};

static void record(zhandle_t* zh, int type, int state, const char* path, void* context) {
  struct recorder* recorder = context;
  pthread_mutex_lock(&recorder->latch.mutex);
  if (recorder->latch.count < MAX_EVENTS) {
    struct recorded_event* event = &recorder->events[recorder->latch.count];
    event->type = type;
    event->state = state;
    snprintf(event->path, sizeof event->path, "%s", path != NULL ? path : "(null)");
    event->context = context;
    event->zh = zh;
    event->thread = pthread_self();
  }
  ++recorder->latch.count;
  pthread_cond_broadcast(&recorder->latch.cond);
  pthread_mutex_unlock(&recorder->latch.mutex);
}

static void recorder_init(struct recorder* recorder) {
  memset(recorder, 0, sizeof *recorder);
  ct_latch_init(&recorder->latch);
}

/* The global watcher is a recorder for node events; session events go to a ct_session-like count. */
static void check_event(const struct recorded_event* event, int type, const char* path) {
  CT_CHECK_INT(event->type, type);
  CT_CHECK_INT(event->state, ZOO_CONNECTED_STATE);
  CT_CHECK_STR(event->path, path);
  CT_CHECK(!pthread_equal(event->thread, pthread_self()));
}

/* zoo_exists/zoo_get/zoo_get_children with watch=1 report to the global watcher, once. */
static void one_shot_global_watches(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  struct recorder global;
  recorder_init(&global);
  /* Replace the harness's watcher once connected: node events now land in `global`. */
  zoo_set_context(zh, &global);
  zoo_set_watcher(zh, record);

  char root[128];
  char node[160];
  char marker[160];
  ct_root(root, sizeof root, "oneshot");
  snprintf(node, sizeof node, "%s/node", root);
  snprintf(marker, sizeof marker, "%s/marker", root);
  ct_create(zh, root, "");
  ct_create(zh, node, "a");

  struct Stat stat;
  CT_CHECK_RC(zoo_exists(zh, node, 1, &stat), ZOK);
  CT_CHECK_RC(zoo_set(zh, node, "b", 1, -1), ZOK);
  CT_CHECK(ct_latch_wait(&global.latch, 1, CT_WAIT_MS));
  CT_CHECK_RC(zoo_set(zh, node, "c", 1, -1), ZOK);
  /* Events arrive in order: once the marker's creation is reported, a second change event for `node` would have
   * come before it. */
  CT_CHECK_RC(zoo_exists(zh, marker, 1, &stat), ZNONODE);
  ct_create(zh, marker, NULL);
  CT_CHECK(ct_latch_wait(&global.latch, 2, CT_WAIT_MS));
  CT_CHECK_INT(global.latch.count, 2);
  check_event(&global.events[0], ZOO_CHANGED_EVENT, node);
  check_event(&global.events[1], ZOO_CREATED_EVENT, marker);
  CT_CHECK(global.events[0].zh == zh);
  CT_CHECK(global.events[0].context == &global);

  /* A child watch: one ZOO_CHILD_EVENT for the parent, whatever the number of children added. */
  struct String_vector children = {0, NULL};
  CT_CHECK_RC(zoo_get_children(zh, root, 1, &children), ZOK);
  CT_CHECK_INT(children.count, 2);
  deallocate_String_vector(&children);
  char buffer[16];
  int len = sizeof buffer;
  CT_CHECK_RC(zoo_get(zh, node, 1, buffer, &len, &stat), ZOK);
  CT_CHECK_RC(zoo_delete(zh, node, -1), ZOK);
  CT_CHECK(ct_latch_wait(&global.latch, 4, CT_WAIT_MS));
  /* Deleting `node` fires its data watch (deleted) and the parent's child watch, in either order. */
  int deleted = 0;
  int child = 0;
  for (int i = 2; i < 4; ++i) {
    if (global.events[i].type == ZOO_DELETED_EVENT) {
      check_event(&global.events[i], ZOO_DELETED_EVENT, node);
      ++deleted;
    } else {
      check_event(&global.events[i], ZOO_CHILD_EVENT, root);
      ++child;
    }
  }
  CT_CHECK_INT(deleted, 1);
  CT_CHECK_INT(child, 1);
  /* No event for the second child change: the child watch was one-shot. */
  CT_CHECK_RC(zoo_delete(zh, marker, -1), ZOK);
  CT_CHECK_RC(zoo_exists(zh, marker, 1, &stat), ZNONODE);
  ct_create(zh, marker, NULL);
  CT_CHECK(ct_latch_wait(&global.latch, 5, CT_WAIT_MS));
  CT_CHECK_INT(global.latch.count, 5);
  check_event(&global.events[4], ZOO_CREATED_EVENT, marker);

  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&global.latch);
  ct_latch_destroy(&session.events);
}

/* zoo_wget, zoo_wexists and zoo_wget_children: the event goes to the call's watcher with the call's context, never
 * to the global watcher. */
static void per_call_watchers(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char root[128];
  char node[160];
  char absent[160];
  ct_root(root, sizeof root, "percall");
  snprintf(node, sizeof node, "%s/node", root);
  snprintf(absent, sizeof absent, "%s/absent", root);
  ct_create(zh, root, "");
  ct_create(zh, node, "data");

  struct recorder on_get;
  struct recorder on_exists;
  struct recorder on_children;
  recorder_init(&on_get);
  recorder_init(&on_exists);
  recorder_init(&on_children);
  char buffer[16];
  int len = sizeof buffer;
  struct Stat stat;
  CT_CHECK_RC(zoo_wget(zh, node, record, &on_get, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, 4);
  CT_CHECK_RC(zoo_wexists(zh, absent, record, &on_exists, &stat), ZNONODE);
  struct String_vector children = {0, NULL};
  CT_CHECK_RC(zoo_wget_children(zh, root, record, &on_children, &children), ZOK);
  CT_CHECK_INT(children.count, 1);
  deallocate_String_vector(&children);

  CT_CHECK_RC(zoo_set(zh, node, "x", 1, -1), ZOK);
  ct_create(zh, absent, NULL);
  CT_CHECK(ct_latch_wait(&on_get.latch, 1, CT_WAIT_MS));
  CT_CHECK(ct_latch_wait(&on_exists.latch, 1, CT_WAIT_MS));
  CT_CHECK(ct_latch_wait(&on_children.latch, 1, CT_WAIT_MS));
  check_event(&on_get.events[0], ZOO_CHANGED_EVENT, node);
  CT_CHECK(on_get.events[0].context == &on_get);
  CT_CHECK(on_get.events[0].zh == zh);
  check_event(&on_exists.events[0], ZOO_CREATED_EVENT, absent);
  CT_CHECK(on_exists.events[0].context == &on_exists);
  check_event(&on_children.events[0], ZOO_CHILD_EVENT, root);
  CT_CHECK(on_children.events[0].context == &on_children);
  /* Watchers and completions run on one thread that is not ours. */
  CT_CHECK(pthread_equal(on_get.events[0].thread, on_exists.events[0].thread));

  /* The same watcher and context registered twice on one node is called once per event. */
  struct recorder twice;
  recorder_init(&twice);
  len = sizeof buffer;
  CT_CHECK_RC(zoo_wget(zh, node, record, &twice, buffer, &len, &stat), ZOK);
  CT_CHECK_RC(zoo_wexists(zh, node, record, &twice, &stat), ZOK);
  CT_CHECK_RC(zoo_set(zh, node, "y", 1, -1), ZOK);
  /* Barrier: a later watch on another node fires after any duplicate would have. */
  struct recorder barrier;
  recorder_init(&barrier);
  CT_CHECK_RC(zoo_wexists(zh, node, record, &barrier, &stat), ZOK);
  CT_CHECK_RC(zoo_delete(zh, absent, -1), ZOK);
  CT_CHECK_RC(zoo_set(zh, node, "z", 1, -1), ZOK);
  CT_CHECK(ct_latch_wait(&barrier.latch, 1, CT_WAIT_MS));
  CT_CHECK_INT(twice.latch.count, 1);

  pthread_mutex_lock(&session.events.mutex);
  CT_CHECK_INT(session.non_session_events, 0);
  pthread_mutex_unlock(&session.events.mutex);

  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&on_get.latch);
  ct_latch_destroy(&on_exists.latch);
  ct_latch_destroy(&on_children.latch);
  ct_latch_destroy(&twice.latch);
  ct_latch_destroy(&barrier.latch);
  ct_latch_destroy(&session.events);
}

static void after_expiry(zhandle_t* zh, struct ct_session* session) {
  CT_CHECK_INT(zoo_state(zh), ZOO_EXPIRED_SESSION_STATE);
  CT_CHECK_RC(is_unrecoverable(zh), ZINVALIDSTATE);
  pthread_mutex_lock(&session->events.mutex);
  CT_CHECK_INT(session->connected, 1);
  CT_CHECK_INT(session->expired, 1);
  CT_CHECK_INT(session->last_state, ZOO_EXPIRED_SESSION_STATE);
  CT_CHECK_INT(session->bad_path, 0);
  pthread_mutex_unlock(&session->events.mutex);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
}

/* The global watcher hears ZOO_CONNECTED_STATE once connected (type ZOO_SESSION_EVENT, path ""), on a thread that
 * is not the caller's, and ZOO_EXPIRED_SESSION_STATE when the session expires; the handle is then unrecoverable. */
static void session_events(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  pthread_mutex_lock(&session.events.mutex);
  CT_CHECK_INT(session.connected, 1);
  CT_CHECK_INT(session.bad_path, 0);
  CT_CHECK(!pthread_equal(session.watcher_thread, pthread_self()));
  pthread_mutex_unlock(&session.events.mutex);
  CT_CHECK_INT(zoo_state(zh), ZOO_CONNECTED_STATE);
  CT_CHECK_RC(is_unrecoverable(zh), ZOK);

  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
  CT_CHECK(ct_in_expired_session(after_expiry));
}

struct read_after_write {
  struct ct_latch latch;
  struct recorder* watch;
  int events_seen_by_completion;
  int value_len;
  char value[8];
};

static void on_read(int rc, const char* value, int value_len, const struct Stat* stat, const void* data) {
  (void)rc;
  (void)stat;
  struct read_after_write* read = (struct read_after_write*)data;
  pthread_mutex_lock(&read->watch->latch.mutex);
  read->events_seen_by_completion = read->watch->latch.count;
  pthread_mutex_unlock(&read->watch->latch.mutex);
  read->value_len = value_len;
  if (value != NULL && value_len > 0 && value_len <= (int)sizeof read->value) memcpy(read->value, value, value_len);
  ct_latch_add(&read->latch, 1);
}

/* A client sees a watch event before it sees the data that fired it: the completion of a read that returns the new
 * data runs after the watcher heard of the change. */
static void event_before_new_data(void) {
  struct ct_session reader_session;
  struct ct_session writer_session;
  zhandle_t* reader = ct_connect(&reader_session, NULL, CT_SESSION_TIMEOUT_MS);
  zhandle_t* writer = ct_connect(&writer_session, NULL, CT_SESSION_TIMEOUT_MS);
  if (reader == NULL || writer == NULL) return;
  char node[128];
  ct_root(node, sizeof node, "ordering");
  ct_create(writer, node, "old");
  for (int round = 0; round < 20; ++round) {
    struct recorder watch;
    recorder_init(&watch);
    struct read_after_write read = {.watch = &watch, .events_seen_by_completion = -1};
    ct_latch_init(&read.latch);
    struct Stat stat;
    CT_CHECK_RC(zoo_wexists(reader, node, record, &watch, &stat), ZOK);
    char value[8];
    int value_len = snprintf(value, sizeof value, "new%d", round);
    CT_CHECK_RC(zoo_set(writer, node, value, value_len, -1), ZOK);
    /* One server: a read issued after the write returns has to see it. */
    CT_CHECK_RC(zoo_aget(reader, node, 0, on_read, &read), ZOK);
    CT_CHECK(ct_latch_wait(&read.latch, 1, CT_WAIT_MS));
    CT_CHECK(read.value_len == value_len && memcmp(read.value, value, value_len) == 0);
    CT_CHECK_INT(read.events_seen_by_completion, 1);
    CT_CHECK(ct_latch_wait(&watch.latch, 1, CT_WAIT_MS));
    ct_latch_destroy(&read.latch);
    ct_latch_destroy(&watch.latch);
  }
  CT_CHECK_RC(zoo_delete(writer, node, -1), ZOK);
  CT_CHECK_RC(zookeeper_close(reader), ZOK);
  CT_CHECK_RC(zookeeper_close(writer), ZOK);
  ct_latch_destroy(&reader_session.events);
  ct_latch_destroy(&writer_session.events);
}

int main(void) {
  static const struct ct_case cases[] = {
      {"one_shot_global_watches", one_shot_global_watches},
      {"per_call_watchers", per_call_watchers},
      {"event_before_new_data", event_before_new_data},
      {"session_events", session_events},
  };
  return ct_main(cases, (int)(sizeof cases / sizeof cases[0]));
}
