/* zkwire's libzookeeper_mt implements the C API of ZooKeeper 3.8.0. */
#ifndef ZKWIRE_ZOOKEEPER_VERSION_H
#define ZKWIRE_ZOOKEEPER_VERSION_H

#define ZOO_VERSION "3.8.0"

#endif /* ZKWIRE_ZOOKEEPER_VERSION_H */
