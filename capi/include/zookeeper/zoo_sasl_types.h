/* The part of Cyrus SASL's <sasl/sasl.h> that zookeeper_init_sasl's declarations and their callbacks use, with
 * Cyrus SASL's layouts and values, for programs built where libsasl2-dev is not installed (zookeeper.h includes
 * <sasl/sasl.h> instead where it is). Only what a SASL_CB_USER / AUTHNAME / PASS / GETREALM callback needs. */
#ifndef ZKWIRE_ZOO_SASL_TYPES_H
#define ZKWIRE_ZOO_SASL_TYPES_H

typedef struct sasl_conn sasl_conn_t;

typedef struct sasl_callback {
  unsigned long id;  /* SASL_CB_* */
  int (*proc)(void); /* the callback, cast to its type below */
  void* context;
} sasl_callback_t;

typedef struct sasl_secret {
  unsigned long len;
  unsigned char data[1]; /* len bytes (and a terminating NUL by convention) */
} sasl_secret_t;

/* SASL_CB_USER, SASL_CB_AUTHNAME */
typedef int sasl_getsimple_t(void* context, int id, const char** result, unsigned* len);
/* SASL_CB_PASS */
typedef int sasl_getsecret_t(sasl_conn_t* conn, void* context, int id, sasl_secret_t** psecret);
/* SASL_CB_GETREALM */
typedef int sasl_getrealm_t(void* context, int id, const char** availrealms, const char** result);

#define SASL_OK 0
#define SASL_CONTINUE 1
#define SASL_FAIL (-1)
#define SASL_NOMEM (-2)
#define SASL_NOMECH (-4)
#define SASL_BADPARAM (-7)

#define SASL_CB_LIST_END 0
#define SASL_CB_USER 0x4001
#define SASL_CB_AUTHNAME 0x4002
#define SASL_CB_LANGUAGE 0x4003
#define SASL_CB_PASS 0x4004
#define SASL_CB_ECHOPROMPT 0x4005
#define SASL_CB_NOECHOPROMPT 0x4006
#define SASL_CB_GETREALM 0x4008

#endif
