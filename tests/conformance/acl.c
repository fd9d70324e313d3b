/* ACLs and authentication: zoo_add_auth with digest, nodes readable only by their creator, get_acl/set_acl with
 * versions, ZNOAUTH for others, and invalid ACLs refused with ZINVALIDACL. */
#include <stdio.h>

#include "capi_test.h"

struct auth_done {
  struct ct_latch latch;
  int rc;
};

static void on_auth(int rc, const void* data) {
  struct auth_done* done = (struct auth_done*)data;
  done->rc = rc;
  ct_latch_add(&done->latch, 1);
}

/* Adds digest credentials and waits for the server's answer; the completion's code. */
static int add_digest(zhandle_t* zh, const char* credentials) {
  struct auth_done done = {.rc = 12345};
  ct_latch_init(&done.latch);
  int rc = zoo_add_auth(zh, "digest", credentials, (int)strlen(credentials), on_auth, &done);
  if (rc == ZOK && !ct_latch_wait(&done.latch, 1, CT_WAIT_MS)) ct_fail(__FILE__, __LINE__, "no auth completion");
  ct_latch_destroy(&done.latch);
  return rc == ZOK ? done.rc : rc;
}

static void creator_only_node(void) {
  struct ct_session owner_session;
  struct ct_session other_session;
  zhandle_t* owner = ct_connect(&owner_session, NULL, CT_SESSION_TIMEOUT_MS);
  zhandle_t* other = ct_connect(&other_session, NULL, CT_SESSION_TIMEOUT_MS);
  if (owner == NULL || other == NULL) return;
  char node[128];
  ct_root(node, sizeof node, "secret");

  /* Without credentials a creator-only ACL names nobody. */
  CT_CHECK_RC(zoo_create(owner, node, "s", 1, &ZOO_CREATOR_ALL_ACL, 0, NULL, 0), ZINVALIDACL);
  CT_CHECK_RC(add_digest(owner, "alice:wonderland"), ZOK);
  CT_CHECK_RC(zoo_create(owner, node, "s", 1, &ZOO_CREATOR_ALL_ACL, 0, NULL, 0), ZOK);

  struct ACL_vector acl = {0, NULL};
  struct Stat stat;
  CT_CHECK_RC(zoo_get_acl(owner, node, &acl, &stat), ZOK);
  CT_CHECK_INT(acl.count, 1);
  if (acl.count == 1) {
    CT_CHECK_STR(acl.data[0].id.scheme, "digest");
    /* "alice:" and the base64 of a SHA-1 digest (28 characters). */
    CT_CHECK(strncmp(acl.data[0].id.id, "alice:", 6) == 0 && strlen(acl.data[0].id.id) == 6 + 28);
    CT_CHECK_INT(acl.data[0].perms, ZOO_PERM_ALL);
  }
  deallocate_ACL_vector(&acl);
  CT_CHECK_INT(stat.aversion, 0);

  char buffer[8];
  int len = sizeof buffer;
  CT_CHECK_RC(zoo_get(other, node, 0, buffer, &len, &stat), ZNOAUTH);
  CT_CHECK_RC(zoo_set(other, node, "x", 1, -1), ZNOAUTH);
  /* Reading the ACL needs READ or ADMIN too (ZooKeeper 3.8). */
  CT_CHECK_RC(zoo_get_acl(other, node, &acl, &stat), ZNOAUTH);
  CT_CHECK_RC(zoo_set_acl(other, node, -1, &ZOO_OPEN_ACL_UNSAFE), ZNOAUTH);

  /* Wrong credentials add an identity that matches nothing. */
  CT_CHECK_RC(add_digest(other, "alice:guess"), ZOK);
  len = sizeof buffer;
  CT_CHECK_RC(zoo_get(other, node, 0, buffer, &len, &stat), ZNOAUTH);
  /* The right ones, on a second handle, open the node. */
  CT_CHECK_RC(add_digest(other, "alice:wonderland"), ZOK);
  len = sizeof buffer;
  CT_CHECK_RC(zoo_get(other, node, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_INT(len, 1);

  /* set_acl checks the ACL version. */
  CT_CHECK_RC(zoo_set_acl(owner, node, 3, &ZOO_READ_ACL_UNSAFE), ZBADVERSION);
  CT_CHECK_RC(zoo_set_acl(owner, node, 0, &ZOO_READ_ACL_UNSAFE), ZOK);
  CT_CHECK_RC(zoo_get_acl(owner, node, &acl, &stat), ZOK);
  CT_CHECK_INT(stat.aversion, 1);
  CT_CHECK_INT(acl.count, 1);
  if (acl.count == 1) {
    CT_CHECK_STR(acl.data[0].id.scheme, "world");
    CT_CHECK_STR(acl.data[0].id.id, "anyone");
    CT_CHECK_INT(acl.data[0].perms, ZOO_PERM_READ);
  }
  deallocate_ACL_vector(&acl);
  CT_CHECK_RC(zoo_set(owner, node, "x", 1, -1), ZNOAUTH);
  /* Delete is the parent's permission, which is open. */
  CT_CHECK_RC(zoo_delete(owner, node, -1), ZOK);

  CT_CHECK_RC(zookeeper_close(owner), ZOK);
  CT_CHECK_RC(zookeeper_close(other), ZOK);
  ct_latch_destroy(&owner_session.events);
  ct_latch_destroy(&other_session.events);
}

static void invalid_acls(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char node[128];
  ct_root(node, sizeof node, "badacl");

  struct ACL_vector empty = {0, NULL};
  CT_CHECK_RC(zoo_create(zh, node, "x", 1, &empty, 0, NULL, 0), ZINVALIDACL);
  struct ACL bogus_entry = {ZOO_PERM_ALL, {"no-such-scheme", "someone"}};
  struct ACL_vector bogus = {1, &bogus_entry};
  CT_CHECK_RC(zoo_create(zh, node, "x", 1, &bogus, 0, NULL, 0), ZINVALIDACL);
  struct ACL bad_ip_entry = {ZOO_PERM_ALL, {"ip", "not-an-address"}};
  struct ACL_vector bad_ip = {1, &bad_ip_entry};
  CT_CHECK_RC(zoo_create(zh, node, "x", 1, &bad_ip, 0, NULL, 0), ZINVALIDACL);
  struct Stat stat;
  CT_CHECK_RC(zoo_exists(zh, node, 0, &stat), ZNONODE);

  ct_create(zh, node, "x");
  CT_CHECK_RC(zoo_set_acl(zh, node, -1, &bogus), ZINVALIDACL);
  CT_CHECK_RC(zoo_set_acl(zh, node, -1, &empty), ZINVALIDACL);
  struct ACL ip_entry = {ZOO_PERM_READ, {"ip", "127.0.0.1"}};
  struct ACL_vector ip = {1, &ip_entry};
  CT_CHECK_RC(zoo_set_acl(zh, node, -1, &ip), ZOK);
  char buffer[8];
  int len = sizeof buffer;
  CT_CHECK_RC(zoo_get(zh, node, 0, buffer, &len, &stat), ZOK);
  CT_CHECK_RC(zoo_delete(zh, node, -1), ZOK);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* Credentials the server rejects: the completion says ZAUTHFAILED, the global watcher hears
 * ZOO_AUTH_FAILED_STATE, and the handle is unrecoverable: every later call fails with ZINVALIDSTATE. */
static void rejected_credentials(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  struct auth_done done = {.rc = 12345};
  ct_latch_init(&done.latch);
  CT_CHECK_RC(zoo_add_auth(zh, "no-such-scheme", "x", 1, on_auth, &done), ZOK);
  CT_CHECK(ct_latch_wait(&done.latch, 1, CT_WAIT_MS));
  CT_CHECK_RC(done.rc, ZAUTHFAILED);
  CT_CHECK(ct_wait_state(&session, ZOO_AUTH_FAILED_STATE, CT_WAIT_MS));
  CT_CHECK_INT(zoo_state(zh), ZOO_AUTH_FAILED_STATE);
  CT_CHECK_RC(is_unrecoverable(zh), ZINVALIDSTATE);
  struct Stat stat;
  CT_CHECK_RC(zoo_exists(zh, "/", 0, &stat), ZINVALIDSTATE);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&done.latch);
  ct_latch_destroy(&session.events);
}

int main(void) {
  static const struct ct_case cases[] = {
      {"creator_only_node", creator_only_node},
      {"invalid_acls", invalid_acls},
      {"rejected_credentials", rejected_credentials},
  };
  return ct_main(cases, (int)(sizeof cases / sizeof cases[0]));
}
