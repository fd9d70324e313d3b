/* Bad input: a NULL handle, NULL and malformed paths, impossible arguments and unusable hosts get the C client's
 * error codes, and nothing crashes. The session-level cases (a made-up session, calls after expiry, invalid ACLs,
 * a buffer too small) are in session.c, acl.c and get_buffer.c. */
#include <errno.h>
#include <stdio.h>

#include "capi_test.h"

static void noop_void(int rc, const void* data) {
  (void)rc;
  (void)data;
}
static void config_watcher(zhandle_t* zh, int type, int state, const char* path, void* context) {
  (void)zh;
  (void)type;
  (void)state;
  (void)path;
  (void)context;
}
static void noop_stat(int rc, const struct Stat* stat, const void* data) {
  (void)rc;
  (void)stat;
  (void)data;
}

/* Each call runs in a child of its own (ct_isolated): Debian's library dereferences a NULL handle in most calls. */
static int null_create(void* arg) { return zoo_create(arg, "/x", NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0); }
static int null_delete(void* arg) { return zoo_delete(arg, "/x", -1); }
static int null_exists(void* arg) {
  struct Stat stat;
  return zoo_exists(arg, "/x", 0, &stat);
}
static int null_get(void* arg) {
  char buffer[8];
  int len = sizeof buffer;
  struct Stat stat;
  return zoo_get(arg, "/x", 0, buffer, &len, &stat);
}
static int null_set(void* arg) { return zoo_set(arg, "/x", "v", 1, -1); }
static int null_get_children(void* arg) {
  struct String_vector children = {0, NULL};
  return zoo_get_children(arg, "/x", 0, &children);
}
static int null_get_acl(void* arg) {
  struct ACL_vector acl = {0, NULL};
  struct Stat stat;
  return zoo_get_acl(arg, "/x", &acl, &stat);
}
static int null_set_acl(void* arg) { return zoo_set_acl(arg, "/x", -1, &ZOO_OPEN_ACL_UNSAFE); }
static int null_aexists(void* arg) { return zoo_aexists(arg, "/x", 0, noop_stat, NULL); }
static int null_async(void* arg) { return zoo_async(arg, "/", NULL, NULL); }
static int null_add_auth(void* arg) { return zoo_add_auth(arg, "digest", "a:b", 3, noop_void, NULL); }
static int null_multi(void* arg) {
  zoo_op_t op;
  zoo_op_result_t result;
  zoo_delete_op_init(&op, "/x", -1);
  return zoo_multi(arg, 1, &op, &result);
}
static int null_close(void* arg) { return zookeeper_close(arg); }
static int null_state(void* arg) { return zoo_state(arg); }
static int null_is_unrecoverable(void* arg) { return is_unrecoverable(arg); }

/* A NULL handle: ZBADARGUMENTS, as the C client documents (zoo_state and is_unrecoverable: 0 and ZINVALIDSTATE). */
static void null_handle(void) {
  CT_CHECK_ISOLATED(null_create, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_delete, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_exists, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_get, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_set, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_get_children, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_get_acl, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_set_acl, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_aexists, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_async, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_add_auth, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_multi, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_close, NULL, ZBADARGUMENTS);
  CT_CHECK_ISOLATED(null_state, NULL, 0);
  CT_CHECK_ISOLATED(null_is_unrecoverable, NULL, ZINVALIDSTATE);
}

static void bad_paths(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  static const char* const paths[] = {"relative", "",       "/trailing/", "//double",
                                      "/a//b",    "/dot/.", "/dot/..",    "/dot/./x"};
  struct Stat stat;
  char buffer[8];
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; ++i) {
    int len = sizeof buffer;
    struct String_vector children = {0, NULL};
    CT_CHECK_RC(zoo_create(zh, paths[i], NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZBADARGUMENTS);
    CT_CHECK_RC(zoo_exists(zh, paths[i], 0, &stat), ZBADARGUMENTS);
    CT_CHECK_RC(zoo_get(zh, paths[i], 0, buffer, &len, &stat), ZBADARGUMENTS);
    CT_CHECK_RC(zoo_get_children(zh, paths[i], 0, &children), ZBADARGUMENTS);
    CT_CHECK_RC(zoo_delete(zh, paths[i], -1), ZBADARGUMENTS);
  }
  int len = sizeof buffer;
  struct String_vector children = {0, NULL};
  CT_CHECK_RC(zoo_create(zh, NULL, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_exists(zh, NULL, 0, &stat), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_get(zh, NULL, 0, buffer, &len, &stat), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_get_children(zh, NULL, 0, &children), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_set(zh, NULL, "v", 1, -1), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_delete(zh, NULL, -1), ZBADARGUMENTS);
  /* A sequential create may end in '/': the server appends the number. */
  char root[128];
  char prefix[160];
  char created[200];
  ct_root(root, sizeof root, "seqslash");
  ct_create(zh, root, "");
  snprintf(prefix, sizeof prefix, "%s/", root);
  CT_CHECK_RC(zoo_create(zh, prefix, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_SEQUENCE, created, sizeof created), ZOK);
  CT_CHECK(strncmp(created, prefix, strlen(prefix)) == 0 && strlen(created) == strlen(prefix) + 10);
  ct_delete_tree(zh, root);
  /* The handle is still usable after all that. */
  CT_CHECK_RC(zoo_exists(zh, "/", 0, &stat), ZOK);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* Arguments the C client takes or refuses on a live handle. */
static void odd_arguments(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  /* No Stat wanted, no room for data: fine. */
  struct Stat stat;
  char buffer[8];
  int len = sizeof buffer;
  CT_CHECK_RC(zoo_exists(zh, "/", 0, NULL), ZOK);
  CT_CHECK_RC(zoo_get(zh, "/", 0, buffer, &len, NULL), ZOK);
  len = 0;
  CT_CHECK_RC(zoo_get(zh, "/", 0, NULL, &len, &stat), ZOK);
  CT_CHECK_INT(len, 0);
  /* No ACL at all. */
  char node[128];
  ct_root(node, sizeof node, "nullacl");
  CT_CHECK_RC(zoo_create(zh, node, NULL, -1, NULL, 0, NULL, 0), ZINVALIDACL);
  /* The root and the server's own subtree cannot be deleted: refused before anything is sent. */
  CT_CHECK_RC(zoo_delete(zh, "/", -1), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_delete(zh, "/zookeeper", -1), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_exists(zh, "/zookeeper", 0, &stat), ZOK);
  /* An unknown create mode. */
  CT_CHECK_RC(zoo_create(zh, node, NULL, -1, &ZOO_OPEN_ACL_UNSAFE, 99, NULL, 0), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_exists(zh, node, 0, &stat), ZNONODE);
  /* No server list. (Debian's library takes "" and is left with no server: not checked.) */
  CT_CHECK_RC(zoo_set_servers(zh, NULL), ZBADARGUMENTS);
  CT_CHECK_RC(zoo_exists(zh, "/", 0, &stat), ZOK);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&session.events);
}

/* A server list that does not parse: ZBADARGUMENTS, and the handle goes on with the servers it had. */
static int garbage_server_list(void* arg) {
  (void)arg;
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return ZSYSTEMERROR;
  int rc = zoo_set_servers(zh, "not a host list");
  if (rc != ZBADARGUMENTS) return rc == ZOK ? ZAPIERROR : rc;
  struct Stat stat;
  rc = zoo_exists(zh, "/", 0, &stat);
  zookeeper_close(zh);
  return rc;
}

/* An asynchronous call without a completion: sent, its reply dropped, the handle goes on. */
static int no_completion(void* arg) {
  (void)arg;
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return ZSYSTEMERROR;
  int rc = zoo_aexists(zh, "/", 0, NULL, NULL);
  struct Stat stat;
  if (rc == ZOK) rc = zoo_exists(zh, "/", 0, &stat);
  zookeeper_close(zh);
  return rc;
}

/* Each in a child: Debian's library hangs after the first and crashes on the reply of the second. */
static void unusable_arguments_on_a_live_handle(void) {
  CT_CHECK_ISOLATED(garbage_server_list, NULL, ZOK);
  CT_CHECK_ISOLATED(no_completion, NULL, ZOK);
}

/* A difference docs/libzookeeper.md#differences lists: Debian's library answers `debian` (printed), any other
 * library must answer `expected`. */
static void check_difference(const char* file, int line, const char* call, int rc, int debian, int expected) {
  const int is_debian = strcmp(ct_library(), "debian") == 0;
  const int wanted = is_debian ? debian : expected;
  if (rc != wanted) {
    ct_fail(file, line, "%s: rc %d (%s), expected %d (%s)", call, rc, zerror(rc), wanted, zerror(wanted));
  } else if (is_debian) {
    printf("documented difference: %s is %d (%s) on Debian's library, %d (%s) on zkwire's\n", call, debian,
           zerror(debian), expected, zerror(expected));
  }
}
#define CHECK_DIFFERENCE(call, debian, expected) check_difference(__FILE__, __LINE__, #call, call, debian, expected)

/* A chrooted handle: the path rules are the ones without a chroot ("" and relative paths are ZBADARGUMENTS; Debian's
 * library prepends the chroot to them, so "" names the chroot and "rel" a sibling of it, outside the chroot), and
 * zoo_getconfig reads the ensemble's configuration, not a node under the chroot. */
static void chroot_paths(void) {
  struct ct_session session;
  zhandle_t* zh = ct_connect(&session, NULL, CT_SESSION_TIMEOUT_MS);
  if (zh == NULL) return;
  char root[128];
  ct_root(root, sizeof root, "chroot");
  ct_create(zh, root, "root");
  char hosts[512];
  snprintf(hosts, sizeof hosts, "%s%s", ct_hosts(), root);
  struct ct_session chrooted_session;
  zhandle_t* chrooted = ct_connect_to(hosts, &chrooted_session, NULL, CT_SESSION_TIMEOUT_MS);
  if (chrooted != NULL) {
    char buffer[64];
    int len = sizeof buffer;
    struct Stat stat;
    CT_CHECK_RC(zoo_get(chrooted, "/", 0, buffer, &len, &stat), ZOK);
    CT_CHECK_INT(len, 4);
    CHECK_DIFFERENCE(zoo_exists(chrooted, "", 0, &stat), ZOK, ZBADARGUMENTS);
    CHECK_DIFFERENCE(zoo_create(chrooted, "rel", "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, NULL, 0), ZOK, ZBADARGUMENTS);
    len = sizeof buffer;
    CHECK_DIFFERENCE(zoo_getconfig(chrooted, 0, buffer, &len, &stat), ZNONODE, ZOK);
    len = sizeof buffer;
    CHECK_DIFFERENCE(zoo_wgetconfig(chrooted, NULL, NULL, buffer, &len, &stat), ZNONODE, ZOK);
    len = sizeof buffer;
    /* With a watcher: refused, since after a reconnect the watch would be set again under the chroot. */
    CHECK_DIFFERENCE(zoo_wgetconfig(chrooted, config_watcher, NULL, buffer, &len, &stat), ZNONODE, ZBADARGUMENTS);
    CT_CHECK_RC(zookeeper_close(chrooted), ZOK);
  }
  char sibling[160];
  snprintf(sibling, sizeof sibling, "%srel", root);
  zoo_delete(zh, sibling, -1); /* what Debian's library created */
  ct_delete_tree(zh, root);
  CT_CHECK_RC(zookeeper_close(zh), ZOK);
  ct_latch_destroy(&chrooted_session.events);
  ct_latch_destroy(&session.events);
}

static void unusable_hosts(void) {
  errno = 0;
  CT_CHECK(zookeeper_init(NULL, NULL, CT_SESSION_TIMEOUT_MS, NULL, NULL, 0) == NULL);
  CT_CHECK_INT(errno, EINVAL);
  errno = 0;
  CT_CHECK(zookeeper_init("", NULL, CT_SESSION_TIMEOUT_MS, NULL, NULL, 0) == NULL);
  CT_CHECK_INT(errno, EINVAL);
}

static void error_strings(void) {
  static const int codes[] = {ZOK,
                              ZSYSTEMERROR,
                              ZRUNTIMEINCONSISTENCY,
                              ZDATAINCONSISTENCY,
                              ZCONNECTIONLOSS,
                              ZMARSHALLINGERROR,
                              ZUNIMPLEMENTED,
                              ZOPERATIONTIMEOUT,
                              ZBADARGUMENTS,
                              ZINVALIDSTATE,
                              ZAPIERROR,
                              ZNONODE,
                              ZNOAUTH,
                              ZBADVERSION,
                              ZNOCHILDRENFOREPHEMERALS,
                              ZNODEEXISTS,
                              ZNOTEMPTY,
                              ZSESSIONEXPIRED,
                              ZINVALIDCALLBACK,
                              ZINVALIDACL,
                              ZAUTHFAILED,
                              ZCLOSING,
                              ZNOTHING,
                              ZSESSIONMOVED,
                              ZNOTREADONLY,
                              ZNEWCONFIGNOQUORUM,
                              ZRECONFIGINPROGRESS,
                              ZNOWATCHER};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i) {
    const char* text = zerror(codes[i]);
    CT_CHECK(text != NULL && *text != '\0');
  }
  CT_CHECK(zerror(-12345) != NULL);
  CT_CHECK(strcmp(zerror(ZNONODE), zerror(ZNODEEXISTS)) != 0);
}

int main(void) {
  static const struct ct_case cases[] = {
      {"null_handle", null_handle},
      {"bad_paths", bad_paths},
      {"unusable_hosts", unusable_hosts},
      {"odd_arguments", odd_arguments},
      {"unusable_arguments_on_a_live_handle", unusable_arguments_on_a_live_handle},
      {"error_strings", error_strings},
      {"chroot_paths", chroot_paths},
  };
  return ct_main(cases, (int)(sizeof cases / sizeof cases[0]));
}
