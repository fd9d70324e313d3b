/* zkwire's libzookeeper_mt: the byte buffer record type and the string/buffer helpers of ZooKeeper's C API. */
#ifndef ZKWIRE_RECORDIO_H
#define ZKWIRE_RECORDIO_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of a record: `buff` is malloc'ed, `len` -1 for null data. */
struct buffer {
  int32_t len;
  char* buff;
};

/* Free what the library allocated into a record and reset the pointer. */
void deallocate_String(char** s);
void deallocate_Buffer(struct buffer* b);

/* 64-bit host to network byte order. */
int64_t zoo_htonll(int64_t v);

#ifdef __cplusplus
}
#endif

#endif /* ZKWIRE_RECORDIO_H */
