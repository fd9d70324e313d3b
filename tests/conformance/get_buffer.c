/* zoo_get's caller-sized buffer: buffer_len in is the room, out the bytes written; data longer than the room is
 * cut to fit; a node without data reports -1; the data completion of zoo_aget gets the whole value. */
#include <stdio.h>

#include "capi_test.h"

struct data_done {
  struct ct_latch latch;
  int rc;
  char value[64];
  int value_len;
  int value_null;
};

static void on_data(int rc, const char* value, int value_len, const struct Stat* stat, const void* data) {
  (void)stat;
  struct data_done* done = (struct data_done*)data;
  done->rc = rc;
  done->value_len = value_len;
  done->value_null = value == NULL;
  if (value != NULL && value_len > 0 && value_len <= (int)sizeof done->value) memcpy(done->value, value, value_len);
  ct_latch_add(&done->latch, 1);
}

static void caller_sized_buffer(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char root[128];
  char full[160];
  char empty[160];
  char none[160];
  ct_root(root, sizeof root, "buffer");
  snprintf(full, sizeof full, "%s/full", root);
  snprintf(empty, sizeof empty, "%s/empty", root);
  snprintf(none, sizeof none, "%s/none", root);
  ct_create(zh, root, "");
  ct_create(zh, full, "0123456789");
  CT_CHECK_RC(zoo_create(zh, empty, "", 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZOK);
  CT_CHECK_RC(zoo_create(zh, none, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZOK);

  char buffer[32];
  struct Stat stat;
  int len = sizeof buffer;
  memset(buffer, '#', sizeof buffer);
  CT_CHECK_RC(zoo_get(zh, full, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, 10);
  CT_CHECK(memcmp(buffer, "0123456789", 10) == 0);
  CT_CHECK_INT(buffer[10], '#'); /* no terminator is written */
  CT_CHECK_INT(stat.dataLength, 10);

  /* Too small: the first len bytes, and the Stat still tells the real length. */
  len = 4;
  memset(buffer, '#', sizeof buffer);
  CT_CHECK_RC(zoo_get(zh, full, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, 4);
  CT_CHECK(memcmp(buffer, "0123#", 5) == 0);
  CT_CHECK_INT(stat.dataLength, 10);

  /* No room at all. */
  len = 0;
  CT_CHECK_RC(zoo_get(zh, full, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, 0);

  /* Empty data and no data. */
  len = sizeof buffer;
  CT_CHECK_RC(zoo_get(zh, empty, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, 0);
  CT_CHECK_INT(stat.dataLength, 0);
  len = sizeof buffer;
  CT_CHECK_RC(zoo_get(zh, none, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, -1);
  CT_CHECK_INT(stat.dataLength, 0);

  /* zoo_set with a NULL buffer and -1 clears the data back to none. */
  CT_CHECK_RC(zoo_set(zh, full, NULL, -1, -1), ZOK);
  len = sizeof buffer;
  CT_CHECK_RC(zoo_get(zh, full, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, -1);
  struct Stat set_stat;
  CT_CHECK_RC(zoo_set2(zh, full, "abc", 3, stat.version, &set_stat), ZOK);
  CT_CHECK_INT(set_stat.version, stat.version + 1);
  CT_CHECK_INT(set_stat.dataLength, 3);

  /* The asynchronous get hands over the whole value. */
  struct data_done done = {.rc = 12345};
  ct_latch_init(&done.latch);
  CT_CHECK_RC(zoo_aget(zh, full, 0, on_data, &done), ZOK);
  CT_CHECK(ct_latch_wait(&done.latch, 1, CT_WAIT_MS));
  CT_CHECK_RC(done.rc, ZOK);
  CT_CHECK_INT(done.value_len, 3);
  CT_CHECK(memcmp(done.value, "abc", 3) == 0);
  CT_CHECK_RC(zoo_aget(zh, none, 0, on_data, &done), ZOK);
  CT_CHECK(ct_latch_wait(&done.latch, 2, CT_WAIT_MS));
  CT_CHECK_RC(done.rc, ZOK);
  CT_CHECK_INT(done.value_len, -1);
  CT_CHECK_RC(zoo_aget(zh, root, 0, on_data, &done), ZOK);
  CT_CHECK(ct_latch_wait(&done.latch, 3, CT_WAIT_MS));
  CT_CHECK_INT(done.value_len, 0);
  char missing[200];
  snprintf(missing, sizeof missing, "%s/missing", root);
  CT_CHECK_RC(zoo_aget(zh, missing, 0, on_data, &done), ZOK);
  CT_CHECK(ct_latch_wait(&done.latch, 4, CT_WAIT_MS));
  CT_CHECK_RC(done.rc, ZNONODE);
  CT_CHECK(done.value_null); /* a failed read: no value, length 0 */
  CT_CHECK_INT(done.value_len, 0);
  ct_latch_destroy(&done.latch);

  /* A value near the server's limit round-trips whole. */
  enum { BIG = 1000 * 1000 };
  static char big[BIG];
  static char back[BIG + 16];
  for (int i = 0; i < BIG; ++i) big[i] = (char)('a' + i % 26);
  CT_CHECK_RC(zoo_set(zh, full, big, BIG, -1), ZOK);
  len = sizeof back;
  CT_CHECK_RC(zoo_get(zh, full, 0, back, &len, &stat), ZOK);
  CT_CHECK_INT(len, BIG);
  CT_CHECK(memcmp(back, big, BIG) == 0);

  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* Data arguments as the C client takes them: NULL with length 0 is empty data (another client reads ""), a
 * negative length is null data whatever the pointer; *buffer_len -1 on entry takes nothing and reports -1; a NULL
 * buffer_len is ZBADARGUMENTS before anything is sent. */
static void data_arguments(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char root[128];
  char node[160];
  ct_root(root, sizeof root, "dataargs");
  snprintf(node, sizeof node, "%s/n", root);
  ct_create(zh, root, "");
  char buffer[16];
  struct Stat stat;
  int len = sizeof buffer;
  CT_CHECK_RC(zoo_create(zh, node, NULL, 0, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZOK);
  CT_CHECK_RC(zoo_get(zh, node, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, 0);
  CT_CHECK_RC(zoo_set(zh, node, "abc", -1, -1), ZOK);
  len = sizeof buffer;
  CT_CHECK_RC(zoo_get(zh, node, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, -1);
  CT_CHECK_RC(zoo_set(zh, node, NULL, 0, -1), ZOK);
  len = sizeof buffer;
  CT_CHECK_RC(zoo_get(zh, node, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, 0);
  CT_CHECK_RC(zoo_delete(zh, node, -1), ZOK);
  CT_CHECK_RC(zoo_create(zh, node, "abc", -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZOK);
  len = sizeof buffer;
  CT_CHECK_RC(zoo_get(zh, node, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, -1);

  CT_CHECK_RC(zoo_set(zh, node, "abc", 3, -1), ZOK);
  len = -1;
  memset(buffer, '#', sizeof buffer);
  CT_CHECK_RC(zoo_get(zh, node, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, -1);
  CT_CHECK_INT(buffer[0], '#');
  CT_CHECK_INT(stat.dataLength, 3);

  CT_CHECK_RC(zoo_get(zh, node, 0, buffer, NULL, &stat), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_wget(zh, node, NULL, NULL, buffer, NULL, &stat), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_getconfig(zh, 0, buffer, NULL, &stat), ZBADARGUMENTS);

  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

int main(void) {
  static const struct ct_case cases[] = {
      {"caller_sized_buffer", caller_sized_buffer},
      {"data_arguments", data_arguments},
  };
  return ct_main(cases, (int)(sizeof cases / sizeof cases[0]));
}
