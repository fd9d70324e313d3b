/* Multi: zoo_multi and zoo_amulti built with the zoo_*_op_init helpers; all ops commit or none does, and a failing
 * op's transaction reports a result per op. */
#include <stdio.h>

#include "capi_test.h"

static void committed_multi(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char root[128];
  char a[160];
  char b[160];
  char seq[160];
  ct_root(root, sizeof root, "multi");
  snprintf(a, sizeof a, "%s/a", root);
  snprintf(b, sizeof b, "%s/b", root);
  snprintf(seq, sizeof seq, "%s/seq-", root);
  ct_create(zh, root, "");
  ct_create(zh, b, "old");

  char created_a[200];
  char created_seq[200];
  struct Stat set_stat;
  zoo_op_t ops[5];
  zoo_create_op_init(&ops[0], a, "va", 2, &ZOO_OPEN_ACL_UNSAFE, 0, created_a, sizeof created_a);
  zoo_create_op_init(&ops[1], seq, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_SEQUENCE, created_seq, sizeof created_seq);
  zoo_check_op_init(&ops[2], b, 0);
  zoo_set_op_init(&ops[3], b, "new", 3, 0, &set_stat);
  zoo_delete_op_init(&ops[4], a, 0);
  zoo_op_result_t results[5];
  memset(results, 0x5a, sizeof results);
  CT_CHECK_RC(zoo_multi(zh, 5, ops, results), ZOK);
  for (int i = 0; i < 5; ++i) CT_CHECK_RC(results[i].err, ZOK);
  CT_CHECK(results[0].value == created_a);
  CT_CHECK_INT(results[0].valuelen, (int)sizeof created_a);
  CT_CHECK(results[3].stat == &set_stat);
  CT_CHECK_STR(created_a, a);
  CT_CHECK(strncmp(created_seq, seq, strlen(seq)) == 0 && strlen(created_seq) == strlen(seq) + 10);
  CT_CHECK_INT(set_stat.version, 1);
  CT_CHECK_INT(set_stat.dataLength, 3);
  struct Stat stat;
  CT_CHECK_RC(zoo_exists(zh, a, 0, &stat), ZNONODE);
  CT_CHECK_RC(zoo_exists(zh, created_seq, 0, &stat), ZOK);

  /* A set op with a NULL buffer (length -1) stores null data: a get then reports length -1, not 0; with length 0,
   * empty data. */
  zoo_set_op_init(&ops[0], b, NULL, -1, -1, NULL);
  CT_CHECK_RC(zoo_multi(zh, 1, ops, results), ZOK);
  char got[16];
  int got_len = (int)sizeof got;
  CT_CHECK_RC(zoo_get(zh, b, 0, got, &got_len, &stat), ZOK);
  CT_CHECK_INT(got_len, -1);
  zoo_set_op_init(&ops[0], b, NULL, 0, -1, NULL);
  CT_CHECK_RC(zoo_multi(zh, 1, ops, results), ZOK);
  got_len = (int)sizeof got;
  CT_CHECK_RC(zoo_get(zh, b, 0, got, &got_len, &stat), ZOK);
  CT_CHECK_INT(got_len, 0);

  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* A check with the wrong version fails the transaction: nothing is created, the multi returns the failing op's
 * code, and each result says ZOK for the ops before it, the error for it, ZRUNTIMEINCONSISTENCY after it. */
static void failing_multi(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char root[128];
  char a[160];
  char c[160];
  ct_root(root, sizeof root, "multifail");
  snprintf(a, sizeof a, "%s/a", root);
  snprintf(c, sizeof c, "%s/c", root);
  ct_create(zh, root, "");

  zoo_op_t ops[4];
  char path[200] = "untouched";
  struct Stat set_stat;
  memset(&set_stat, 0x5a, sizeof set_stat);
  zoo_create_op_init(&ops[0], a, "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, path, sizeof path);
  zoo_set_op_init(&ops[1], root, "s", 1, -1, &set_stat);
  zoo_check_op_init(&ops[2], root, 7);
  zoo_create_op_init(&ops[3], c, "y", 1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  zoo_op_result_t results[4];
  CT_CHECK_RC(zoo_multi(zh, 4, ops, results), ZBADVERSION);
  CT_CHECK_RC(results[0].err, ZOK);
  CT_CHECK_RC(results[1].err, ZOK);
  CT_CHECK_RC(results[2].err, ZBADVERSION);
  CT_CHECK_RC(results[3].err, ZRUNTIMEINCONSISTENCY);
  /* The ops before the failing one were rolled back: their outputs are left alone, value and stat NULL. */
  CT_CHECK_STR(path, "untouched");
  CT_CHECK(results[0].value == NULL);
  CT_CHECK_INT(results[0].valuelen, (int)sizeof path);
  CT_CHECK(results[1].stat == NULL);
  CT_CHECK_INT(set_stat.version, 0x5a5a5a5a);
  struct Stat stat;
  CT_CHECK_RC(zoo_exists(zh, a, 0, &stat), ZNONODE);
  CT_CHECK_RC(zoo_exists(zh, c, 0, &stat), ZNONODE);

  /* A create under a missing parent: ZNONODE for that op. */
  char orphan[200];
  snprintf(orphan, sizeof orphan, "%s/missing/child", root);
  zoo_create_op_init(&ops[0], a, "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  zoo_create_op_init(&ops[1], orphan, "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  CT_CHECK_RC(zoo_multi(zh, 2, ops, results), ZNONODE);
  CT_CHECK_RC(results[0].err, ZOK);
  CT_CHECK_RC(results[1].err, ZNONODE);
  CT_CHECK_RC(zoo_exists(zh, a, 0, &stat), ZNONODE);

  /* An empty multi succeeds. */
  CT_CHECK_RC(zoo_multi(zh, 0, ops, results), ZOK);

  /* An op whose path is not a valid absolute path: ZMARSHALLINGERROR (the C client fails to serialize it), nothing
   * sent; an unknown create mode: ZBADARGUMENTS. */
  zoo_create_op_init(&ops[0], "relative", "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  CT_CHECK_RC(zoo_multi(zh, 1, ops, results), ZMARSHALLINGERROR);
  zoo_create_op_init(&ops[0], a, "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0);
  zoo_delete_op_init(&ops[1], "/a//b", -1);
  CT_CHECK_RC(zoo_multi(zh, 2, ops, results), ZMARSHALLINGERROR);
  zoo_set_op_init(&ops[0], "", "x", 1, -1, NULL);
  CT_CHECK_RC(zoo_multi(zh, 1, ops, results), ZMARSHALLINGERROR);
  zoo_check_op_init(&ops[0], NULL, -1);
  CT_CHECK_RC(zoo_multi(zh, 1, ops, results), ZMARSHALLINGERROR);
  zoo_create_op_init(&ops[0], a, "x", 1, &ZOO_OPEN_ACL_UNSAFE, 7, NULL, 0);
  CT_CHECK_RC(zoo_multi(zh, 1, ops, results), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_exists(zh, a, 0, &stat), ZNONODE);

  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

struct amulti_done {
  struct ct_latch latch;
  int rc;
  const void* data;
  pthread_t thread;
};

static void on_amulti(int rc, const void* data) {
  struct amulti_done* done = (struct amulti_done*)data;
  done->rc = rc;
  done->data = data;
  done->thread = pthread_self();
  ct_latch_add(&done->latch, 1);
}

/* zoo_amulti: the results array is filled by the time the completion runs, on the completion thread. */
static void async_multi(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char root[128];
  char a[160];
  ct_root(root, sizeof root, "amulti");
  snprintf(a, sizeof a, "%s/a", root);
  ct_create(zh, root, "");

  char path[200];
  zoo_op_t ops[2];
  zoo_create_op_init(&ops[0], a, "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, path, sizeof path);
  zoo_delete_op_init(&ops[1], a, 5);
  zoo_op_result_t results[2];
  struct amulti_done done = {.rc = 12345};
  ct_latch_init(&done.latch);
  CT_CHECK_RC(zoo_amulti(zh, 2, ops, results, on_amulti, &done), ZOK);
  CT_CHECK(ct_latch_wait(&done.latch, 1, CT_WAIT_MS));
  CT_CHECK_RC(done.rc, ZBADVERSION);
  CT_CHECK(done.data == &done);
  CT_CHECK(!pthread_equal(done.thread, pthread_self()));
  CT_CHECK_RC(results[0].err, ZOK);
  CT_CHECK_RC(results[1].err, ZBADVERSION);

  zoo_delete_op_init(&ops[1], a, 0);
  CT_CHECK_RC(zoo_amulti(zh, 2, ops, results, on_amulti, &done), ZOK);
  CT_CHECK(ct_latch_wait(&done.latch, 2, CT_WAIT_MS));
  CT_CHECK_RC(done.rc, ZOK);
  CT_CHECK_RC(results[0].err, ZOK);
  CT_CHECK_RC(results[1].err, ZOK);
  CT_CHECK_STR(path, a);

  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&done.latch);
  ct_latch_destroy(&session.events);
}

int main(void) {
  static const struct ct_case cases[] = {
      {"committed_multi", committed_multi},
      {"failing_multi", failing_multi},
      {"async_multi", async_multi},
  };
  return ct_main(cases, (int)(sizeof cases / sizeof cases[0]));
}
