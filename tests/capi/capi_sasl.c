/* SASL DIGEST-MD5 through zookeeper_init_sasl: a C program built against zkwire's header with HAVE_CYRUS_SASL_H
 * (Debian's build declares no SASL entry point) and run by capi_sasl_test against a SASL-enabled server.
 *
 *   capi_sasl <hosts> <user> <password file> login     the credentials are right: connect, own a sasl: ACL'd node
 *                                                      (with zoo_sasl_make_basic_callbacks and with callbacks of
 *                                                      the program's own), which a handle without SASL may not read
 *   capi_sasl <hosts> <user> <password file> refused   the server refuses the login
 *   capi_sasl <hosts> <user> <password file> GSSAPI    a mechanism the library does not implement
 * Prints what it saw and "ok" at the end; exits 1 at the first failed check. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zookeeper.h>

#define CHECK(cond)                                       \
  do {                                                    \
    if (!(cond)) {                                        \
      printf("FAILED at line %d: %s\n", __LINE__, #cond); \
      exit(1);                                            \
    }                                                     \
  } while (0)

/* The session states a handle's watcher saw, in order. */
struct session_log {
  pthread_mutex_t mutex;
  pthread_cond_t changed;
  int states[16];
  int count;
};

static void watcher(zhandle_t* zh, int type, int state, const char* path, void* context) {
  struct session_log* log = context;
  (void)zh;
  (void)path;
  if (type != ZOO_SESSION_EVENT) return;
  pthread_mutex_lock(&log->mutex);
  if (log->count < 16) log->states[log->count++] = state;
  pthread_cond_broadcast(&log->changed);
  pthread_mutex_unlock(&log->mutex);
}

static void log_init(struct session_log* log) {
  memset(log, 0, sizeof *log);
  pthread_mutex_init(&log->mutex, NULL);
  pthread_cond_init(&log->changed, NULL);
}

/* Waits (up to 60 s: a bound for a hung run, not a timing property) for the watcher's first session event. */
static int first_state(struct session_log* log) {
  struct timespec deadline;
  int state = 0;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 60;
  pthread_mutex_lock(&log->mutex);
  while (log->count == 0) {
    if (pthread_cond_timedwait(&log->changed, &log->mutex, &deadline) == ETIMEDOUT) break;
  }
  if (log->count > 0) state = log->states[0];
  pthread_mutex_unlock(&log->mutex);
  return state;
}

/* Callbacks of the program's own, as an application with a password store would write them. */
static const char* own_user;
static char own_password[256];
static int own_name(void* context, int id, const char** result, unsigned* len) {
  (void)context;
  if (id != SASL_CB_AUTHNAME && id != SASL_CB_USER) return SASL_BADPARAM;
  *result = own_user;
  if (len) *len = (unsigned)strlen(own_user);
  return SASL_OK;
}
static int own_secret(sasl_conn_t* conn, void* context, int id, sasl_secret_t** psecret) {
  static union {
    sasl_secret_t secret;
    char bytes[sizeof(sasl_secret_t) + 256];
  } storage;
  (void)conn;
  (void)context;
  if (id != SASL_CB_PASS) return SASL_BADPARAM;
  storage.secret.len = strlen(own_password);
  memcpy(storage.secret.data, own_password, storage.secret.len + 1);
  *psecret = &storage.secret;
  return SASL_OK;
}

static zhandle_t* open_sasl(const char* hosts, const char* mechlist, sasl_callback_t* callbacks,
                            struct session_log* log) {
  zoo_sasl_params_t params;
  zhandle_t* zh;
  memset(&params, 0, sizeof params);
  params.service = "zookeeper";
  params.host = "zk-sasl-md5";
  params.mechlist = mechlist;
  params.callbacks = callbacks;
  log_init(log);
  zh = zookeeper_init_sasl(hosts, watcher, 30000, NULL, log, 0, NULL, &params);
  CHECK(zh != NULL);
  return zh;
}

/* The user's node: created with the ACL sasl:<user>, readable and writable by that user only. */
static void owns_a_sasl_node(zhandle_t* zh, const char* user, const char* path) {
  struct Id id;
  struct ACL acl;
  struct ACL_vector acls;
  struct ACL_vector got;
  struct Stat stat;
  char buffer[64];
  int len = sizeof buffer;
  id.scheme = "sasl";
  id.id = (char*)user;
  acl.perms = ZOO_PERM_ALL;
  acl.id = id;
  acls.count = 1;
  acls.data = &acl;
  CHECK(zoo_create(zh, path, "secret", 6, &acls, 0, NULL, 0) == ZOK);
  CHECK(zoo_get(zh, path, 0, buffer, &len, &stat) == ZOK);
  CHECK(len == 6 && memcmp(buffer, "secret", 6) == 0);
  CHECK(zoo_set(zh, path, "changed", 7, -1) == ZOK);
  CHECK(zoo_get_acl(zh, path, &got, &stat) == ZOK);
  CHECK(got.count == 1 && strcmp(got.data[0].id.scheme, "sasl") == 0 && strcmp(got.data[0].id.id, user) == 0);
  deallocate_ACL_vector(&got);
}

static void cannot_read_without_sasl(const char* hosts, const char* path) {
  struct session_log log;
  char buffer[64];
  int len = sizeof buffer;
  zhandle_t* zh;
  log_init(&log);
  zh = zookeeper_init(hosts, watcher, 30000, NULL, &log, 0);
  CHECK(zh != NULL);
  CHECK(first_state(&log) == ZOO_CONNECTED_STATE);
  CHECK(zoo_get(zh, path, 0, buffer, &len, NULL) == ZNOAUTH);
  CHECK(zoo_delete(zh, path, -1) == ZOK); /* delete is the parent's permission (world) */
  CHECK(zookeeper_close(zh) == ZOK);
}

static void login(const char* hosts, const char* user, const char* password_file) {
  struct session_log log;
  char path[64];
  FILE* file;
  sasl_callback_t* basic = zoo_sasl_make_basic_callbacks(user, NULL, password_file);
  sasl_callback_t own[] = {{SASL_CB_AUTHNAME, (int (*)(void))own_name, NULL},
                           {SASL_CB_PASS, (int (*)(void))own_secret, NULL},
                           {SASL_CB_LIST_END, NULL, NULL}};
  zhandle_t* zh;
  CHECK(basic != NULL);

  zh = open_sasl(hosts, "DIGEST-MD5", basic, &log);
  CHECK(first_state(&log) == ZOO_CONNECTED_STATE);
  CHECK(zoo_state(zh) == ZOO_CONNECTED_STATE);
  snprintf(path, sizeof path, "/capi-sasl-basic-%d", (int)getpid());
  owns_a_sasl_node(zh, user, path);
  CHECK(zookeeper_close(zh) == ZOK);
  free(basic);
  cannot_read_without_sasl(hosts, path);
  printf("basic callbacks: connected, sasl:%s node owned\n", user);

  own_user = user;
  file = fopen(password_file, "r");
  CHECK(file != NULL && fgets(own_password, sizeof own_password, file) != NULL);
  fclose(file);
  own_password[strcspn(own_password, "\n")] = '\0';
  zh = open_sasl(hosts, "PLAIN DIGEST-MD5", own, &log);
  CHECK(first_state(&log) == ZOO_CONNECTED_STATE);
  snprintf(path, sizeof path, "/capi-sasl-own-%d", (int)getpid());
  owns_a_sasl_node(zh, user, path);
  CHECK(zookeeper_close(zh) == ZOK);
  cannot_read_without_sasl(hosts, path);
  printf("own callbacks: connected, sasl:%s node owned\n", user);
}

/* A failed login: the session ends with ZOO_AUTH_FAILED_STATE, without ever being connected, and the handle is
 * unrecoverable. */
static void fails(const char* hosts, const char* user, const char* password_file, const char* mechlist) {
  struct session_log log;
  sasl_callback_t* basic = zoo_sasl_make_basic_callbacks(user, NULL, password_file);
  zhandle_t* zh = open_sasl(hosts, mechlist, basic, &log);
  struct Stat stat;
  const int first = first_state(&log);
  if (first != ZOO_AUTH_FAILED_STATE) printf("first session event: state %d\n", first);
  CHECK(first == ZOO_AUTH_FAILED_STATE);
  CHECK(zoo_state(zh) == ZOO_AUTH_FAILED_STATE);
  CHECK(is_unrecoverable(zh) == ZINVALIDSTATE);
  CHECK(zoo_exists(zh, "/", 0, &stat) == ZINVALIDSTATE);
  CHECK(zookeeper_close(zh) == ZOK);
  free(basic);
  printf("%s: ZOO_AUTH_FAILED_STATE, calls ZINVALIDSTATE\n", mechlist);
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  zoo_set_debug_level(ZOO_LOG_LEVEL_WARN);
  CHECK(argc == 5);
  if (strcmp(argv[4], "login") == 0) {
    login(argv[1], argv[2], argv[3]);
  } else if (strcmp(argv[4], "refused") == 0) {
    fails(argv[1], argv[2], argv[3], "DIGEST-MD5");
  } else {
    fails(argv[1], argv[2], argv[3], argv[4]);
  }
  printf("ok\n");
  return 0;
}
