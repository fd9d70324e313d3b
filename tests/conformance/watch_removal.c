/* Watchers as the C client keeps them: a watcher is a function and its context; removing one watcher leaves the
 * others' watches on the path working (the server's watch stays); removing a watcher that has no watch there is
 * ZNOWATCHER, returned by the call itself; removals without a watcher match even where nothing is watched; a
 * removed watcher is never called; the number, order and context of the calls one event makes; nothing is called
 * during zookeeper_close. Each expectation was measured on Debian's library first (docs/libzookeeper.md#watches). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "capi_test.h"

/* Every watcher call of a case, in order: "<watcher>/<context> <type>" for node events. */
enum { MAX_CALLS = 32 };
static struct {
  struct ct_latch latch;
  char calls[MAX_CALLS][64];
} seen;
static char contexts[4][4] = {"c0", "c1", "c2", "c3"};
static struct ct_latch marker;

static void record(const char* name, int type, void* context) {
  pthread_mutex_lock(&seen.latch.mutex);
  if (seen.latch.count < MAX_CALLS) {
    snprintf(seen.calls[seen.latch.count], sizeof seen.calls[0], "%s/%s %d", name,
             context != NULL ? (const char*)context : "NULL", type);
  }
  ++seen.latch.count;
  pthread_cond_broadcast(&seen.latch.cond);
  pthread_mutex_unlock(&seen.latch.mutex);
}
static void global(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)zh, (void)state, (void)path;
  if (type != ZOO_SESSION_EVENT) record("G", type, context);
}
static void w1(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)zh, (void)state, (void)path;
  record("w1", type, context);
}
static void w2(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)zh, (void)state, (void)path;
  record("w2", type, context);
}
static void w3(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)zh, (void)state, (void)path;
  record("w3", type, context);
}
static void on_marker(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)zh, (void)type, (void)state, (void)path, (void)context;
  ct_latch_add(&marker, 1);
}

static zhandle_t* open_handle(const char* name, char* root, size_t size) {
  memset(&seen, 0, sizeof seen);
  ct_latch_init(&seen.latch);
  ct_latch_init(&marker);
  zhandle_t* zh = zookeeper_init(ct_hosts(), global, CT_SESSION_TIMEOUT_MS, NULL, contexts[0], 0);
  for (int i = 0; zh != NULL && zoo_state(zh) != ZOO_CONNECTED_STATE && i < CT_WAIT_MS / 10; ++i) {
    struct timespec pause = {0, 10000000L};
    nanosleep(&pause, NULL);
  }
  if (zh == NULL || zoo_state(zh) != ZOO_CONNECTED_STATE) {
    ct_fail(__FILE__, __LINE__, "not connected");
    return NULL;
  }
  ct_root(root, size, name);
  ct_create(zh, root, "x");
  return zh;
}

/* Waits until every event the handle's earlier changes caused has been delivered (they come before the marker's),
 * then checks the calls made since the last check against `expected` (NULL-terminated). */
static void expect_calls(zhandle_t* zh, const char* root, const char* const* expected) {
  char node[160];
  snprintf(node, sizeof node, "%s-marker", root);
  struct Stat stat;
  const int before = marker.count;
  CT_CHECK_RC(zoo_wexists(zh, node, on_marker, NULL, &stat), ZNONODE);
  ct_create(zh, node, NULL);
  CT_CHECK(ct_latch_wait(&marker, before + 1, CT_WAIT_MS));
  CT_CHECK_RC(zoo_delete(zh, node, -1), ZOK);
  int count = 0;
  while (expected[count] != NULL) ++count;
  pthread_mutex_lock(&seen.latch.mutex);
  CT_CHECK_INT(seen.latch.count, count);
  for (int i = 0; i < count && i < seen.latch.count && i < MAX_CALLS; ++i) CT_CHECK_STR(seen.calls[i], expected[i]);
  seen.latch.count = 0;
  pthread_mutex_unlock(&seen.latch.mutex);
}

static void close_handle(zhandle_t* zh, const char* root) {
  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&seen.latch);
  ct_latch_destroy(&marker);
}

/* Two watchers of one path's data: removing one (checkWatches) leaves the other's watch; a watcher with another
 * context, or one never registered, is ZNOWATCHER and removes nothing, also asynchronously (no completion). */
static int completions;
static void count_completion(int rc, const void* data) {
  (void)rc, (void)data;
  ++completions;
}
static void remove_one_of_two(void) {
  char root[128];
  zhandle_t* zh = open_handle("removeone", root, sizeof root);
  if (zh == NULL) return;
  struct Stat stat;
  CT_CHECK_RC(zoo_wexists(zh, root, w1, contexts[1], &stat), ZOK);
  CT_CHECK_RC(zoo_wexists(zh, root, w2, contexts[2], &stat), ZOK);
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_DATA, w2, contexts[2], 0), ZOK);
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_DATA, w3, contexts[3], 0), ZNOWATCHER);
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_DATA, w1, contexts[2], 0), ZNOWATCHER);
  CT_CHECK_RC(
      zoo_aremove_watches(zh, root, ZWATCHTYPE_DATA, w3, contexts[3], 0, (void_completion_t*)count_completion, NULL),
      ZNOWATCHER);
  CT_CHECK_RC(zoo_set(zh, root, "y", 1, -1), ZOK);
  expect_calls(zh, root, (const char* const[]){"w1/c1 3", NULL});
  CT_CHECK_INT(completions, 0);
  /* The same for child watches removed locally. */
  struct String_vector children = {0, NULL};
  CT_CHECK_RC(zoo_wget_children(zh, root, w1, contexts[1], &children), ZOK);
  CT_CHECK_RC(zoo_wget_children(zh, root, w2, contexts[2], &children), ZOK);
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_CHILD, w3, contexts[3], 1), ZNOWATCHER);
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_CHILD, w2, contexts[2], 1), ZOK);
  char child[160];
  snprintf(child, sizeof child, "%s/c", root);
  ct_create(zh, child, NULL);
  expect_calls(zh, root, (const char* const[]){"w1/c1 4", NULL});
  close_handle(zh, root);
}

/* Without a watcher, a removal matches whatever is there: locally ZOK even where nothing is watched; sent, the
 * server answers. With one, ZNOWATCHER where it has no watch, local or not. */
static void removals_where_nothing_is_watched(void) {
  char root[128];
  zhandle_t* zh = open_handle("nothing", root, sizeof root);
  if (zh == NULL) return;
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_DATA, w1, contexts[1], 1), ZNOWATCHER);
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_DATA, w1, contexts[1], 0), ZNOWATCHER);
  CT_CHECK_RC(zoo_remove_all_watches(zh, root, ZWATCHTYPE_DATA, 1), ZOK);
  CT_CHECK_RC(zoo_remove_all_watches(zh, root, ZWATCHTYPE_ANY, 1), ZOK);
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_DATA, NULL, NULL, 1), ZOK);
  CT_CHECK_RC(zoo_remove_all_watches(zh, root, ZWATCHTYPE_DATA, 0), ZNOWATCHER);
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_DATA, NULL, NULL, 0), ZNOWATCHER);
  /* zoo_remove_watches without a watcher, sent: checkWatches, then every watcher of the path goes. */
  struct Stat stat;
  CT_CHECK_RC(zoo_wexists(zh, root, w1, contexts[1], &stat), ZOK);
  CT_CHECK_RC(zoo_wexists(zh, root, w2, contexts[2], &stat), ZOK);
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_DATA, NULL, NULL, 0), ZOK);
  CT_CHECK_RC(zoo_set(zh, root, "y", 1, -1), ZOK);
  expect_calls(zh, root, (const char* const[]){NULL});
  CT_CHECK_RC(zoo_wexists(zh, root, w1, contexts[1], &stat), ZOK);
  CT_CHECK_RC(zoo_remove_watches(zh, root, ZWATCHTYPE_DATA, NULL, NULL, 1), ZOK);
  CT_CHECK_RC(zoo_set(zh, root, "x", 1, -1), ZOK);
  expect_calls(zh, root, (const char* const[]){NULL});
  /* zoo_remove_all_watches with the handle's watcher and another on the path: nobody is called. */
  char buffer[8];
  int len = sizeof buffer;
  CT_CHECK_RC(zoo_get(zh, root, 1, buffer, &len, &stat), ZOK);
  CT_CHECK_RC(zoo_wexists(zh, root, w1, contexts[1], &stat), ZOK);
  CT_CHECK_RC(zoo_remove_all_watches(zh, root, ZWATCHTYPE_ANY, 0), ZOK);
  CT_CHECK_RC(zoo_set(zh, root, "z", 1, -1), ZOK);
  expect_calls(zh, root, (const char* const[]){NULL});
  close_handle(zh, root);
}

/* One event, several watchers: each (function, context) once; the child table's watchers first, then the exist
 * table's, then the data table's, each in the order of their first registration; watch=1 registers the handle's
 * watcher with the context the handle has at that call. */
static void calls_of_one_event(void) {
  char root[128];
  zhandle_t* zh = open_handle("order", root, sizeof root);
  if (zh == NULL) return;
  char node[160];
  snprintf(node, sizeof node, "%s/o", root);
  ct_create(zh, node, "x");
  char buffer[8];
  int len = sizeof buffer;
  struct Stat stat;
  struct String_vector children = {0, NULL};
  CT_CHECK_RC(zoo_wexists(zh, node, w1, contexts[1], &stat), ZOK);
  CT_CHECK_RC(zoo_get(zh, node, 1, buffer, &len, &stat), ZOK);
  CT_CHECK_RC(zoo_wget_children(zh, node, w3, contexts[3], &children), ZOK);
  CT_CHECK_RC(zoo_wget(zh, node, w2, contexts[2], buffer, &len, &stat), ZOK);
  CT_CHECK_RC(zoo_wget_children(zh, node, w1, contexts[1], &children), ZOK);
  CT_CHECK_RC(zoo_get_children(zh, node, 1, &children), ZOK);
  CT_CHECK_RC(zoo_delete(zh, node, -1), ZOK);
  expect_calls(zh, root, (const char* const[]){"w3/c3 2", "w1/c1 2", "G/c0 2", "w2/c2 2", NULL});

  ct_create(zh, node, "x");
  CT_CHECK_RC(zoo_exists(zh, node, 1, &stat), ZOK);
  CT_CHECK_RC(zoo_wexists(zh, node, w2, contexts[2], &stat), ZOK);
  zoo_set_context(zh, contexts[3]);
  CT_CHECK_RC(zoo_wget(zh, node, w1, contexts[1], buffer, &len, &stat), ZOK);
  CT_CHECK_RC(zoo_exists(zh, node, 1, &stat), ZOK);
  CT_CHECK_RC(zoo_wexists(zh, node, global, contexts[0], &stat), ZOK);
  CT_CHECK_RC(zoo_set(zh, node, "y", 1, -1), ZOK);
  expect_calls(zh, root, (const char* const[]){"G/c0 3", "w2/c2 3", "w1/c1 3", "G/c3 3", NULL});

  char missing[160];
  snprintf(missing, sizeof missing, "%s/r", root);
  CT_CHECK_RC(zoo_wexists(zh, missing, w2, contexts[2], &stat), ZNONODE);
  CT_CHECK_RC(zoo_wexists(zh, missing, w1, contexts[1], &stat), ZNONODE);
  CT_CHECK_RC(zoo_exists(zh, missing, 1, &stat), ZNONODE);
  ct_create(zh, missing, NULL);
  expect_calls(zh, root, (const char* const[]){"w2/c2 1", "w1/c1 1", "G/c3 1", NULL});
  zoo_set_context(zh, contexts[0]);
  close_handle(zh, root);
}

/* zookeeper_close of a handle watching its own ephemeral node: its deletion calls no watcher. */
static void close_while_watching_own_ephemeral(void) {
  char root[128];
  zhandle_t* zh = open_handle("closing", root, sizeof root);
  if (zh == NULL) return;
  char node[160];
  snprintf(node, sizeof node, "%s/e", root);
  CT_CHECK_RC(zoo_create(zh, node, "e", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0), ZOK);
  struct Stat stat;
  CT_CHECK_RC(zoo_exists(zh, node, 1, &stat), ZOK);
  CT_CHECK_RC(zoo_wexists(zh, node, w1, contexts[1], &stat), ZOK);
  struct String_vector children = {0, NULL};
  CT_CHECK_RC(zoo_wget_children(zh, root, w2, contexts[2], &children), ZOK);
  deallocate_String_vector(&children);
  expect_calls(zh, root, (const char* const[]){NULL});
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  CT_CHECK_INT(seen.latch.count, 0);
  struct ct_session session;
  zhandle_t* cleaner = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (cleaner != NULL) {
    ct_delete_tree(cleaner, root);
    zookeeper_close(cleaner);
  }
  ct_latch_destroy(&session.events);
  ct_latch_destroy(&seen.latch);
  ct_latch_destroy(&marker);
}

/* An asynchronous local removal: Debian's library takes the completion's data for its own synchronous waiter (it
 * writes into it and never calls the completion); the contract is a completion with ZOK. A completion that does not
 * come within 2 s counts as a crash (abort), so that the Debian run reports the defect at once. */
static struct ct_latch local_removal;
static void on_local_removal(int rc, const void* data) {
  (void)data;
  ct_latch_add(&local_removal, rc == ZOK ? 1 : 1000);
}
static int async_local_removal(void* arg) {
  (void)arg;
  char root[128];
  zhandle_t* zh = open_handle("asynclocal", root, sizeof root);
  if (zh == NULL) return ZSYSTEMERROR;
  struct Stat stat;
  static char scratch[1024]; /* what Debian's library writes into */
  ct_latch_init(&local_removal);
  int rc = zoo_wexists(zh, root, w1, contexts[1], &stat);
  if (rc == ZOK) {
    rc = zoo_aremove_watches(zh, root, ZWATCHTYPE_DATA, w1, contexts[1], 1, (void_completion_t*)on_local_removal,
                             scratch);
  }
  if (rc == ZOK && !ct_latch_wait(&local_removal, 1, 2000)) abort();
  if (rc == ZOK && local_removal.count != 1) rc = ZSYSTEMERROR;
  ct_delete_tree(zh, root);
  zookeeper_close(zh);
  return rc;
}
static void asynchronous_local_removal(void) { CT_CHECK_ISOLATED(async_local_removal, NULL, ZOK); }

int main(void) {
  const struct ct_case cases[] = {
      {"remove_one_of_two", remove_one_of_two},
      {"removals_where_nothing_is_watched", removals_where_nothing_is_watched},
      {"calls_of_one_event", calls_of_one_event},
      {"close_while_watching_own_ephemeral", close_while_watching_own_ephemeral},
      {"asynchronous_local_removal", asynchronous_local_removal},
  };
  return ct_main(cases, (int)(sizeof cases / sizeof cases[0]));
}
