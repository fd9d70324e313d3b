/* A gate between a handle and the server, inside the test program, so that a program can take the server away in
 * the ways a network does and measure what the library does meanwhile (connection_down.c). It listens on
 * 127.0.0.1 and, depending on its mode, forwards each connection to the real server or stands in for a server
 * that is away:
 *
 *   CT_GATE_OPEN        forward new connections to the upstream server, both ways
 *   CT_GATE_REFUSE      nothing listens: the port is held by a bound socket that does not listen, so a connect is
 *                       refused at once (ECONNREFUSED), as for a stopped server
 *   CT_GATE_BLACKHOLE   a connect never completes: the listening socket's accept queue (backlog 0) is kept full,
 *                       so the kernel drops the SYNs, as for a host that is down or filtered
 *   CT_GATE_SILENT      connections are accepted and what arrives is discarded, never answered, as for a server
 *                       whose process hangs (its kernel still accepts)
 *   CT_GATE_READ_ONLY   a stand-in read-only server: it answers the ConnectRequest with a ConnectResponse whose
 *                       readOnly byte is set (session id 0x7a6b, timeout as asked), answers `isro` with "ro", and
 *                       discards everything else
 *
 * A mode applies to connections made after ct_gate_set returned. Connections already open keep forwarding until
 * ct_gate_cut closes them; ct_gate_hold_replies stops forwarding the server's bytes on them (requests reach the
 * server, their replies do not come back). Every call returns once the gate's thread has applied it.
 *
 * Thread safety: the calls may come from any thread; one gate per ct_gate_start. */
#ifndef ZKWIRE_TESTS_CAPI_GATE_H
#define ZKWIRE_TESTS_CAPI_GATE_H

enum ct_gate_mode { CT_GATE_OPEN, CT_GATE_REFUSE, CT_GATE_BLACKHOLE, CT_GATE_SILENT, CT_GATE_READ_ONLY };

struct ct_gate;

/* Starts a gate in mode CT_GATE_OPEN in front of `upstream` ("127.0.0.1:port", the first host of a connect
 * string is taken); NULL (with a recorded failure) if it cannot. */
struct ct_gate* ct_gate_start(const char* upstream);
/* "127.0.0.1:<port>": the connect string of the gate; the port stays the same in every mode. */
const char* ct_gate_address(const struct ct_gate* gate);
void ct_gate_set(struct ct_gate* gate, enum ct_gate_mode mode);
/* Closes every open connection (the client sees the end of the stream). */
void ct_gate_cut(struct ct_gate* gate);
/* Stops forwarding the server's bytes on the connections open now; they are discarded. */
void ct_gate_hold_replies(struct ct_gate* gate);
/* Connections the gate accepted so far (connection attempts that reached it in the open, silent and read-only
 * modes). */
int ct_gate_accepted(struct ct_gate* gate);
/* Closes everything and frees the gate. */
void ct_gate_stop(struct ct_gate* gate);

#endif
