// The data objects the C API exports: create modes, states, event types, permissions, the predefined ACLs and the
// log level. Programs linked against the C client take them by copy relocation, so each must have the C client's
// size exactly: this file is compiled without AddressSanitizer (capi/CMakeLists.txt), whose redzones would make
// every object larger and the loader would then refuse, or warn about, the program's copy.
#include "zookeeper.h"
#include "zookeeper_log.h"

extern "C" {

// The C client's default level.
ZooLogLevel logLevel = ZOO_LOG_LEVEL_INFO;

const int ZOO_PERM_READ = 1;
const int ZOO_PERM_WRITE = 2;
const int ZOO_PERM_CREATE = 4;
const int ZOO_PERM_DELETE = 8;
const int ZOO_PERM_ADMIN = 16;
const int ZOO_PERM_ALL = 31;

const int ZOOKEEPER_WRITE = 1;
const int ZOOKEEPER_READ = 2;

const int ZOO_PERSISTENT = 0;
const int ZOO_EPHEMERAL = 1;
const int ZOO_PERSISTENT_SEQUENTIAL = 2;
const int ZOO_EPHEMERAL_SEQUENTIAL = 3;
const int ZOO_CONTAINER = 4;
const int ZOO_PERSISTENT_WITH_TTL = 5;
const int ZOO_PERSISTENT_SEQUENTIAL_WITH_TTL = 6;
const int ZOO_SEQUENCE = 2;

const int ZOO_EXPIRED_SESSION_STATE = -112;
const int ZOO_AUTH_FAILED_STATE = -113;
const int ZOO_CONNECTING_STATE = 1;
const int ZOO_ASSOCIATING_STATE = 2;
const int ZOO_CONNECTED_STATE = 3;
const int ZOO_READONLY_STATE = 5;
// Exported by the C client although its header does not declare it.
ZOOAPI extern const int ZOO_SSL_CONNECTING_STATE;
const int ZOO_SSL_CONNECTING_STATE = 7;
const int ZOO_NOTCONNECTED_STATE = 999;

const int ZOO_CREATED_EVENT = 1;
const int ZOO_DELETED_EVENT = 2;
const int ZOO_CHANGED_EVENT = 3;
const int ZOO_CHILD_EVENT = 4;
const int ZOO_SESSION_EVENT = -1;
const int ZOO_NOTWATCHING_EVENT = -2;

}  // extern "C"

namespace {
// The C API types these as writable char*; the library never writes them.
char world_scheme[] = "world";
char anyone_id[] = "anyone";
char auth_scheme[] = "auth";
char empty_id[] = "";
struct ACL open_acl[] = {{31, {world_scheme, anyone_id}}};
struct ACL read_acl[] = {{1, {world_scheme, anyone_id}}};
struct ACL creator_all_acl[] = {{31, {auth_scheme, empty_id}}};
}  // namespace

extern "C" {

struct Id ZOO_ANYONE_ID_UNSAFE = {world_scheme, anyone_id};
struct Id ZOO_AUTH_IDS = {auth_scheme, empty_id};
struct ACL_vector ZOO_OPEN_ACL_UNSAFE = {1, open_acl};
struct ACL_vector ZOO_READ_ACL_UNSAFE = {1, read_acl};
struct ACL_vector ZOO_CREATOR_ALL_ACL = {1, creator_all_acl};

}  // extern "C"
