/* zkwire's libzookeeper_mt: operation codes of the wire protocol, as numbered by ZooKeeper's C API (zoo_op_t's
 * `type` takes ZOO_CREATE_OP, ZOO_DELETE_OP, ZOO_SETDATA_OP and ZOO_CHECK_OP). */
#ifndef ZKWIRE_ZOOKEEPER_PROTO_H
#define ZKWIRE_ZOOKEEPER_PROTO_H

#define ZOO_NOTIFY_OP 0
#define ZOO_CREATE_OP 1
#define ZOO_DELETE_OP 2
#define ZOO_EXISTS_OP 3
#define ZOO_GETDATA_OP 4
#define ZOO_SETDATA_OP 5
#define ZOO_GETACL_OP 6
#define ZOO_SETACL_OP 7
#define ZOO_GETCHILDREN_OP 8
#define ZOO_SYNC_OP 9
#define ZOO_PING_OP 11
#define ZOO_GETCHILDREN2_OP 12
#define ZOO_CHECK_OP 13
#define ZOO_MULTI_OP 14
#define ZOO_CREATE2_OP 15
#define ZOO_RECONFIG_OP 16
#define ZOO_CHECK_WATCHES 17
#define ZOO_REMOVE_WATCHES 18
#define ZOO_CREATE_CONTAINER_OP 19
#define ZOO_DELETE_CONTAINER_OP 20
#define ZOO_CREATE_TTL_OP 21
#define ZOO_CLOSE_OP -11
#define ZOO_SETAUTH_OP 100
#define ZOO_SETWATCHES_OP 101
#define ZOO_SASL_OP 102

#endif /* ZKWIRE_ZOOKEEPER_PROTO_H */
