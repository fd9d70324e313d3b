/* zkwire's libzookeeper_mt: the records of ZooKeeper's C API, with the member names, types and order of the 3.8
 * C client's, so that structures a program passes to or receives from the library have the same layout
 * (tests/capi checks sizes and offsets against Debian's header). Only the deallocate_* and allocate_* helpers are
 * exported, as by Debian's library; the record (de)serializers are not. */
#ifndef ZKWIRE_ZOOKEEPER_JUTE_H
#define ZKWIRE_ZOOKEEPER_JUTE_H

#include "recordio.h"

#ifdef __cplusplus
extern "C" {
#endif

struct Id {
  char* scheme;
  char* id;
};
void deallocate_Id(struct Id* v);

struct ACL {
  int32_t perms;
  struct Id id;
};
void deallocate_ACL(struct ACL* v);

struct Stat {
  int64_t czxid;
  int64_t mzxid;
  int64_t ctime;
  int64_t mtime;
  int32_t version;
  int32_t cversion;
  int32_t aversion;
  int64_t ephemeralOwner;
  int32_t dataLength;
  int32_t numChildren;
  int64_t pzxid;
};
void deallocate_Stat(struct Stat* v);

struct StatPersisted {
  int64_t czxid;
  int64_t mzxid;
  int64_t ctime;
  int64_t mtime;
  int32_t version;
  int32_t cversion;
  int32_t aversion;
  int64_t ephemeralOwner;
  int64_t pzxid;
};
void deallocate_StatPersisted(struct StatPersisted* v);

struct ClientInfo {
  char* authScheme;
  char* user;
};
void deallocate_ClientInfo(struct ClientInfo* v);

struct ConnectRequest {
  int32_t protocolVersion;
  int64_t lastZxidSeen;
  int32_t timeOut;
  int64_t sessionId;
  struct buffer passwd;
};
void deallocate_ConnectRequest(struct ConnectRequest* v);

struct ConnectResponse {
  int32_t protocolVersion;
  int32_t timeOut;
  int64_t sessionId;
  struct buffer passwd;
};
void deallocate_ConnectResponse(struct ConnectResponse* v);

struct String_vector {
  int32_t count;
  char** data;
};
int allocate_String_vector(struct String_vector* v, int32_t len);
int deallocate_String_vector(struct String_vector* v);

struct SetWatches {
  int64_t relativeZxid;
  struct String_vector dataWatches;
  struct String_vector existWatches;
  struct String_vector childWatches;
};
void deallocate_SetWatches(struct SetWatches* v);

struct SetWatches2 {
  int64_t relativeZxid;
  struct String_vector dataWatches;
  struct String_vector existWatches;
  struct String_vector childWatches;
  struct String_vector persistentWatches;
  struct String_vector persistentRecursiveWatches;
};
void deallocate_SetWatches2(struct SetWatches2* v);

struct RequestHeader {
  int32_t xid;
  int32_t type;
};
void deallocate_RequestHeader(struct RequestHeader* v);

struct MultiHeader {
  int32_t type;
  int32_t done;
  int32_t err;
};
void deallocate_MultiHeader(struct MultiHeader* v);

struct AuthPacket {
  int32_t type;
  char* scheme;
  struct buffer auth;
};
void deallocate_AuthPacket(struct AuthPacket* v);

struct ReplyHeader {
  int32_t xid;
  int64_t zxid;
  int32_t err;
};
void deallocate_ReplyHeader(struct ReplyHeader* v);

struct GetDataRequest {
  char* path;
  int32_t watch;
};
void deallocate_GetDataRequest(struct GetDataRequest* v);

struct SetDataRequest {
  char* path;
  struct buffer data;
  int32_t version;
};
void deallocate_SetDataRequest(struct SetDataRequest* v);

struct ReconfigRequest {
  char* joiningServers;
  char* leavingServers;
  char* newMembers;
  int64_t curConfigId;
};
void deallocate_ReconfigRequest(struct ReconfigRequest* v);

struct SetDataResponse {
  struct Stat stat;
};
void deallocate_SetDataResponse(struct SetDataResponse* v);

struct GetSASLRequest {
  struct buffer token;
};
void deallocate_GetSASLRequest(struct GetSASLRequest* v);

struct SetSASLRequest {
  struct buffer token;
};
void deallocate_SetSASLRequest(struct SetSASLRequest* v);

struct SetSASLResponse {
  struct buffer token;
};
void deallocate_SetSASLResponse(struct SetSASLResponse* v);

struct ACL_vector {
  int32_t count;
  struct ACL* data;
};
int allocate_ACL_vector(struct ACL_vector* v, int32_t len);
int deallocate_ACL_vector(struct ACL_vector* v);

struct CreateRequest {
  char* path;
  struct buffer data;
  struct ACL_vector acl;
  int32_t flags;
};
void deallocate_CreateRequest(struct CreateRequest* v);

struct CreateTTLRequest {
  char* path;
  struct buffer data;
  struct ACL_vector acl;
  int32_t flags;
  int64_t ttl;
};
void deallocate_CreateTTLRequest(struct CreateTTLRequest* v);

struct DeleteRequest {
  char* path;
  int32_t version;
};
void deallocate_DeleteRequest(struct DeleteRequest* v);

struct GetChildrenRequest {
  char* path;
  int32_t watch;
};
void deallocate_GetChildrenRequest(struct GetChildrenRequest* v);

struct GetAllChildrenNumberRequest {
  char* path;
};
void deallocate_GetAllChildrenNumberRequest(struct GetAllChildrenNumberRequest* v);

struct GetChildren2Request {
  char* path;
  int32_t watch;
};
void deallocate_GetChildren2Request(struct GetChildren2Request* v);

struct CheckVersionRequest {
  char* path;
  int32_t version;
};
void deallocate_CheckVersionRequest(struct CheckVersionRequest* v);

struct GetMaxChildrenRequest {
  char* path;
};
void deallocate_GetMaxChildrenRequest(struct GetMaxChildrenRequest* v);

struct GetMaxChildrenResponse {
  int32_t max;
};
void deallocate_GetMaxChildrenResponse(struct GetMaxChildrenResponse* v);

struct SetMaxChildrenRequest {
  char* path;
  int32_t max;
};
void deallocate_SetMaxChildrenRequest(struct SetMaxChildrenRequest* v);

struct SyncRequest {
  char* path;
};
void deallocate_SyncRequest(struct SyncRequest* v);

struct SyncResponse {
  char* path;
};
void deallocate_SyncResponse(struct SyncResponse* v);

struct GetACLRequest {
  char* path;
};
void deallocate_GetACLRequest(struct GetACLRequest* v);

struct SetACLRequest {
  char* path;
  struct ACL_vector acl;
  int32_t version;
};
void deallocate_SetACLRequest(struct SetACLRequest* v);

struct SetACLResponse {
  struct Stat stat;
};
void deallocate_SetACLResponse(struct SetACLResponse* v);

struct AddWatchRequest {
  char* path;
  int32_t mode;
};
void deallocate_AddWatchRequest(struct AddWatchRequest* v);

struct WatcherEvent {
  int32_t type;
  int32_t state;
  char* path;
};
void deallocate_WatcherEvent(struct WatcherEvent* v);

struct ErrorResponse {
  int32_t err;
};
void deallocate_ErrorResponse(struct ErrorResponse* v);

struct CreateResponse {
  char* path;
};
void deallocate_CreateResponse(struct CreateResponse* v);

struct Create2Response {
  char* path;
  struct Stat stat;
};
void deallocate_Create2Response(struct Create2Response* v);

struct ExistsRequest {
  char* path;
  int32_t watch;
};
void deallocate_ExistsRequest(struct ExistsRequest* v);

struct ExistsResponse {
  struct Stat stat;
};
void deallocate_ExistsResponse(struct ExistsResponse* v);

struct GetDataResponse {
  struct buffer data;
  struct Stat stat;
};
void deallocate_GetDataResponse(struct GetDataResponse* v);

struct GetChildrenResponse {
  struct String_vector children;
};
void deallocate_GetChildrenResponse(struct GetChildrenResponse* v);

struct GetAllChildrenNumberResponse {
  int32_t totalNumber;
};
void deallocate_GetAllChildrenNumberResponse(struct GetAllChildrenNumberResponse* v);

struct GetChildren2Response {
  struct String_vector children;
  struct Stat stat;
};
void deallocate_GetChildren2Response(struct GetChildren2Response* v);

struct GetACLResponse {
  struct ACL_vector acl;
  struct Stat stat;
};
void deallocate_GetACLResponse(struct GetACLResponse* v);

struct CheckWatchesRequest {
  char* path;
  int32_t type;
};
void deallocate_CheckWatchesRequest(struct CheckWatchesRequest* v);

struct RemoveWatchesRequest {
  char* path;
  int32_t type;
};
void deallocate_RemoveWatchesRequest(struct RemoveWatchesRequest* v);

struct GetEphemeralsRequest {
  char* prefixPath;
};
void deallocate_GetEphemeralsRequest(struct GetEphemeralsRequest* v);

struct GetEphemeralsResponse {
  struct String_vector ephemerals;
};
void deallocate_GetEphemeralsResponse(struct GetEphemeralsResponse* v);

struct ClientInfo_vector {
  int32_t count;
  struct ClientInfo* data;
};
int allocate_ClientInfo_vector(struct ClientInfo_vector* v, int32_t len);
int deallocate_ClientInfo_vector(struct ClientInfo_vector* v);

struct WhoAmIResponse {
  struct ClientInfo_vector clientInfo;
};
void deallocate_WhoAmIResponse(struct WhoAmIResponse* v);

struct LearnerInfo {
  int64_t serverid;
  int32_t protocolVersion;
  int64_t configVersion;
};
void deallocate_LearnerInfo(struct LearnerInfo* v);

struct Id_vector {
  int32_t count;
  struct Id* data;
};
int allocate_Id_vector(struct Id_vector* v, int32_t len);
int deallocate_Id_vector(struct Id_vector* v);

struct QuorumPacket {
  int32_t type;
  int64_t zxid;
  struct buffer data;
  struct Id_vector authinfo;
};
void deallocate_QuorumPacket(struct QuorumPacket* v);

struct QuorumAuthPacket {
  int64_t magic;
  int32_t status;
  struct buffer token;
};
void deallocate_QuorumAuthPacket(struct QuorumAuthPacket* v);

struct FileHeader {
  int32_t magic;
  int32_t version;
  int64_t dbid;
};
void deallocate_FileHeader(struct FileHeader* v);

struct TxnDigest {
  int32_t version;
  int64_t treeDigest;
};
void deallocate_TxnDigest(struct TxnDigest* v);

struct TxnHeader {
  int64_t clientId;
  int32_t cxid;
  int64_t zxid;
  int64_t time;
  int32_t type;
};
void deallocate_TxnHeader(struct TxnHeader* v);

struct CreateTxnV0 {
  char* path;
  struct buffer data;
  struct ACL_vector acl;
  int32_t ephemeral;
};
void deallocate_CreateTxnV0(struct CreateTxnV0* v);

struct CreateTxn {
  char* path;
  struct buffer data;
  struct ACL_vector acl;
  int32_t ephemeral;
  int32_t parentCVersion;
};
void deallocate_CreateTxn(struct CreateTxn* v);

struct CreateTTLTxn {
  char* path;
  struct buffer data;
  struct ACL_vector acl;
  int32_t parentCVersion;
  int64_t ttl;
};
void deallocate_CreateTTLTxn(struct CreateTTLTxn* v);

struct CreateContainerTxn {
  char* path;
  struct buffer data;
  struct ACL_vector acl;
  int32_t parentCVersion;
};
void deallocate_CreateContainerTxn(struct CreateContainerTxn* v);

struct DeleteTxn {
  char* path;
};
void deallocate_DeleteTxn(struct DeleteTxn* v);

struct SetDataTxn {
  char* path;
  struct buffer data;
  int32_t version;
};
void deallocate_SetDataTxn(struct SetDataTxn* v);

struct CheckVersionTxn {
  char* path;
  int32_t version;
};
void deallocate_CheckVersionTxn(struct CheckVersionTxn* v);

struct SetACLTxn {
  char* path;
  struct ACL_vector acl;
  int32_t version;
};
void deallocate_SetACLTxn(struct SetACLTxn* v);

struct SetMaxChildrenTxn {
  char* path;
  int32_t max;
};
void deallocate_SetMaxChildrenTxn(struct SetMaxChildrenTxn* v);

struct CreateSessionTxn {
  int32_t timeOut;
};
void deallocate_CreateSessionTxn(struct CreateSessionTxn* v);

struct CloseSessionTxn {
  struct String_vector paths2Delete;
};
void deallocate_CloseSessionTxn(struct CloseSessionTxn* v);

struct ErrorTxn {
  int32_t err;
};
void deallocate_ErrorTxn(struct ErrorTxn* v);

struct Txn {
  int32_t type;
  struct buffer data;
};
void deallocate_Txn(struct Txn* v);

struct Txn_vector {
  int32_t count;
  struct Txn* data;
};
int allocate_Txn_vector(struct Txn_vector* v, int32_t len);
int deallocate_Txn_vector(struct Txn_vector* v);

struct MultiTxn {
  struct Txn_vector txns;
};
void deallocate_MultiTxn(struct MultiTxn* v);

#ifdef __cplusplus
}
#endif

#endif /* ZKWIRE_ZOOKEEPER_JUTE_H */
