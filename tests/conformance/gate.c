/* The gate between a handle and the server (gate.h). One thread polls the listening socket and every connection;
 * the calls hand it a command and wait until it has run it. */
#define _GNU_SOURCE
#include "gate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "capi_test.h"

enum { max_connections = 32, handshake_capacity = 128 };

enum command { command_none, command_set, command_cut, command_hold, command_stop };

struct connection {
  int client;      /* -1: slot free */
  int upstream;    /* -1: nothing forwarded (silent, read-only) */
  int read_only;   /* answers the handshake itself */
  int holding;     /* the server's bytes are discarded */
  int answered;    /* read-only: the handshake was answered, the rest is discarded */
  size_t buffered; /* read-only: bytes of the first frame so far */
  char buffer[handshake_capacity];
};

struct ct_gate {
  pthread_t thread;
  pthread_mutex_t mutex;
  pthread_cond_t done;
  int wake[2];
  struct sockaddr_in upstream;
  struct sockaddr_in self;
  char address[32];
  int listener; /* listening (open, silent, read-only, blackhole) or bound without listening (refuse) */
  int filler;   /* blackhole: the connection that fills the accept queue, never accepted */
  enum ct_gate_mode mode;
  int accepted;
  enum command command;
  enum ct_gate_mode command_mode;
  struct connection connections[max_connections];
};

static int parse_address(const char* text, struct sockaddr_in* out) {
  char host[64];
  unsigned port = 0;
  if (sscanf(text, "%63[^:]:%u", host, &port) != 2 || port == 0 || port > 65535) return 0;
  memset(out, 0, sizeof *out);
  out->sin_family = AF_INET;
  out->sin_port = htons((uint16_t)port);
  return inet_pton(AF_INET, host, &out->sin_addr) == 1;
}

static void close_fd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

static void close_connection(struct connection* c) {
  close_fd(&c->client);
  close_fd(&c->upstream);
}

/* Writes all of `data` (the sockets block on writes: test traffic is small). 0 if the peer is gone. */
static int write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    data += n;
    size -= (size_t)n;
  }
  return 1;
}

/* The socket that holds the gate's port in `mode`. */
static int open_listener(struct ct_gate* gate, enum ct_gate_mode mode) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, (const struct sockaddr*)&gate->self, sizeof gate->self) != 0) {
    close(fd);
    return -1;
  }
  if (mode == CT_GATE_REFUSE) return fd;
  /* Backlog 0 holds one connection that is never accepted; the kernel drops the SYNs of any further one. */
  if (listen(fd, mode == CT_GATE_BLACKHOLE ? 0 : 16) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static void apply_mode(struct ct_gate* gate, enum ct_gate_mode mode) {
  close_fd(&gate->filler);
  close_fd(&gate->listener);
  gate->mode = mode;
  gate->listener = open_listener(gate, mode);
  if (gate->listener < 0) {
    ct_fail(__FILE__, __LINE__, "gate: cannot take port %d again: %s", ntohs(gate->self.sin_port), strerror(errno));
    return;
  }
  if (mode == CT_GATE_BLACKHOLE) {
    gate->filler = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (gate->filler < 0 || connect(gate->filler, (const struct sockaddr*)&gate->self, sizeof gate->self) != 0) {
      ct_fail(__FILE__, __LINE__, "gate: cannot fill the accept queue: %s", strerror(errno));
    }
  }
}

static void accept_connection(struct ct_gate* gate) {
  int fd = accept4(gate->listener, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0) return;
  pthread_mutex_lock(&gate->mutex);
  ++gate->accepted;
  pthread_mutex_unlock(&gate->mutex);
  struct connection* c = NULL;
  for (int i = 0; i < max_connections && c == NULL; ++i) {
    if (gate->connections[i].client < 0) c = &gate->connections[i];
  }
  if (c == NULL) {
    close(fd);
    return;
  }
  memset(c, 0, sizeof *c);
  c->client = fd;
  c->upstream = -1;
  c->read_only = gate->mode == CT_GATE_READ_ONLY;
  if (gate->mode != CT_GATE_OPEN) return;
  c->upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (c->upstream < 0 || connect(c->upstream, (const struct sockaddr*)&gate->upstream, sizeof gate->upstream) != 0) {
    close_connection(c);
  }
}

static void put_u32(char* out, uint32_t value) {
  uint32_t big = htonl(value);
  memcpy(out, &big, sizeof big);
}

/* The stand-in read-only server: `isro` gets "ro"; a whole ConnectRequest gets a read-only ConnectResponse. 0 once
 * the connection is to be closed. */
static int serve_read_only(struct connection* c) {
  if (c->answered) {
    c->buffered = 0;
    return 1;
  }
  if (c->buffered >= 4 && memcmp(c->buffer, "isro", 4) == 0) {
    write_all(c->client, "ro", 2);
    return 0;
  }
  if (c->buffered < 4) return 1;
  uint32_t length = 0;
  memcpy(&length, c->buffer, sizeof length);
  length = ntohl(length);
  if (length + 4 > handshake_capacity) return 0;
  if (c->buffered < length + 4) return 1;
  /* ConnectRequest: protocolVersion, lastZxidSeen, timeOut, sessionId, passwd, readOnly. */
  char timeout[4];
  memcpy(timeout, c->buffer + 4 + 4 + 8, sizeof timeout);
  /* ConnectResponse: protocolVersion 0, timeOut, sessionId, passwd (16 bytes), readOnly 1. */
  char reply[4 + 4 + 4 + 8 + 4 + 16 + 1] = {0};
  put_u32(reply, sizeof reply - 4);
  memcpy(reply + 8, timeout, sizeof timeout);
  put_u32(reply + 16, 0x7a6b);
  put_u32(reply + 20, 16);
  reply[sizeof reply - 1] = 1;
  c->answered = 1;
  c->buffered = 0;
  return write_all(c->client, reply, sizeof reply);
}

/* Bytes from the client. 0 once the connection is to be closed. */
static int from_client(struct connection* c) {
  char data[4096];
  char* into = c->read_only && !c->answered ? c->buffer + c->buffered : data;
  size_t room = c->read_only && !c->answered ? handshake_capacity - c->buffered : sizeof data;
  ssize_t n = recv(c->client, into, room, 0);
  if (n < 0 && errno == EINTR) return 1;
  if (n <= 0) return 0;
  if (c->read_only) {
    if (!c->answered) c->buffered += (size_t)n;
    return serve_read_only(c);
  }
  return c->upstream < 0 || write_all(c->upstream, data, (size_t)n);
}

/* Bytes from the server. 0 once the connection is to be closed. */
static int from_upstream(struct connection* c) {
  char data[4096];
  ssize_t n = recv(c->upstream, data, sizeof data, 0);
  if (n < 0 && errno == EINTR) return 1;
  if (n <= 0) return 0;
  return c->holding || write_all(c->client, data, (size_t)n);
}

/* Runs the pending command; 0 after command_stop. */
static int run_command(struct ct_gate* gate) {
  char byte;
  while (read(gate->wake[0], &byte, 1) > 0) {
  }
  pthread_mutex_lock(&gate->mutex);
  enum command command = gate->command;
  switch (command) {
    case command_set:
      apply_mode(gate, gate->command_mode);
      break;
    case command_cut:
      for (int i = 0; i < max_connections; ++i) close_connection(&gate->connections[i]);
      break;
    case command_hold:
      for (int i = 0; i < max_connections; ++i) gate->connections[i].holding = 1;
      break;
    case command_stop:
      for (int i = 0; i < max_connections; ++i) close_connection(&gate->connections[i]);
      close_fd(&gate->filler);
      close_fd(&gate->listener);
      break;
    case command_none:
      break;
  }
  gate->command = command_none;
  pthread_cond_broadcast(&gate->done);
  pthread_mutex_unlock(&gate->mutex);
  return command != command_stop;
}

static void* gate_thread(void* arg) {
  struct ct_gate* gate = arg;
  for (;;) {
    struct pollfd fds[2 + 2 * max_connections];
    struct connection* owners[2 + 2 * max_connections];
    nfds_t count = 0;
    fds[count++] = (struct pollfd){.fd = gate->wake[0], .events = POLLIN};
    if (gate->listener >= 0 && gate->mode != CT_GATE_REFUSE && gate->mode != CT_GATE_BLACKHOLE) {
      fds[count++] = (struct pollfd){.fd = gate->listener, .events = POLLIN};
    }
    nfds_t first_connection = count;
    for (int i = 0; i < max_connections; ++i) {
      struct connection* c = &gate->connections[i];
      if (c->client < 0) continue;
      owners[count] = c;
      fds[count++] = (struct pollfd){.fd = c->client, .events = POLLIN};
      if (c->upstream >= 0) {
        owners[count] = c;
        fds[count++] = (struct pollfd){.fd = c->upstream, .events = POLLIN};
      }
    }
    if (poll(fds, count, -1) < 0) continue;
    if (fds[0].revents != 0) {
      if (!run_command(gate)) return NULL;
      continue; /* the sockets may have changed */
    }
    if (first_connection == 2 && fds[1].revents != 0) accept_connection(gate);
    for (nfds_t i = first_connection; i < count; ++i) {
      struct connection* c = owners[i];
      if (fds[i].revents == 0 || c->client < 0) continue;
      int keep = fds[i].fd == c->client ? from_client(c) : from_upstream(c);
      if (!keep) close_connection(c);
    }
  }
}

static void run(struct ct_gate* gate, enum command command, enum ct_gate_mode mode) {
  pthread_mutex_lock(&gate->mutex);
  gate->command = command;
  gate->command_mode = mode;
  char byte = 1;
  if (write(gate->wake[1], &byte, 1) != 1) ct_fail(__FILE__, __LINE__, "gate: wake-up: %s", strerror(errno));
  while (gate->command != command_none) pthread_cond_wait(&gate->done, &gate->mutex);
  pthread_mutex_unlock(&gate->mutex);
}

struct ct_gate* ct_gate_start(const char* upstream) {
  struct ct_gate* gate = calloc(1, sizeof *gate);
  if (gate == NULL || !parse_address(upstream, &gate->upstream)) {
    ct_fail(__FILE__, __LINE__, "gate: bad upstream %s", upstream);
    free(gate);
    return NULL;
  }
  for (int i = 0; i < max_connections; ++i) gate->connections[i].client = gate->connections[i].upstream = -1;
  gate->filler = -1;
  gate->mode = CT_GATE_OPEN;
  gate->self.sin_family = AF_INET;
  gate->self.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  gate->listener = open_listener(gate, CT_GATE_OPEN);
  socklen_t length = sizeof gate->self;
  if (gate->listener < 0 || getsockname(gate->listener, (struct sockaddr*)&gate->self, &length) != 0 ||
      pipe2(gate->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    ct_fail(__FILE__, __LINE__, "gate: cannot listen: %s", strerror(errno));
    close_fd(&gate->listener);
    free(gate);
    return NULL;
  }
  snprintf(gate->address, sizeof gate->address, "127.0.0.1:%d", ntohs(gate->self.sin_port));
  pthread_mutex_init(&gate->mutex, NULL);
  pthread_cond_init(&gate->done, NULL);
  pthread_create(&gate->thread, NULL, gate_thread, gate);
  return gate;
}

const char* ct_gate_address(const struct ct_gate* gate) { return gate->address; }

void ct_gate_set(struct ct_gate* gate, enum ct_gate_mode mode) { run(gate, command_set, mode); }

void ct_gate_cut(struct ct_gate* gate) { run(gate, command_cut, gate->mode); }

void ct_gate_hold_replies(struct ct_gate* gate) { run(gate, command_hold, gate->mode); }

int ct_gate_accepted(struct ct_gate* gate) {
  pthread_mutex_lock(&gate->mutex);
  int accepted = gate->accepted;
  pthread_mutex_unlock(&gate->mutex);
  return accepted;
}

void ct_gate_stop(struct ct_gate* gate) {
  if (gate == NULL) return;
  run(gate, command_stop, gate->mode);
  pthread_join(gate->thread, NULL);
  close(gate->wake[0]);
  close(gate->wake[1]);
  pthread_cond_destroy(&gate->done);
  pthread_mutex_destroy(&gate->mutex);
  free(gate);
}
