// Linked into ZooKeeper's C client test programs with -Wl,--wrap=zookeeper_init,--wrap=zookeeper_init2, so that
// their calls reach these functions first. The suites name fixed ports in their host strings: 22181 for the
// server they start, 22182 for one where nothing listens. Here the server listens on a free port the runner chose
// (several runs share the machine), so each `:22181` becomes `:$ZKWIRE_CCLIENT_PORT` and each `:22182`
// `:$ZKWIRE_CCLIENT_CLOSED_PORT` before the library's own function (__real_*) gets the string. Host names, order,
// chroot suffix and every other argument are passed on unchanged. tests/cclient/README.md has the whole harness.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zookeeper.h>

zhandle_t* __real_zookeeper_init(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                 void* context, int flags);
zhandle_t* __real_zookeeper_init2(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                  void* context, int flags, log_callback_fn log_callback);
zhandle_t* __wrap_zookeeper_init(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                 void* context, int flags);
zhandle_t* __wrap_zookeeper_init2(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                  void* context, int flags, log_callback_fn log_callback);

// The port an environment variable names; the run cannot go on without it.
static const char* port_from(const char* variable) {
  const char* port = getenv(variable);
  if (port == NULL || *port == '\0' || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5) {
    fprintf(stderr, "hosts_wrap: %s must name a port (set by tests/cclient/run_suites.py)\n", variable);
    abort();
  }
  return port;
}

// A port ends at the end of the string, at the next host (',') or at the chroot ('/').
static int port_ends_at(const char* p) { return *p == '\0' || *p == ',' || *p == '/'; }

// `host` with the suites' fixed ports replaced; malloc'd (the caller frees it), NULL if host is NULL.
static char* mapped_hosts(const char* host) {
  if (host == NULL) return NULL;
  const char* server = port_from("ZKWIRE_CCLIENT_PORT");
  const char* closed = port_from("ZKWIRE_CCLIENT_CLOSED_PORT");
  // Each 6-character ":2218x" becomes at most 6 characters (a colon and five digits).
  char* out = malloc(strlen(host) + 1);
  if (out == NULL) abort();
  char* w = out;
  for (const char* r = host; *r != '\0';) {
    const char* port = NULL;
    if (strncmp(r, ":22181", 6) == 0 && port_ends_at(r + 6)) port = server;
    if (strncmp(r, ":22182", 6) == 0 && port_ends_at(r + 6)) port = closed;
    if (port != NULL) {
      *w++ = ':';
      w = stpcpy(w, port);
      r += 6;
    } else {
      *w++ = *r++;
    }
  }
  *w = '\0';
  return out;
}

zhandle_t* __wrap_zookeeper_init(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                 void* context, int flags) {
  char* hosts = mapped_hosts(host);
  zhandle_t* zh = __real_zookeeper_init(hosts, fn, recv_timeout, clientid, context, flags);
  free(hosts);
  return zh;
}

zhandle_t* __wrap_zookeeper_init2(const char* host, watcher_fn fn, int recv_timeout, const clientid_t* clientid,
                                  void* context, int flags, log_callback_fn log_callback) {
  char* hosts = mapped_hosts(host);
  zhandle_t* zh = __real_zookeeper_init2(hosts, fn, recv_timeout, clientid, context, flags, log_callback);
  free(hosts);
  return zh;
}
