/* The rest of the handle's API as programs use it: completions in the order the requests were issued, the
 * replaceable global watcher, the current server, getChildren2's Stat, removing watches, getconfig and the log
 * callback of zookeeper_init2. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <zookeeper/zookeeper_log.h>

#include "capi_test.h"

/* --- completion order -------------------------------------------------------------------------------------- */

enum { ORDERED_CALLS = 300 };

struct order_log {
  struct ct_latch latch;
  int order[ORDERED_CALLS];
  int codes[ORDERED_CALLS];
};

struct ordered_call {
  struct order_log* log;
  int index;
};

static void record_order(const struct ordered_call* call, int rc) {
  pthread_mutex_lock(&call->log->latch.mutex);
  if (call->log->latch.count < ORDERED_CALLS) {
    call->log->order[call->log->latch.count] = call->index;
    call->log->codes[call->index] = rc;
  }
  ++call->log->latch.count;
  pthread_cond_broadcast(&call->log->latch.cond);
  pthread_mutex_unlock(&call->log->latch.mutex);
}
static void on_void(int rc, const void* data) { record_order(data, rc); }
static void on_stat(int rc, const struct Stat* stat, const void* data) {
  (void)stat;
  record_order(data, rc);
}
static void on_string(int rc, const char* value, const void* data) {
  (void)value;
  record_order(data, rc);
}
static void on_data(int rc, const char* value, int len, const struct Stat* stat, const void* data) {
  (void)value;
  (void)len;
  (void)stat;
  record_order(data, rc);
}
static void on_strings(int rc, const struct String_vector* strings, const void* data) {
  (void)strings;
  record_order(data, rc);
}

/* Mixed asynchronous requests on one handle complete in the order they were issued, failures included. */
static void completions_in_issue_order(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char root[128];
  ct_root(root, sizeof root, "order");
  ct_create(zh, root, "");
  static struct order_log log;
  static struct ordered_call calls[ORDERED_CALLS];
  static char paths[ORDERED_CALLS][160];
  memset(&log, 0, sizeof log);
  ct_latch_init(&log.latch);
  for (int i = 0; i < ORDERED_CALLS; ++i) {
    calls[i] = (struct ordered_call){&log, i};
    snprintf(paths[i], sizeof paths[i], "%s/n%d", root, i / 5);
    int rc = ZOK;
    switch (i % 5) {
      case 0:
        rc = zoo_acreate(zh, paths[i], "v", 1, &ZOO_OPEN_ACL_UNSAFE, 0, on_string, &calls[i]);
        break;
      case 1:
        rc = zoo_aget(zh, paths[i], 0, on_data, &calls[i]);
        break;
      case 2:
        rc = zoo_aexists(zh, "/capi-no-such-node", 0, on_stat, &calls[i]);
        break; /* ZNONODE */
      case 3:
        rc = zoo_aget_children(zh, root, 0, on_strings, &calls[i]);
        break;
      default:
        rc = zoo_adelete(zh, paths[i], 0, on_void, &calls[i]);
        break;
    }
    CT_CHECK_RC(rc, ZOK);
  }
  CT_CHECK(ct_latch_wait(&log.latch, ORDERED_CALLS, CT_WAIT_MS));
  int out_of_order = 0;
  for (int i = 0; i < ORDERED_CALLS; ++i) out_of_order += log.order[i] != i;
  CT_CHECK_INT(out_of_order, 0);
  for (int i = 0; i < ORDERED_CALLS; ++i) CT_CHECK_RC(log.codes[i], i % 5 == 2 ? ZNONODE : ZOK);
  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&log.latch);
  ct_latch_destroy(&session.events);
}

/* --- the handle ------------------------------------------------------------------------------------------------ */

static struct ct_latch replaced_events;
static void replacement_watcher(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)zh;
  (void)type;
  (void)state;
  (void)path;
  (void)context;
  ct_latch_add(&replaced_events, 1);
}

static void handle_facts(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  /* The server in use is the one in the connect string. */
  const char* current = zoo_get_current_server(zh);
  CT_CHECK(current != NULL && strstr(ct_hosts(), current) != NULL);
  struct sockaddr_storage address;
  socklen_t address_len = sizeof address;
  CT_CHECK(zookeeper_get_connected_host(zh, (struct sockaddr*)&address, &address_len) != NULL);
  if (address.ss_family == AF_INET) {
    char text[64];
    const struct sockaddr_in* in = (const struct sockaddr_in*)&address;
    snprintf(text, sizeof text, "%s:%d", inet_ntoa(in->sin_addr), ntohs(in->sin_port));
    CT_CHECK(strstr(ct_hosts(), text) != NULL);
  } else {
    ct_fail(__FILE__, __LINE__, "connected host family %d, expected AF_INET", address.ss_family);
  }

  /* zoo_set_watcher returns the watcher it replaces; the new one gets the next events. */
  ct_latch_init(&replaced_events);
  watcher_fn previous = zoo_set_watcher(zh, replacement_watcher);
  CT_CHECK(previous != NULL && previous != replacement_watcher);
  char node[128];
  ct_root(node, sizeof node, "setwatcher");
  struct Stat stat;
  CT_CHECK_RC(zoo_exists(zh, node, 1, &stat), ZNONODE);
  ct_create(zh, node, "x");
  CT_CHECK(ct_latch_wait(&replaced_events, 1, CT_WAIT_MS));
  CT_CHECK(zoo_set_watcher(zh, previous) == replacement_watcher);

  /* getChildren2: the children and the parent's Stat. */
  char child[160];
  snprintf(child, sizeof child, "%s/c", node);
  ct_create(zh, child, NULL);
  struct String_vector children = {0, NULL};
  CT_CHECK_RC(zoo_get_children2(zh, node, 0, &children, &stat), ZOK);
  CT_CHECK_INT(children.count, 1);
  if (children.count == 1) CT_CHECK_STR(children.data[0], "c");
  CT_CHECK_INT(stat.numChildren, 1);
  CT_CHECK_INT(stat.cversion, 1);
  deallocate_String_vector(&children);

  /* zoo_cycle_next_server keeps the session (zkwire's library moves at once, the C client at its next
   * reconnect): calls made after it still work on the same session. */
  const int64_t session_id = zoo_client_id(zh)->client_id;
  zoo_cycle_next_server(zh);
  CT_CHECK_RC(zoo_exists(zh, node, 0, &stat), ZOK);
  CT_CHECK(zoo_client_id(zh)->client_id == session_id);

  ct_delete_tree(zh, node);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&replaced_events);
  ct_latch_destroy(&session.events);
}

/* --- removing watches ------------------------------------------------------------------------------------------ */

struct removal_log {
  struct ct_latch latch;
  int types[8];
};

static void log_removal(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)zh;
  (void)state;
  (void)path;
  struct removal_log* log = context;
  pthread_mutex_lock(&log->latch.mutex);
  if (log->latch.count < 8) log->types[log->latch.count] = type;
  ++log->latch.count;
  pthread_cond_broadcast(&log->latch.cond);
  pthread_mutex_unlock(&log->latch.mutex);
}

/* A removed watch never fires (Debian's library does not call the watcher with ZOO_NOTWATCHING_EVENT either), also
 * one removed locally; removing a watch that is not there is ZNOWATCHER. */
static void remove_watches(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char node[128];
  ct_root(node, sizeof node, "removewatch");
  ct_create(zh, node, "x");
  struct removal_log log;
  memset(&log, 0, sizeof log);
  ct_latch_init(&log.latch);
  char buffer[8];
  int len = sizeof buffer;
  struct Stat stat;
  CT_CHECK_RC(zoo_wget(zh, node, log_removal, &log, buffer, &len, &stat), ZOK);
  CT_CHECK_RC(zoo_remove_watches(zh, node, ZWATCHTYPE_CHILD, log_removal, &log, 0), ZNOWATCHER);
  CT_CHECK_RC(zoo_remove_watches(zh, node, ZWATCHTYPE_DATA, log_removal, &log, 0), ZOK);
  CT_CHECK_RC(zoo_remove_watches(zh, node, ZWATCHTYPE_DATA, log_removal, &log, 0), ZNOWATCHER);
  /* Removed locally (no request): that watcher is not called again either. */
  struct removal_log local;
  memset(&local, 0, sizeof local);
  ct_latch_init(&local.latch);
  len = sizeof buffer;
  CT_CHECK_RC(zoo_wget(zh, node, log_removal, &local, buffer, &len, &stat), ZOK);
  CT_CHECK_RC(zoo_remove_watches(zh, node, ZWATCHTYPE_DATA, log_removal, &local, 1), ZOK);
  CT_CHECK_RC(zoo_remove_watches(zh, node, ZWATCHTYPE_DATA, log_removal, &local, 1), ZNOWATCHER);
  /* The removed watch does not fire; a later one does, after any stray event would have. */
  struct removal_log later;
  memset(&later, 0, sizeof later);
  ct_latch_init(&later.latch);
  CT_CHECK_RC(zoo_wexists(zh, node, log_removal, &later, &stat), ZOK);
  CT_CHECK_RC(zoo_set(zh, node, "y", 1, -1), ZOK);
  CT_CHECK(ct_latch_wait(&later.latch, 1, CT_WAIT_MS));
  CT_CHECK_INT(later.types[0], ZOO_CHANGED_EVENT);
  CT_CHECK_INT(log.latch.count, 0);

  /* remove_all_watches: every watcher on the path. */
  struct String_vector children = {0, NULL};
  CT_CHECK_RC(zoo_wget_children(zh, node, log_removal, &later, &children), ZOK);
  deallocate_String_vector(&children);
  CT_CHECK_RC(zoo_remove_all_watches(zh, node, ZWATCHTYPE_ANY, 0), ZOK);
  CT_CHECK_RC(zoo_remove_all_watches(zh, node, ZWATCHTYPE_ANY, 0), ZNOWATCHER);
  /* The child watch is gone: a new child fires nothing, as a later data watch shows. */
  struct removal_log last;
  memset(&last, 0, sizeof last);
  ct_latch_init(&last.latch);
  CT_CHECK_RC(zoo_wexists(zh, node, log_removal, &last, &stat), ZOK);
  char child[160];
  snprintf(child, sizeof child, "%s/c", node);
  ct_create(zh, child, NULL);
  CT_CHECK_RC(zoo_set(zh, node, "z", 1, -1), ZOK);
  CT_CHECK(ct_latch_wait(&last.latch, 1, CT_WAIT_MS));
  CT_CHECK_INT(later.latch.count, 1);
  CT_CHECK_INT(local.latch.count, 0); /* events come in order: a call for the first change would be here by now */
  CT_CHECK_RC(zoo_delete(zh, child, -1), ZOK);
  ct_latch_destroy(&last.latch);

  CT_CHECK_RC(zoo_delete(zh, node, -1), ZOK);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&log.latch);
  ct_latch_destroy(&local.latch);
  ct_latch_destroy(&later.latch);
  ct_latch_destroy(&session.events);
}

/* --- getconfig, logging --------------------------------------------------------------------------------------- */

static struct ct_latch log_lines;
static void count_log_line(const char* message) {
  if (message != NULL && *message != '\0') ct_latch_add(&log_lines, 1);
}

/* logLevel follows zoo_set_debug_level; getconfig reads /zookeeper/config; zookeeper_init2's log callback receives the
 * handle's messages (at INFO, a connection is logged) and zoo_get_log_callback returns it. */
static void config_and_logging(void) {
  ct_latch_init(&log_lines);
  /* logLevel (zookeeper_log.h) is the program's own copy of the library's variable (a copy relocation): what
   * zoo_set_debug_level sets is what the program reads. */
  zoo_set_debug_level(ZOO_LOG_LEVEL_DEBUG);
  CT_CHECK_INT(logLevel, ZOO_LOG_LEVEL_DEBUG);
  zoo_set_debug_level(ZOO_LOG_LEVEL_INFO);
  struct ct_session session;
  memset(&session, 0, sizeof session);
  ct_latch_init(&session.events);
  zhandle_t* zh = zookeeper_init2(ct_hosts(), NULL, CT_SESSION_TIMEOUT_MS, NULL, NULL, 0, count_log_line);
  CT_CHECK(zh != NULL);
  if (zh == NULL) return;
  CT_CHECK(zoo_get_log_callback(zh) == count_log_line);
  char buffer[1024];
  int len = sizeof buffer;
  struct Stat stat;
  /* The first request waits for the connection. */
  int rc = ZCONNECTIONLOSS;
  for (int i = 0; i < 100 && rc == ZCONNECTIONLOSS; ++i) {
    len = sizeof buffer;
    rc = zoo_getconfig(zh, 0, buffer, &len, &stat);
    if (rc == ZCONNECTIONLOSS) nanosleep(&(struct timespec){.tv_nsec = 50000000L}, NULL);
  }
  CT_CHECK_RC(rc, ZOK);
  CT_CHECK(len >= 0);
  CT_CHECK(ct_latch_wait(&log_lines, 1, CT_WAIT_MS));
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  ct_latch_destroy(&log_lines);
  ct_latch_destroy(&session.events);
}

int main(void) {
  static const struct ct_case cases[] = {
      {"completions_in_issue_order", completions_in_issue_order},
      {"handle_facts", handle_facts},
      {"remove_watches", remove_watches},
      {"config_and_logging", config_and_logging},
  };
  return ct_main(cases, (int)(sizeof cases / sizeof cases[0]));
}
