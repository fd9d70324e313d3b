/* Create modes: persistent, ephemeral, sequential, container and TTL (zoo_create, zoo_create2, zoo_create_ttl), the
 * caller's path buffer, and the server's refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "capi_test.h"

/* Polls until `path` is gone (the server reaps containers and TTL nodes on its own schedule); 1 if it went. */
static int wait_gone(zhandle_t* zh, const char* path) {
  struct Stat stat;
  for (int i = 0; i < CT_WAIT_MS / 50; ++i) {
    if (zoo_exists(zh, path, 0, &stat) == ZNONODE) return 1;
    nanosleep(&(struct timespec){.tv_nsec = 50000000L}, NULL);
  }
  return 0;
}

/* 1 if `created` is `prefix` followed by a 10-digit sequence number; that number in *sequence. */
static int is_sequential(const char* created, const char* prefix, long* sequence) {
  size_t n = strlen(prefix);
  if (strncmp(created, prefix, n) != 0 || strlen(created) != n + 10) return 0;
  for (size_t i = n; i < n + 10; ++i)
    if (created[i] < '0' || created[i] > '9') return 0;
  *sequence = strtol(created + n, NULL, 10);
  return 1;
}

static void basic_modes(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char root[128];
  char path[160];
  char prefix[160];
  char created[200];
  ct_root(root, sizeof root, "modes");
  CT_CHECK_RC(zoo_create(zh, root, "r", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, created, sizeof created), ZOK);
  CT_CHECK_STR(created, root);

  /* Ephemeral: owned by the session, no children allowed. */
  struct Stat stat;
  snprintf(path, sizeof path, "%s/eph", root);
  CT_CHECK_RC(zoo_create2(zh, path, "e", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, created, sizeof created, &stat), ZOK);
  CT_CHECK_INT(stat.ephemeralOwner, zoo_client_id(zh)->client_id);
  CT_CHECK_INT(stat.dataLength, 1);
  CT_CHECK_INT(stat.version, 0);
  CT_CHECK(stat.czxid == stat.mzxid && stat.czxid > 0);
  snprintf(prefix, sizeof prefix, "%s/eph/child", root);
  CT_CHECK_RC(zoo_create(zh, prefix, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZNOCHILDRENFOREPHEMERALS);

  /* Sequential: ten digits after the prefix, growing; ZOO_SEQUENCE is the same flag. */
  snprintf(prefix, sizeof prefix, "%s/seq-", root);
  long first = -1;
  long second = -1;
  CT_CHECK_RC(
      zoo_create(zh, prefix, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_SEQUENTIAL, created, sizeof created), ZOK);
  CT_CHECK(is_sequential(created, prefix, &first));
  CT_CHECK_RC(zoo_create(zh, prefix, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL, created, sizeof created),
              ZOK);
  CT_CHECK(is_sequential(created, prefix, &second));
  CT_CHECK(second > first);
  CT_CHECK_RC(zoo_exists(zh, created, 0, &stat), ZOK);
  CT_CHECK_INT(stat.ephemeralOwner, zoo_client_id(zh)->client_id);
  CT_CHECK_INT(ZOO_SEQUENCE, ZOO_PERSISTENT_SEQUENTIAL);

  /* A path buffer too small for the name: truncated, NUL-terminated. */
  char small[6];
  memset(small, 'x', sizeof small);
  snprintf(path, sizeof path, "%s/truncated", root);
  CT_CHECK_RC(zoo_create(zh, path, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, small, sizeof small), ZOK);
  CT_CHECK(strncmp(small, path, sizeof small - 1) == 0 && small[sizeof small - 1] == '\0');

  /* Refusals. */
  CT_CHECK_RC(zoo_create(zh, path, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZNODEEXISTS);
  snprintf(path, sizeof path, "%s/missing/child", root);
  CT_CHECK_RC(zoo_create(zh, path, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZNONODE);
  CT_CHECK_RC(zoo_delete(zh, root, -1), ZNOTEMPTY);
  snprintf(path, sizeof path, "%s/truncated", root);
  CT_CHECK_RC(zoo_delete(zh, path, 4), ZBADVERSION);

  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* A container survives while empty after creation, and goes once its last child is deleted. */
static void container(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char box[128];
  char child[160];
  char created[200];
  struct Stat stat;
  ct_root(box, sizeof box, "container");
  CT_CHECK_RC(zoo_create2(zh, box, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_CONTAINER, created, sizeof created, &stat), ZOK);
  CT_CHECK_STR(created, box);
  CT_CHECK_INT(stat.ephemeralOwner, 0);
  snprintf(child, sizeof child, "%s/child", box);
  ct_create(zh, child, "c");
  CT_CHECK_RC(zoo_delete(zh, child, -1), ZOK);
  CT_CHECK(wait_gone(zh, box));
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* TTL nodes: zoo_create_ttl with the TTL modes; the server removes an unchanged, childless one after its TTL. A TTL
 * with any other mode, or no TTL with a TTL mode, is ZBADARGUMENTS. */
static void ttl(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char node[128];
  char prefix[160];
  char created[200];
  struct Stat stat;
  ct_root(node, sizeof node, "ttl");
  CT_CHECK_RC(zoo_create_ttl(zh, node, "t", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, 500, NULL, 0), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_create_ttl(zh, node, "t", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_WITH_TTL, 0, NULL, 0),
              ZBADARGUMENTS);
  CT_CHECK_RC(zoo_create_ttl(zh, node, "t", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_WITH_TTL, -5, NULL, 0),
              ZBADARGUMENTS);
  CT_CHECK_RC(zoo_create(zh, node, "t", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_WITH_TTL, NULL, 0), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_exists(zh, node, 0, &stat), ZNONODE);

  CT_CHECK_RC(zoo_create2_ttl(zh, node, "t", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_WITH_TTL, 300, created,
                              sizeof created, &stat),
              ZOK);
  CT_CHECK_STR(created, node);
  CT_CHECK_INT(stat.dataLength, 1);
  snprintf(prefix, sizeof prefix, "%s-seq-", node);
  CT_CHECK_RC(zoo_create_ttl(zh, prefix, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_SEQUENTIAL_WITH_TTL, 300,
                             created, sizeof created),
              ZOK);
  long sequence = -1;
  CT_CHECK(is_sequential(created, prefix, &sequence));
  CT_CHECK(wait_gone(zh, node));
  CT_CHECK(wait_gone(zh, created));
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

int main(void) {
  static const struct ct_case cases[] = {
      {"basic_modes", basic_modes},
      {"container", container},
      {"ttl", ttl},
  };
  return ct_main(cases, (int)(sizeof cases / sizeof cases[0]));
}
