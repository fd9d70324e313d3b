/* Sessions: resuming one by zoo_client_id (id and password) through zookeeper_init, the negotiated timeout, the
 * handle's context, a made-up session id, and what a handle answers once its session has expired. */
#include <stdio.h>
#include <time.h>

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capi_test.h"

/* Polls zoo_state (the handle has no global watcher) until it reports an expired session; 1 if it does. */
static int wait_expired(zhandle_t* zh) {
  for (int i = 0; i < CT_WAIT_MS / 10; ++i) {
    if (zoo_state(zh) == ZOO_EXPIRED_SESSION_STATE) return 1;
    nanosleep(&(struct timespec){.tv_nsec = 10000000L}, NULL);
  }
  return 0;
}

/* A process that opened a session and died without closing it leaves the id and password behind; a handle given
 * them through zookeeper_init joins the same session, with its ephemeral nodes. Once that handle closes, the
 * session and its nodes are gone. */
struct saved_session {
  clientid_t id;
  int ok;
};

static void resume_by_client_id(void) {
  char node[128];
  ct_root(node, sizeof node, "ephemeral");
  int channel[2];
  if (pipe(channel) != 0) {
    ct_fail(__FILE__, __LINE__, "pipe: %s", strerror(errno));
    return;
  }
  fflush(NULL);
  pid_t child = fork();
  if (child == 0) {
    /* The first owner: opens the session, creates an ephemeral node, hands over the id and exits unclosed. */
    struct saved_session saved = {.ok = 0};
    struct ct_session session;
    zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
    if (zh != NULL && zoo_create(zh, node, "e", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0) == ZOK) {
      saved.id = *zoo_client_id(zh);
      saved.ok = 1;
    }
    ssize_t written = write(channel[1], &saved, sizeof saved);
    _exit(written == (ssize_t)sizeof saved ? 0 : 1);
  }
  close(channel[1]);
  struct saved_session saved = {.ok = 0};
  ssize_t got = read(channel[0], &saved, sizeof saved);
  close(channel[0]);
  int status = 0;
  waitpid(child, &status, 0);
  CT_CHECK(got == (ssize_t)sizeof saved && saved.ok);
  if (!saved.ok) return;
  CT_CHECK(saved.id.client_id != 0);

  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, &saved.id, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  CT_CHECK_INT(zoo_client_id(zh)->client_id, saved.id.client_id);
  CT_CHECK(memcmp(zoo_client_id(zh)->passwd, saved.id.passwd, sizeof saved.id.passwd) == 0);
  CT_CHECK_INT(zoo_recv_timeout(zh), CT_SESSION_TIMEOUT_MS);
  struct Stat stat;
  CT_CHECK_RC(zoo_exists(zh, node, 0, &stat), ZOK);
  CT_CHECK_INT(stat.ephemeralOwner, saved.id.client_id);
  /* The resumed session owns the node: its delete and a new ephemeral create work. */
  CT_CHECK_RC(zoo_delete(zh, node, -1), ZOK);
  CT_CHECK_RC(zoo_create(zh, node, "e", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, NULL, 0), ZOK);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);

  zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  CT_CHECK_RC(zoo_exists(zh, node, 0, &stat), ZNONODE);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
  /* The closed session cannot be resumed: the handle reports expiry. */
  zh = zookeeper_init(ct_hosts(), NULL, CT_SESSION_TIMEOUT_MS, &saved.id, NULL, 0);
  CT_CHECK(zh != NULL);
  if (zh != NULL) {
    CT_CHECK(wait_expired(zh));
    CT_CHECK_RC(zookeeper_close(zh), ZOK);
  }
}

/* A session id the server never issued: the handle reports an expired session and stays unrecoverable. */
static void unknown_client_id(void) {
  clientid_t made_up;
  memset(&made_up, 0, sizeof made_up);
  made_up.client_id = 0x7777000000001234LL;
  memcpy(made_up.passwd, "0123456789abcdef", sizeof made_up.passwd);
  struct ct_session session;
  memset(&session, 0, sizeof session);
  ct_latch_init(&session.events);
  /* Not ct_connect: this handle never becomes connected. */
  zhandle_t* zh = zookeeper_init(ct_hosts(), NULL, CT_SESSION_TIMEOUT_MS, &made_up, NULL, 0);
  CT_CHECK(zh != NULL);
  if (zh == NULL) return;
  /* Without a global watcher the state still moves to expired. */
  CT_CHECK(wait_expired(zh));
  CT_CHECK_RC(is_unrecoverable(zh), ZINVALIDSTATE);
  struct Stat stat;
  CT_CHECK_RC(zoo_exists(zh, "/", 0, &stat), ZINVALIDSTATE);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* zoo_recv_timeout is the server's answer: a request below its minimum (400 ms here) gets the minimum. */
static void negotiated_timeout(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  CT_CHECK_INT(zoo_recv_timeout(zh), CT_SESSION_TIMEOUT_MS);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);

  zh = ct_connect(&session, NULL, 100);
  if (zh == NULL) return;
  CT_CHECK_INT(zoo_recv_timeout(zh), 400);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* A program that polls zoo_state instead of waiting for the session event reads zoo_client_id,
 * zoo_recv_timeout and zoo_get_current_server as soon as the state says connected: they describe the new session
 * by then (a handle that published the state first gave out a zero session id for a moment). Polled without a
 * pause, over several handles, so that the moment is met when it exists. */
static void connected_state_published_last(void) {
  for (int round = 0; round < 20; ++round) {
    zhandle_t* zh = zookeeper_init(ct_hosts(), NULL, CT_SESSION_TIMEOUT_MS, NULL, NULL, 0);
    if (zh == NULL) {
      ct_fail(__FILE__, __LINE__, "zookeeper_init: %s", strerror(errno));
      return;
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int connected = 0;
    for (;;) {
      if (zoo_state(zh) == ZOO_CONNECTED_STATE) {
        connected = 1;
        break;
      }
      struct timespec now;
      clock_gettime(CLOCK_MONOTONIC, &now);
      if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 > CT_WAIT_MS) break;
    }
    CT_CHECK(connected);
    if (connected) {
      CT_CHECK(zoo_client_id(zh)->client_id != 0);
      CT_CHECK_INT(zoo_recv_timeout(zh), CT_SESSION_TIMEOUT_MS);
      const char* server = zoo_get_current_server(zh);
      CT_CHECK(server != NULL && server[0] != '\0');
    }
    CT_CHECK_RC(zookeeper_close(zh), ZOK);
  }
}

/* zookeeper_init's context is the handle's context until zoo_set_context replaces it. */
static void handle_context(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  CT_CHECK(zoo_get_context(zh) == &session);
  int other = 0;
  zoo_set_context(zh, &other);
  CT_CHECK(zoo_get_context(zh) == &other);
  zoo_set_context(zh, &session);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* After expiry every call fails at once with ZINVALIDSTATE, synchronous or not, and no completion runs. */
static int completions_after_expiry;
static void count_completion(int rc, const struct Stat* stat, const void* data) {
  (void)rc;
  (void)stat;
  (void)data;
  ++completions_after_expiry;
}

static void expired_handle_calls(zhandle_t* zh, struct ct_session* session) {
  (void)session;
  struct Stat stat;
  char buffer[8];
  int len = sizeof buffer;
  struct String_vector children = {0, NULL};
  CT_CHECK_RC(zoo_exists(zh, "/", 0, &stat), ZINVALIDSTATE);
  CT_CHECK_RC(zoo_get(zh, "/", 0, buffer, &len, &stat), ZINVALIDSTATE);
  CT_CHECK_RC(zoo_get_children(zh, "/", 0, &children), ZINVALIDSTATE);
  CT_CHECK_RC(zoo_create(zh, "/capi-after-expiry", NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZINVALIDSTATE);
  CT_CHECK_RC(zoo_set(zh, "/", "x", 1, -1), ZINVALIDSTATE);
  CT_CHECK_RC(zoo_delete(zh, "/capi-after-expiry", -1), ZINVALIDSTATE);
  CT_CHECK_RC(zoo_aexists(zh, "/", 0, count_completion, NULL), ZINVALIDSTATE);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  CT_CHECK_INT(completions_after_expiry, 0);
}

static void calls_after_expiry(void) { CT_CHECK(ct_in_expired_session(expired_handle_calls)); }

struct sync_done {
  struct ct_latch latch;
  int rc;
  char value[128];
};

static void on_sync(int rc, const char* value, const void* data) {
  struct sync_done* done = (struct sync_done*)data;
  done->rc = rc;
  snprintf(done->value, sizeof done->value, "%s", value != NULL ? value : "(null)");
  ct_latch_add(&done->latch, 1);
}

/* zoo_async (sync): the completion gets ZOK and the path; a write made by another handle before it is then seen. */
static void sync_then_read(void) {
  struct ct_session writer_session;
  struct ct_session reader_session;
  zhandle_t* writer = ct_connect(&writer_session, NULL, CT_SESSION_TIMEOUT_MS);
  zhandle_t* reader = ct_connect(&reader_session, NULL, CT_SESSION_TIMEOUT_MS);
  if (writer == NULL || reader == NULL) return;
  char node[128];
  ct_root(node, sizeof node, "sync");
  ct_create(writer, node, "v1");
  struct sync_done done = {.rc = 12345};
  ct_latch_init(&done.latch);
  CT_CHECK_RC(zoo_async(reader, node, on_sync, &done), ZOK);
  CT_CHECK(ct_latch_wait(&done.latch, 1, CT_WAIT_MS));
  CT_CHECK_RC(done.rc, ZOK);
  CT_CHECK_STR(done.value, node);
  char buffer[8];
  int len = sizeof buffer;
  struct Stat stat;
  CT_CHECK_RC(zoo_get(reader, node, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, 2);
  CT_CHECK_RC(zoo_delete(writer, node, -1), ZOK);
  CT_CHECK_RC(zookeeper_close(writer), ZOK);
  CT_CHECK_RC(zookeeper_close(reader), ZOK);
  ct_latch_destroy(&done.latch);
  ct_latch_destroy(&writer_session.events);
  ct_latch_destroy(&reader_session.events);
}

int main(void) {
  static const struct ct_case cases[] = {
      {"resume_by_client_id", resume_by_client_id},
      {"unknown_client_id", unknown_client_id},
      {"negotiated_timeout", negotiated_timeout},
      {"handle_context", handle_context},
      {"calls_after_expiry", calls_after_expiry},
      {"sync_then_read", sync_then_read},
      {"connected_state_published_last", connected_state_published_last},
  };
  return ct_main(cases, (int)(sizeof cases / sizeof cases[0]));
}
