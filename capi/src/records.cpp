// The record helpers the C API exports (allocate_*/deallocate_* of every record of zookeeper.jute.h), zerror and
// zoo_htonll. Its data objects are in data_objects.cpp.
// Everything a deallocate_* function frees was malloc'ed, by this library or by the application.
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "zookeeper.h"

extern "C" {

ZOOAPI void deallocate_String(char** s) {
  if (s == nullptr) return;
  std::free(*s);
  *s = nullptr;
}

ZOOAPI void deallocate_Buffer(struct buffer* b) {
  if (b == nullptr) return;
  std::free(b->buff);
  b->buff = nullptr;
}

ZOOAPI int64_t zoo_htonll(int64_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    return static_cast<int64_t>(__builtin_bswap64(static_cast<std::uint64_t>(v)));
  }
  return v;
}

// A vector record: count elements at data, each freed with `free_element` (a statement on v->data[i]). A macro
// because it defines exported C functions whose names are the record's: no template can name an extern symbol.
// NOLINTBEGIN(cppcoreguidelines-macro-usage,bugprone-macro-parentheses)
#define ZKWIRE_CAPI_VECTOR(name, free_element)                                                                      \
  ZOOAPI int allocate_##name(struct name* v, int32_t len) {                                                         \
    if (v == nullptr) return 0;                                                                                     \
    v->count = len;                                                                                                 \
    v->data = len > 0 ? static_cast<decltype(v->data)>(std::calloc(static_cast<std::size_t>(len), sizeof *v->data)) \
                      : nullptr;                                                                                    \
    return 0;                                                                                                       \
  }                                                                                                                 \
  ZOOAPI int deallocate_##name(struct name* v) {                                                                    \
    if (v == nullptr) return 0;                                                                                     \
    if (v->data != nullptr) {                                                                                       \
      for (int32_t i = 0; i < v->count; ++i) free_element                                                           \
    }                                                                                                               \
    std::free(v->data);                                                                                             \
    v->data = nullptr;                                                                                              \
    v->count = 0;                                                                                                   \
    return 0;                                                                                                       \
  }
// NOLINTEND(cppcoreguidelines-macro-usage,bugprone-macro-parentheses)

ZOOAPI void deallocate_Id(struct Id* v) {
  deallocate_String(&v->scheme);
  deallocate_String(&v->id);
}
ZOOAPI void deallocate_ACL(struct ACL* v) { deallocate_Id(&v->id); }
ZOOAPI void deallocate_Stat(struct Stat* /*v*/) {}
ZOOAPI void deallocate_StatPersisted(struct StatPersisted* /*v*/) {}
ZOOAPI void deallocate_ClientInfo(struct ClientInfo* v) {
  deallocate_String(&v->authScheme);
  deallocate_String(&v->user);
}
ZOOAPI void deallocate_ConnectRequest(struct ConnectRequest* v) { deallocate_Buffer(&v->passwd); }
ZOOAPI void deallocate_ConnectResponse(struct ConnectResponse* v) { deallocate_Buffer(&v->passwd); }
ZKWIRE_CAPI_VECTOR(String_vector, deallocate_String(&v->data[i]);)
ZOOAPI void deallocate_SetWatches(struct SetWatches* v) {
  deallocate_String_vector(&v->dataWatches);
  deallocate_String_vector(&v->existWatches);
  deallocate_String_vector(&v->childWatches);
}
ZOOAPI void deallocate_SetWatches2(struct SetWatches2* v) {
  deallocate_String_vector(&v->dataWatches);
  deallocate_String_vector(&v->existWatches);
  deallocate_String_vector(&v->childWatches);
  deallocate_String_vector(&v->persistentWatches);
  deallocate_String_vector(&v->persistentRecursiveWatches);
}
ZOOAPI void deallocate_RequestHeader(struct RequestHeader* /*v*/) {}
ZOOAPI void deallocate_MultiHeader(struct MultiHeader* /*v*/) {}
ZOOAPI void deallocate_AuthPacket(struct AuthPacket* v) {
  deallocate_String(&v->scheme);
  deallocate_Buffer(&v->auth);
}
ZOOAPI void deallocate_ReplyHeader(struct ReplyHeader* /*v*/) {}
ZOOAPI void deallocate_GetDataRequest(struct GetDataRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_SetDataRequest(struct SetDataRequest* v) {
  deallocate_String(&v->path);
  deallocate_Buffer(&v->data);
}
ZOOAPI void deallocate_ReconfigRequest(struct ReconfigRequest* v) {
  deallocate_String(&v->joiningServers);
  deallocate_String(&v->leavingServers);
  deallocate_String(&v->newMembers);
}
ZOOAPI void deallocate_SetDataResponse(struct SetDataResponse* v) { deallocate_Stat(&v->stat); }
ZOOAPI void deallocate_GetSASLRequest(struct GetSASLRequest* v) { deallocate_Buffer(&v->token); }
ZOOAPI void deallocate_SetSASLRequest(struct SetSASLRequest* v) { deallocate_Buffer(&v->token); }
ZOOAPI void deallocate_SetSASLResponse(struct SetSASLResponse* v) { deallocate_Buffer(&v->token); }
ZKWIRE_CAPI_VECTOR(ACL_vector, deallocate_ACL(&v->data[i]);)
ZOOAPI void deallocate_CreateRequest(struct CreateRequest* v) {
  deallocate_String(&v->path);
  deallocate_Buffer(&v->data);
  deallocate_ACL_vector(&v->acl);
}
ZOOAPI void deallocate_CreateTTLRequest(struct CreateTTLRequest* v) {
  deallocate_String(&v->path);
  deallocate_Buffer(&v->data);
  deallocate_ACL_vector(&v->acl);
}
ZOOAPI void deallocate_DeleteRequest(struct DeleteRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_GetChildrenRequest(struct GetChildrenRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_GetAllChildrenNumberRequest(struct GetAllChildrenNumberRequest* v) {
  deallocate_String(&v->path);
}
ZOOAPI void deallocate_GetChildren2Request(struct GetChildren2Request* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_CheckVersionRequest(struct CheckVersionRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_GetMaxChildrenRequest(struct GetMaxChildrenRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_GetMaxChildrenResponse(struct GetMaxChildrenResponse* /*v*/) {}
ZOOAPI void deallocate_SetMaxChildrenRequest(struct SetMaxChildrenRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_SyncRequest(struct SyncRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_SyncResponse(struct SyncResponse* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_GetACLRequest(struct GetACLRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_SetACLRequest(struct SetACLRequest* v) {
  deallocate_String(&v->path);
  deallocate_ACL_vector(&v->acl);
}
ZOOAPI void deallocate_SetACLResponse(struct SetACLResponse* v) { deallocate_Stat(&v->stat); }
ZOOAPI void deallocate_AddWatchRequest(struct AddWatchRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_WatcherEvent(struct WatcherEvent* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_ErrorResponse(struct ErrorResponse* /*v*/) {}
ZOOAPI void deallocate_CreateResponse(struct CreateResponse* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_Create2Response(struct Create2Response* v) {
  deallocate_String(&v->path);
  deallocate_Stat(&v->stat);
}
ZOOAPI void deallocate_ExistsRequest(struct ExistsRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_ExistsResponse(struct ExistsResponse* v) { deallocate_Stat(&v->stat); }
ZOOAPI void deallocate_GetDataResponse(struct GetDataResponse* v) {
  deallocate_Buffer(&v->data);
  deallocate_Stat(&v->stat);
}
ZOOAPI void deallocate_GetChildrenResponse(struct GetChildrenResponse* v) { deallocate_String_vector(&v->children); }
ZOOAPI void deallocate_GetAllChildrenNumberResponse(struct GetAllChildrenNumberResponse* /*v*/) {}
ZOOAPI void deallocate_GetChildren2Response(struct GetChildren2Response* v) {
  deallocate_String_vector(&v->children);
  deallocate_Stat(&v->stat);
}
ZOOAPI void deallocate_GetACLResponse(struct GetACLResponse* v) {
  deallocate_ACL_vector(&v->acl);
  deallocate_Stat(&v->stat);
}
ZOOAPI void deallocate_CheckWatchesRequest(struct CheckWatchesRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_RemoveWatchesRequest(struct RemoveWatchesRequest* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_GetEphemeralsRequest(struct GetEphemeralsRequest* v) { deallocate_String(&v->prefixPath); }
ZOOAPI void deallocate_GetEphemeralsResponse(struct GetEphemeralsResponse* v) {
  deallocate_String_vector(&v->ephemerals);
}
ZKWIRE_CAPI_VECTOR(ClientInfo_vector, deallocate_ClientInfo(&v->data[i]);)
ZOOAPI void deallocate_WhoAmIResponse(struct WhoAmIResponse* v) { deallocate_ClientInfo_vector(&v->clientInfo); }
ZOOAPI void deallocate_LearnerInfo(struct LearnerInfo* /*v*/) {}
ZKWIRE_CAPI_VECTOR(Id_vector, deallocate_Id(&v->data[i]);)
ZOOAPI void deallocate_QuorumPacket(struct QuorumPacket* v) {
  deallocate_Buffer(&v->data);
  deallocate_Id_vector(&v->authinfo);
}
ZOOAPI void deallocate_QuorumAuthPacket(struct QuorumAuthPacket* v) { deallocate_Buffer(&v->token); }
ZOOAPI void deallocate_FileHeader(struct FileHeader* /*v*/) {}
ZOOAPI void deallocate_TxnDigest(struct TxnDigest* /*v*/) {}
ZOOAPI void deallocate_TxnHeader(struct TxnHeader* /*v*/) {}
ZOOAPI void deallocate_CreateTxnV0(struct CreateTxnV0* v) {
  deallocate_String(&v->path);
  deallocate_Buffer(&v->data);
  deallocate_ACL_vector(&v->acl);
}
ZOOAPI void deallocate_CreateTxn(struct CreateTxn* v) {
  deallocate_String(&v->path);
  deallocate_Buffer(&v->data);
  deallocate_ACL_vector(&v->acl);
}
ZOOAPI void deallocate_CreateTTLTxn(struct CreateTTLTxn* v) {
  deallocate_String(&v->path);
  deallocate_Buffer(&v->data);
  deallocate_ACL_vector(&v->acl);
}
ZOOAPI void deallocate_CreateContainerTxn(struct CreateContainerTxn* v) {
  deallocate_String(&v->path);
  deallocate_Buffer(&v->data);
  deallocate_ACL_vector(&v->acl);
}
ZOOAPI void deallocate_DeleteTxn(struct DeleteTxn* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_SetDataTxn(struct SetDataTxn* v) {
  deallocate_String(&v->path);
  deallocate_Buffer(&v->data);
}
ZOOAPI void deallocate_CheckVersionTxn(struct CheckVersionTxn* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_SetACLTxn(struct SetACLTxn* v) {
  deallocate_String(&v->path);
  deallocate_ACL_vector(&v->acl);
}
ZOOAPI void deallocate_SetMaxChildrenTxn(struct SetMaxChildrenTxn* v) { deallocate_String(&v->path); }
ZOOAPI void deallocate_CreateSessionTxn(struct CreateSessionTxn* /*v*/) {}
ZOOAPI void deallocate_CloseSessionTxn(struct CloseSessionTxn* v) { deallocate_String_vector(&v->paths2Delete); }
ZOOAPI void deallocate_ErrorTxn(struct ErrorTxn* /*v*/) {}
ZOOAPI void deallocate_Txn(struct Txn* v) { deallocate_Buffer(&v->data); }
ZKWIRE_CAPI_VECTOR(Txn_vector, deallocate_Txn(&v->data[i]);)
ZOOAPI void deallocate_MultiTxn(struct MultiTxn* v) { deallocate_Txn_vector(&v->txns); }

#undef ZKWIRE_CAPI_VECTOR

}  // extern "C"
