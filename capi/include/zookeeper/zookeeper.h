/* zkwire's libzookeeper_mt.so.2: ZooKeeper's C API (the 3.8.0 THREADED variant), implemented on zkwire's C++ client.
 *
 * Same names, values, types and layouts as the 3.8.0 C client, so a program built against either header runs on
 * either library (tests/capi checks this header against Debian's). docs/libzookeeper.md lists what behaves
 * differently and why. In short:
 *  - each handle runs two threads of its own: one doing the I/O, one calling completions and watchers, in the
 *    order the replies and events arrived; a completion or watcher never runs on the caller's thread nor inside
 *    the call that started it;
 *  - synchronous calls may be made from any thread except the completion thread (they would wait for
 *    themselves); zookeeper_close may be called from any thread, a completion or watcher included;
 *  - every function returns ZBADARGUMENTS for a NULL handle or a bad argument, ZINVALIDSTATE once the session
 *    ended (expired, authentication failed) or the handle is closing.
 * The single-threaded entry points (zookeeper_interest, zookeeper_process) are not provided. */
#ifndef ZKWIRE_ZOOKEEPER_H
#define ZKWIRE_ZOOKEEPER_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "proto.h"
#include "recordio.h"
#include "zookeeper.jute.h"
#include "zookeeper_version.h"

#define ZOOAPI __attribute__((visibility("default")))

/* Return codes of every call and completion. */
enum ZOO_ERRORS {
  ZOK = 0,
  /* the library or the server failed; range -1..-99 */
  ZSYSTEMERROR = -1,
  ZRUNTIMEINCONSISTENCY = -2,
  ZDATAINCONSISTENCY = -3,
  ZCONNECTIONLOSS = -4,
  ZMARSHALLINGERROR = -5,
  ZUNIMPLEMENTED = -6,
  ZOPERATIONTIMEOUT = -7,
  ZBADARGUMENTS = -8,
  ZINVALIDSTATE = -9,
  ZNEWCONFIGNOQUORUM = -13,
  ZRECONFIGINPROGRESS = -14,
  ZSSLCONNECTIONERROR = -15,
  /* results of a well-formed request; range -100 and below */
  ZAPIERROR = -100,
  ZNONODE = -101,
  ZNOAUTH = -102,
  ZBADVERSION = -103,
  ZNOCHILDRENFOREPHEMERALS = -108,
  ZNODEEXISTS = -110,
  ZNOTEMPTY = -111,
  ZSESSIONEXPIRED = -112,
  ZINVALIDCALLBACK = -113,
  ZINVALIDACL = -114,
  ZAUTHFAILED = -115,
  ZCLOSING = -116,
  ZNOTHING = -117,
  ZSESSIONMOVED = -118,
  ZNOTREADONLY = -119,
  ZEPHEMERALONLOCALSESSION = -120,
  ZNOWATCHER = -121,
  ZRECONFIGDISABLED = -123,
  ZSESSIONCLOSEDREQUIRESASLAUTH = -124,
  ZTHROTTLEDOP = -127
};

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ZOO_LOG_LEVEL_ERROR = 1,
  ZOO_LOG_LEVEL_WARN = 2,
  ZOO_LOG_LEVEL_INFO = 3,
  ZOO_LOG_LEVEL_DEBUG = 4
} ZooLogLevel;

/* ACL permission bits. */
extern ZOOAPI const int ZOO_PERM_READ;
extern ZOOAPI const int ZOO_PERM_WRITE;
extern ZOOAPI const int ZOO_PERM_CREATE;
extern ZOOAPI const int ZOO_PERM_DELETE;
extern ZOOAPI const int ZOO_PERM_ADMIN;
extern ZOOAPI const int ZOO_PERM_ALL;

#define ZOO_CONFIG_NODE "/zookeeper/config"

/* zookeeper_init flags: accept read-only servers; do not log the client environment. */
#define ZOO_READONLY 1
#define ZOO_NO_LOG_CLIENTENV 2

/* Predefined ids and ACLs (writable objects, as in the C client). */
extern ZOOAPI struct Id ZOO_ANYONE_ID_UNSAFE;
extern ZOOAPI struct Id ZOO_AUTH_IDS;
extern ZOOAPI struct ACL_vector ZOO_OPEN_ACL_UNSAFE;
extern ZOOAPI struct ACL_vector ZOO_READ_ACL_UNSAFE;
extern ZOOAPI struct ACL_vector ZOO_CREATOR_ALL_ACL;

/* Interest bits of the single-threaded API (kept for the values only). */
extern ZOOAPI const int ZOOKEEPER_WRITE;
extern ZOOAPI const int ZOOKEEPER_READ;

/* Create modes. */
extern ZOOAPI const int ZOO_PERSISTENT;
extern ZOOAPI const int ZOO_EPHEMERAL;
extern ZOOAPI const int ZOO_PERSISTENT_SEQUENTIAL;
extern ZOOAPI const int ZOO_EPHEMERAL_SEQUENTIAL;
extern ZOOAPI const int ZOO_CONTAINER;
extern ZOOAPI const int ZOO_PERSISTENT_WITH_TTL;
extern ZOOAPI const int ZOO_PERSISTENT_SEQUENTIAL_WITH_TTL;
extern ZOOAPI const int ZOO_SEQUENCE;

/* Session states (zoo_state, and the state argument of watchers). */
extern ZOOAPI const int ZOO_EXPIRED_SESSION_STATE;
extern ZOOAPI const int ZOO_AUTH_FAILED_STATE;
extern ZOOAPI const int ZOO_CONNECTING_STATE;
extern ZOOAPI const int ZOO_ASSOCIATING_STATE;
extern ZOOAPI const int ZOO_CONNECTED_STATE;
extern ZOOAPI const int ZOO_READONLY_STATE;
extern ZOOAPI const int ZOO_NOTCONNECTED_STATE;

/* Watch event types. */
extern ZOOAPI const int ZOO_CREATED_EVENT;
extern ZOOAPI const int ZOO_DELETED_EVENT;
extern ZOOAPI const int ZOO_CHANGED_EVENT;
extern ZOOAPI const int ZOO_CHILD_EVENT;
extern ZOOAPI const int ZOO_SESSION_EVENT;
extern ZOOAPI const int ZOO_NOTWATCHING_EVENT;

typedef struct _zhandle zhandle_t;

/* TLS material of zookeeper_init_ssl (the layout of the C client's, which has no public use for it). */
typedef struct _zcert {
  char* certstr;
  char* ca;
  char* cert;
  char* key;
  char* passwd;
} zcert_t;

typedef struct _zsock {
  int sock;
  zcert_t* cert;
} zsock_t;

/* A session's identity: give it to zookeeper_init to take the session over. */
typedef struct {
  int64_t client_id;
  char passwd[16];
} clientid_t;

/* The members of zoo_op_t's union. Declared outside it, with tags, so that a C++ compiler takes the header
 * without extensions (C++ allows no type declared in an anonymous union); the layout is the C client's. */
struct zoo_create_op {
  const char* path;
  const char* data;
  int datalen;
  char* buf;
  int buflen;
  const struct ACL_vector* acl;
  int flags;
  int64_t ttl;
};

struct zoo_delete_op {
  const char* path;
  int version;
};

struct zoo_set_op {
  const char* path;
  const char* data;
  int datalen;
  int version;
  struct Stat* stat;
};

struct zoo_check_op {
  const char* path;
  int version;
};

/* One operation of zoo_multi/zoo_amulti; fill it with the zoo_*_op_init functions. */
typedef struct zoo_op {
  int type;
  union {
    struct zoo_create_op create_op;
    struct zoo_delete_op delete_op;
    struct zoo_set_op set_op;
    struct zoo_check_op check_op;
  };
} zoo_op_t;

ZOOAPI void zoo_create_op_init(zoo_op_t* op, const char* path, const char* value, int valuelen,
                               const struct ACL_vector* acl, int mode, char* path_buffer, int path_buffer_len);
/* The same with the create2 opcode (exported by the C client, not declared by its header). */
ZOOAPI void zoo_create2_op_init(zoo_op_t* op, const char* path, const char* value, int valuelen,
                                const struct ACL_vector* acl, int mode, char* path_buffer, int path_buffer_len);
ZOOAPI void zoo_delete_op_init(zoo_op_t* op, const char* path, int version);
ZOOAPI void zoo_set_op_init(zoo_op_t* op, const char* path, const char* buffer, int buflen, int version,
                            struct Stat* stat);
ZOOAPI void zoo_check_op_init(zoo_op_t* op, const char* path, int version);

/* One result of a multi: err, and for a create the path in the op's buffer, for a set the stat. */
typedef struct zoo_op_result {
  int err;
  char* value;
  int valuelen;
  struct Stat* stat;
} zoo_op_result_t;

typedef void (*watcher_fn)(zhandle_t* zh, int type, int state, const char* path, void* watcherCtx);
typedef void (*log_callback_fn)(const char* message);

/* --- sessions --- */

/* Starts a session with the hosts of `host` ("h1:2181,h2:2181[/chroot]") and returns at once; `fn` gets
 * ZOO_SESSION_EVENT with ZOO_CONNECTED_STATE once connected. `clientid` non-NULL with a non-zero id takes that
 * session over. NULL with errno EINVAL for a bad host list. */
ZOOAPI zhandle_t* zookeeper_init(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                 void* context, int flags);
/* The same, with a log callback for this handle's messages. */
ZOOAPI zhandle_t* zookeeper_init2(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                  void* context, int flags, log_callback_fn log_callback);
/* The same over TLS. `cert` is "ca_file,cert_file,key_file[,password]" (cert_file and key_file may be empty for
 * no client certificate; password decrypts an encrypted key_file). Not in Debian's build of the C client. */
ZOOAPI zhandle_t* zookeeper_init_ssl(const char* host, const char* cert, watcher_fn fn, int recv_timeout,
                                     const clientid_t* clientid, void* context, int flags);
ZOOAPI void close_zsock(zsock_t* zsock);

#ifdef HAVE_CYRUS_SASL_H
/* SASL, declared as by the 3.8 C client built with Cyrus SASL (Debian's is not). The types are Cyrus SASL's: from
 * <sasl/sasl.h> where it is installed, else from zoo_sasl_types.h (the same layouts and values), so a program needs
 * libsasl2-dev neither to build against this header nor to run; the library never calls Cyrus SASL. */
#if defined(__has_include)
#if __has_include(<sasl/sasl.h>)
#include <sasl/sasl.h>
#else
#include "zoo_sasl_types.h"
#endif
#else
#include <sasl/sasl.h>
#endif

/* SASL parameters of zookeeper_init_sasl. The strings are copied; the callbacks are called during
 * zookeeper_init_sasl only (the C client calls them at every connection, so it needs them for the handle's life). */
typedef struct zoo_sasl_params {
  const char* service;              /* "zookeeper" */
  const char* host;                 /* the server's SASL name, "zk-sasl-md5" */
  const char* mechlist;             /* must name DIGEST-MD5, the one mechanism this library implements */
  const sasl_callback_t* callbacks; /* SASL_CB_AUTHNAME (or SASL_CB_USER) and SASL_CB_PASS are used */
} zoo_sasl_params_t;

/* zookeeper_init2 with SASL DIGEST-MD5 on every connection of the session (NULL sasl_params: none). Another mechanism,
 * or credentials the callbacks do not give, put the handle at once in ZOO_AUTH_FAILED_STATE (the watcher gets that
 * session event; calls return ZINVALIDSTATE); so does a login the server rejects. */
ZOOAPI zhandle_t* zookeeper_init_sasl(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                      void* context, int flags, log_callback_fn log_callback,
                                      zoo_sasl_params_t* sasl_params);
/* A malloc()ed callback array answering SASL_CB_USER and SASL_CB_AUTHNAME with `user`, SASL_CB_GETREALM with
 * `realm` and SASL_CB_PASS with the first line of `password_file` (each NULL for none). Release it with free(). */
ZOOAPI sasl_callback_t* zoo_sasl_make_basic_callbacks(const char* user, const char* realm, const char* password_file);
#endif /* HAVE_CYRUS_SASL_H */

ZOOAPI int zoo_set_servers(zhandle_t* zh, const char* hosts);
ZOOAPI int zoo_set_servers_resolution_delay(zhandle_t* zh, int delay_ms);
ZOOAPI void zoo_cycle_next_server(zhandle_t* zh);
ZOOAPI const char* zoo_get_current_server(zhandle_t* zh);

/* Closes the session and frees the handle, from any thread (a completion or watcher included). Pending
 * completions are called with ZCLOSING first. */
ZOOAPI int zookeeper_close(zhandle_t* zh);

ZOOAPI const clientid_t* zoo_client_id(zhandle_t* zh);
ZOOAPI int zoo_recv_timeout(zhandle_t* zh);
ZOOAPI const void* zoo_get_context(zhandle_t* zh);
ZOOAPI void zoo_set_context(zhandle_t* zh, void* context);
ZOOAPI watcher_fn zoo_set_watcher(zhandle_t* zh, watcher_fn newFn);
ZOOAPI struct sockaddr* zookeeper_get_connected_host(zhandle_t* zh, struct sockaddr* addr, socklen_t* addr_len);

/* --- completions --- */

typedef void (*void_completion_t)(int rc, const void* data);
typedef void (*stat_completion_t)(int rc, const struct Stat* stat, const void* data);
typedef void (*data_completion_t)(int rc, const char* value, int value_len, const struct Stat* stat, const void* data);
typedef void (*strings_completion_t)(int rc, const struct String_vector* strings, const void* data);
typedef void (*string_stat_completion_t)(int rc, const char* string, const struct Stat* stat, const void* data);
typedef void (*strings_stat_completion_t)(int rc, const struct String_vector* strings, const struct Stat* stat,
                                          const void* data);
typedef void (*string_completion_t)(int rc, const char* value, const void* data);
typedef void (*acl_completion_t)(int rc, struct ACL_vector* acl, struct Stat* stat, const void* data);

ZOOAPI int zoo_state(zhandle_t* zh);

/* --- asynchronous operations: ZOK when started, the result goes to the completion --- */

ZOOAPI int zoo_acreate(zhandle_t* zh, const char* path, const char* value, int valuelen, const struct ACL_vector* acl,
                       int mode, string_completion_t completion, const void* data);
ZOOAPI int zoo_acreate_ttl(zhandle_t* zh, const char* path, const char* value, int valuelen,
                           const struct ACL_vector* acl, int mode, int64_t ttl, string_completion_t completion,
                           const void* data);
ZOOAPI int zoo_acreate2(zhandle_t* zh, const char* path, const char* value, int valuelen, const struct ACL_vector* acl,
                        int mode, string_stat_completion_t completion, const void* data);
ZOOAPI int zoo_acreate2_ttl(zhandle_t* zh, const char* path, const char* value, int valuelen,
                            const struct ACL_vector* acl, int mode, int64_t ttl, string_stat_completion_t completion,
                            const void* data);
ZOOAPI int zoo_adelete(zhandle_t* zh, const char* path, int version, void_completion_t completion, const void* data);
ZOOAPI int zoo_aexists(zhandle_t* zh, const char* path, int watch, stat_completion_t completion, const void* data);
ZOOAPI int zoo_awexists(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                        stat_completion_t completion, const void* data);
ZOOAPI int zoo_aget(zhandle_t* zh, const char* path, int watch, data_completion_t completion, const void* data);
ZOOAPI int zoo_awget(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                     data_completion_t completion, const void* data);
ZOOAPI int zoo_agetconfig(zhandle_t* zh, int watch, data_completion_t completion, const void* data);
ZOOAPI int zoo_awgetconfig(zhandle_t* zh, watcher_fn watcher, void* watcherCtx, data_completion_t completion,
                           const void* data);
ZOOAPI int zoo_areconfig(zhandle_t* zh, const char* joining, const char* leaving, const char* members, int64_t version,
                         data_completion_t dc, const void* data);
ZOOAPI int zoo_aset(zhandle_t* zh, const char* path, const char* buffer, int buflen, int version,
                    stat_completion_t completion, const void* data);
ZOOAPI int zoo_aget_children(zhandle_t* zh, const char* path, int watch, strings_completion_t completion,
                             const void* data);
ZOOAPI int zoo_awget_children(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                              strings_completion_t completion, const void* data);
ZOOAPI int zoo_aget_children2(zhandle_t* zh, const char* path, int watch, strings_stat_completion_t completion,
                              const void* data);
ZOOAPI int zoo_awget_children2(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                               strings_stat_completion_t completion, const void* data);
ZOOAPI int zoo_async(zhandle_t* zh, const char* path, string_completion_t completion, const void* data);
ZOOAPI int zoo_aget_acl(zhandle_t* zh, const char* path, acl_completion_t completion, const void* data);
ZOOAPI int zoo_aset_acl(zhandle_t* zh, const char* path, int version, struct ACL_vector* acl, void_completion_t,
                        const void* data);
ZOOAPI int zoo_amulti(zhandle_t* zh, int count, const zoo_op_t* ops, zoo_op_result_t* results, void_completion_t,
                      const void* data);

ZOOAPI const char* zerror(int c);
ZOOAPI int zoo_add_auth(zhandle_t* zh, const char* scheme, const char* cert, int certLen, void_completion_t completion,
                        const void* data);
ZOOAPI int is_unrecoverable(zhandle_t* zh);

/* --- logging --- */

ZOOAPI void zoo_set_debug_level(ZooLogLevel logLevel);
ZOOAPI void zoo_set_log_stream(FILE* logStream);
ZOOAPI log_callback_fn zoo_get_log_callback(const zhandle_t* zh);
ZOOAPI void zoo_set_log_callback(zhandle_t* zh, log_callback_fn callback);
ZOOAPI void zoo_deterministic_conn_order(int yesOrNo);

/* --- watch removal --- */

typedef enum { ZWATCHTYPE_CHILD = 1, ZWATCHTYPE_DATA = 2, ZWATCHTYPE_ANY = 3 } ZooWatcherType;

/* `completion` is the completion function itself, cast to this type (the C client declares it so). */
ZOOAPI int zoo_aremove_watches(zhandle_t* zh, const char* path, ZooWatcherType wtype, watcher_fn watcher,
                               void* watcherCtx, int local, void_completion_t* completion, const void* data);
ZOOAPI int zoo_remove_all_watches(zhandle_t* zh, const char* path, ZooWatcherType wtype, int local);
ZOOAPI int zoo_aremove_all_watches(zhandle_t* zh, const char* path, ZooWatcherType wtype, int local,
                                   void_completion_t* completion, const void* data);

/* --- synchronous operations: return the result code when the reply arrived --- */

ZOOAPI int zoo_create(zhandle_t* zh, const char* path, const char* value, int valuelen, const struct ACL_vector* acl,
                      int mode, char* path_buffer, int path_buffer_len);
ZOOAPI int zoo_create_ttl(zhandle_t* zh, const char* path, const char* value, int valuelen,
                          const struct ACL_vector* acl, int mode, int64_t ttl, char* path_buffer, int path_buffer_len);
ZOOAPI int zoo_create2(zhandle_t* zh, const char* path, const char* value, int valuelen, const struct ACL_vector* acl,
                       int mode, char* path_buffer, int path_buffer_len, struct Stat* stat);
ZOOAPI int zoo_create2_ttl(zhandle_t* zh, const char* path, const char* value, int valuelen,
                           const struct ACL_vector* acl, int mode, int64_t ttl, char* path_buffer, int path_buffer_len,
                           struct Stat* stat);
ZOOAPI int zoo_delete(zhandle_t* zh, const char* path, int version);
ZOOAPI int zoo_exists(zhandle_t* zh, const char* path, int watch, struct Stat* stat);
ZOOAPI int zoo_wexists(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx, struct Stat* stat);
/* `*buffer_len` is the buffer's size on entry and the bytes stored on return (data longer than the buffer is cut;
 * -1 for a node holding null data). */
ZOOAPI int zoo_get(zhandle_t* zh, const char* path, int watch, char* buffer, int* buffer_len, struct Stat* stat);
ZOOAPI int zoo_wget(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx, char* buffer,
                    int* buffer_len, struct Stat* stat);
ZOOAPI int zoo_getconfig(zhandle_t* zh, int watch, char* buffer, int* buffer_len, struct Stat* stat);
ZOOAPI int zoo_wgetconfig(zhandle_t* zh, watcher_fn watcher, void* watcherCtx, char* buffer, int* buffer_len,
                          struct Stat* stat);
ZOOAPI int zoo_reconfig(zhandle_t* zh, const char* joining, const char* leaving, const char* members, int64_t version,
                        char* buffer, int* buffer_len, struct Stat* stat);
ZOOAPI int zoo_set(zhandle_t* zh, const char* path, const char* buffer, int buflen, int version);
ZOOAPI int zoo_set2(zhandle_t* zh, const char* path, const char* buffer, int buflen, int version, struct Stat* stat);
/* The strings are the caller's to free with deallocate_String_vector. */
ZOOAPI int zoo_get_children(zhandle_t* zh, const char* path, int watch, struct String_vector* strings);
ZOOAPI int zoo_wget_children(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                             struct String_vector* strings);
ZOOAPI int zoo_get_children2(zhandle_t* zh, const char* path, int watch, struct String_vector* strings,
                             struct Stat* stat);
ZOOAPI int zoo_wget_children2(zhandle_t* zh, const char* path, watcher_fn watcher, void* watcherCtx,
                              struct String_vector* strings, struct Stat* stat);
/* The ACL is the caller's to free with deallocate_ACL_vector. */
ZOOAPI int zoo_get_acl(zhandle_t* zh, const char* path, struct ACL_vector* acl, struct Stat* stat);
ZOOAPI int zoo_set_acl(zhandle_t* zh, const char* path, int version, const struct ACL_vector* acl);
ZOOAPI int zoo_multi(zhandle_t* zh, int count, const zoo_op_t* ops, zoo_op_result_t* results);
ZOOAPI int zoo_remove_watches(zhandle_t* zh, const char* path, ZooWatcherType wtype, watcher_fn watcher,
                              void* watcherCtx, int local);

#ifdef __cplusplus
}
#endif

#endif /* ZKWIRE_ZOOKEEPER_H */
