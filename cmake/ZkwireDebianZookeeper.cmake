# Debian's ZooKeeper C client (libzookeeper-mt-dev, see scripts/setup), found in one place for everything that
# compares with it or guards against loading it by accident (tests/capi, tests/conformance, bench/):
#   ZKWIRE_DEBIAN_ZOOKEEPER_INCLUDE_DIR  the directory holding zookeeper/zookeeper.h
#   ZKWIRE_DEBIAN_ZOOKEEPER_MT_LIBRARY   libzookeeper_mt
#   ZKWIRE_DEBIAN_ZOOKEEPER_FOUND        both found
# Each user decides what a missing package means there (under CI: an error).
find_path(ZKWIRE_DEBIAN_ZOOKEEPER_INCLUDE_DIR zookeeper/zookeeper.h)
find_library(ZKWIRE_DEBIAN_ZOOKEEPER_MT_LIBRARY zookeeper_mt)
if(ZKWIRE_DEBIAN_ZOOKEEPER_INCLUDE_DIR AND ZKWIRE_DEBIAN_ZOOKEEPER_MT_LIBRARY)
  set(ZKWIRE_DEBIAN_ZOOKEEPER_FOUND TRUE)
else()
  set(ZKWIRE_DEBIAN_ZOOKEEPER_FOUND FALSE)
endif()
