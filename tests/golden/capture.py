#!/usr/bin/python3
"""Capture golden ZooKeeper wire frames from real clients talking to a real server.

Run with Debian's interpreter (it has python3-kazoo):

    /usr/bin/python3 tests/golden/capture.py            # all scenarios
    /usr/bin/python3 tests/golden/capture.py -s kazoo_read -s java_multi
    /usr/bin/python3 tests/golden/capture.py --list
    /usr/bin/python3 tests/golden/capture.py --check    # re-decode data/*.frames only

What it does:
  1. starts its own standalone ZooKeeper 3.8 (Debian package) on a free loopback port,
     in a fresh temporary directory;
  2. for every scenario, starts a recording TCP proxy on another free loopback port and
     points a real client (Kazoo 2.8, or the ZooKeeper Java client through GoldenJava.java)
     at the proxy;
  3. writes every frame seen by the proxy to data/<scenario>.frames (format: README.md);
  4. stops everything it started (server, Java clients, proxies) and removes the temp dir.

Only the standard library and kazoo are used. The frame annotations (the "#" lines)
come from the small decoder at the bottom of this file; the C/S bytes themselves are
exactly what the clients and the server sent.
"""

import argparse
import base64
import hashlib
import datetime
import logging
import os
import queue
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
ZK_JAR = "/usr/share/java/zookeeper.jar"
SLF4J = "/usr/share/java/slf4j-simple.jar"

log = logging.getLogger("capture")


# --------------------------------------------------------------------------------------
# Recording
# --------------------------------------------------------------------------------------

class Recorder:
    """Timeline of one scenario: frames, connection events and driver notes."""

    def __init__(self):
        self.lock = threading.Lock()
        self.events = []

    def add(self, *ev):
        with self.lock:
            self.events.append(ev)

    def note(self, text):
        self.add("note", text)

    def frames(self):
        with self.lock:
            return [e for e in self.events if e[0] == "frame"]


class Proxy:
    """Loopback TCP proxy that records length-prefixed frames in both directions.

    A frame is recorded (complete, without its 4-byte length) before the bytes that
    complete it are forwarded, so a reply can never be recorded before its request.
    """

    def __init__(self, rec, upstream_port):
        self.rec = rec
        self.upstream = ("127.0.0.1", upstream_port)
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(16)
        self.lsock.settimeout(0.2)
        self.port = self.lsock.getsockname()[1]
        self.gate = threading.Event()
        self.gate.set()
        self.refusing = False
        self.conns = {}            # id -> dict(client=sock, server=sock, closed=bool, cut=bool)
        self.next_id = 1
        self.lock = threading.Lock()
        self.stopping = False
        self.threads = []
        t = threading.Thread(target=self._accept_loop, name="proxy-accept", daemon=True)
        t.start()
        self.threads.append(t)

    def _accept_loop(self):
        while not self.stopping:
            try:
                csock, _ = self.lsock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            csock.settimeout(None)
            if self.refusing:
                self.rec.add("refused")
                csock.close()
                continue
            with self.lock:
                cid = self.next_id
                self.next_id += 1
                c = {"client": csock, "server": None, "closed": False, "cut": False}
                self.conns[cid] = c
            t = threading.Thread(target=self._serve, args=(cid, c), name="proxy-%d" % cid,
                                 daemon=True)
            t.start()
            self.threads.append(t)

    def _serve(self, cid, c):
        held = not self.gate.is_set()
        self.rec.add("open", cid, held)
        self.gate.wait()
        if self.stopping or c["closed"]:
            self._close(cid, c, None)
            return
        try:
            ssock = socket.create_connection(self.upstream, timeout=10)
            ssock.settimeout(None)
        except OSError as e:
            self._close(cid, c, "proxy could not reach the server: %s" % e)
            return
        c["server"] = ssock
        for sock in (c["client"], ssock):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        t = threading.Thread(target=self._pump, args=(cid, c, "S"), name="pump-S-%d" % cid,
                             daemon=True)
        t.start()
        self.threads.append(t)
        self._pump(cid, c, "C")

    def _pump(self, cid, c, d):
        src, dst = (c["client"], c["server"]) if d == "C" else (c["server"], c["client"])
        who = "client" if d == "C" else "server"
        buf = b""
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = None
            if not data:
                if buf:
                    self.rec.add("note", "%d trailing %s bytes that never formed a frame: %s"
                                 % (len(buf), who, buf.hex()))
                self._close(cid, c, "%s closed the connection" % who if data is not None
                            else "%s side reset" % who)
                return
            buf += data
            while len(buf) >= 4:
                n = struct.unpack(">i", buf[:4])[0]
                if n < 0 or len(buf) < 4 + n:
                    break
                self.rec.add("frame", cid, d, buf[4:4 + n])
                buf = buf[4 + n:]
            try:
                dst.sendall(data)
            except OSError:
                self._close(cid, c, "forwarding to %s failed" % ("server" if d == "C" else "client"))
                return

    def _close(self, cid, c, why):
        with self.lock:
            if c["closed"]:
                return
            c["closed"] = True
            cut = c["cut"]
        if why and not cut:
            self.rec.add("close", cid, why)
        for k in ("client", "server"):
            s = c[k]
            if s is not None:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def cut(self, hold=True, refuse=False):
        """Drop every live connection (both sides).

        hold: new connections are accepted but wait (unforwarded) until release().
        refuse: new connections are accepted and closed at once until release().
        """
        if hold:
            self.gate.clear()
        if refuse:
            self.refusing = True
        with self.lock:
            live = [(cid, c) for cid, c in self.conns.items() if not c["closed"]]
            for _, c in live:
                c["cut"] = True
        for cid, c in live:
            self.rec.add("close", cid, "proxy cut the connection (client and server side)")
            self._close(cid, c, None)

    def release(self):
        self.refusing = False
        self.gate.set()

    def stop(self):
        self.stopping = True
        self.gate.set()
        try:
            self.lsock.close()
        except OSError:
            pass
        with self.lock:
            live = list(self.conns.items())
        for cid, c in live:
            self._close(cid, c, "proxy stopped (capture finished)")
        for t in self.threads:
            t.join(timeout=5)


# --------------------------------------------------------------------------------------
# Server
# --------------------------------------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def four_letter(port, word, timeout=2.0):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(word.encode())
        out = b""
        while True:
            d = s.recv(4096)
            if not d:
                return out.decode(errors="replace")
            out += d


SERVER_JAAS = """Server {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_bob="secret";
};
"""

CLIENT_JAAS = """Client {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    username="bob"
    password="secret";
};
"""


# super:golden, only for the unrecorded helper session that cleans /g between scenarios
SUPER_DIGEST = "super:" + base64.b64encode(hashlib.sha1(b"super:golden").digest()).decode()


class Server:
    def __init__(self, tmp):
        self.tmp = tmp
        self.port = free_port()
        self.proc = None
        self.version = "?"

    def start(self):
        data = os.path.join(self.tmp, "data")
        os.makedirs(data)
        cfg = os.path.join(self.tmp, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write("\n".join([
                "tickTime=200",
                "dataDir=" + data,
                "clientPort=%d" % self.port,
                "clientPortAddress=127.0.0.1",
                "minSessionTimeout=400",
                "maxSessionTimeout=60000",
                "maxClientCnxns=0",
                "admin.enableServer=false",
                "4lw.commands.whitelist=*",
                "forceSync=no",
                "preAllocSize=1024",
                "snapCount=100000",
                "globalOutstandingLimit=1000",
                "skipACL=no",
                "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
                "",
            ]))
        jaas = os.path.join(self.tmp, "server.jaas")
        with open(jaas, "w") as f:
            f.write(SERVER_JAAS)
        self.cmd = ["java", "-Xmx256m",
                    "-Dzookeeper.extendedTypesEnabled=true",
                    "-Djava.security.auth.login.config=" + jaas,
                    "-Dzookeeper.DigestAuthenticationProvider.superDigest=" + SUPER_DIGEST,
                    "-cp", ZK_JAR + ":" + SLF4J,
                    "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg]
        self.logf = open(os.path.join(self.tmp, "server.log"), "wb")
        self.proc = subprocess.Popen(self.cmd, stdout=self.logf, stderr=subprocess.STDOUT,
                                     cwd=self.tmp, start_new_session=True)
        log.info("server pid %d on 127.0.0.1:%d", self.proc.pid, self.port)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("ZooKeeper exited early; see %s/server.log" % self.tmp)
            try:
                out = four_letter(self.port, "srvr")
                if "Mode: standalone" in out:
                    for line in out.splitlines():
                        if line.startswith("Zookeeper version:"):
                            # Debian's build reports "3.8.0-${mvngit.commit.id}, built on ..."
                            self.version = line.split(":", 1)[1].strip().split("-")[0]
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("ZooKeeper did not come up")

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()          # SIGTERM to the PID we started
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.logf.close()
        log.info("server stopped (rc %s)", self.proc.returncode)
        self.proc = None


# --------------------------------------------------------------------------------------
# Scenario plumbing
# --------------------------------------------------------------------------------------

class Ctx:
    def __init__(self, name, rec, proxy, server, helper, tmp):
        self.name = name
        self.rec = rec
        self.proxy = proxy
        self.server = server
        self.helper = helper          # Kazoo client connected straight to the server (not recorded)
        self.tmp = tmp
        self.hosts = "127.0.0.1:%d" % proxy.port
        self.client_desc = None

    def note(self, text):
        self.rec.note(text)


SCENARIOS = {}


def scenario(client, desc):
    def deco(fn):
        name = fn.__name__[len("sc_"):]
        SCENARIOS[name] = (fn, client, desc)
        return fn
    return deco


def kazoo_client(ctx, **kw):
    from kazoo.client import KazooClient
    kw.setdefault("timeout", 10.0)
    hosts = kw.pop("hosts", ctx.hosts)
    return KazooClient(hosts=hosts, **kw)


def wait_q(q, what, timeout=15):
    try:
        return q.get(timeout=timeout)
    except queue.Empty:
        raise RuntimeError("timed out waiting for " + what)


def expect_exc(exc_type, fn, *a, **kw):
    try:
        fn(*a, **kw)
    except exc_type as e:
        return e
    raise RuntimeError("expected %s from %s%r" % (exc_type.__name__, fn.__name__, a))


# --------------------------------------------------------------------------------------
# Kazoo scenarios
# --------------------------------------------------------------------------------------

KAZOO = "kazoo"


@scenario(KAZOO, "handshake and idle pings (session timeout 1000 ms), closeSession")
def sc_kazoo_handshake_ping(ctx):
    zk = kazoo_client(ctx, timeout=1.0)
    ctx.note("KazooClient(timeout=1.0).start(): ConnectRequest asks 1000 ms")
    zk.start()
    ctx.note("idle for 1.6 s: Kazoo pings (xid -2, op 11) about every read_timeout/2 minus jitter")
    time.sleep(1.6)
    ctx.note("stop(): closeSession (op -11)")
    zk.stop()
    zk.close()


@scenario(KAZOO, "handshake with readOnly=true in the ConnectRequest (server is read-write: readOnly=false back)")
def sc_kazoo_handshake_ro(ctx):
    zk = kazoo_client(ctx, read_only=True)
    ctx.note("KazooClient(read_only=True).start(): ConnectRequest readOnly byte 1")
    zk.start()
    ctx.note("getData /g")
    zk.get("/g")
    ctx.note("stop(): closeSession")
    zk.stop()
    zk.close()


@scenario(KAZOO, "create (op 1) in all plain modes incl. null and empty data, create2 (op 15), create errors")
def sc_kazoo_create(ctx):
    from kazoo.exceptions import (NodeExistsError, NoNodeError, NoChildrenForEphemeralsError,
                                  InvalidACLError, BadArgumentsError)
    from kazoo.security import ACL, Id
    zk = kazoo_client(ctx)
    ctx.note("connect")
    zk.start()
    ctx.note("create /g/a 'x' persistent")
    zk.create("/g/a", b"x")
    ctx.note("create /g/n value=None (null data, buffer length -1)")
    zk.create("/g/n", None)
    ctx.note("create /g/m value=b'' (empty data)")
    zk.create("/g/m", b"")
    ctx.note("create /g/e ephemeral")
    zk.create("/g/e", b"e", ephemeral=True)
    ctx.note("create /g/s- sequence")
    zk.create("/g/s-", b"s", sequence=True)
    ctx.note("create /g/es- ephemeral+sequence")
    zk.create("/g/es-", b"t", ephemeral=True, sequence=True)
    ctx.note("create /g/c2 include_data=True (create2, reply has Stat)")
    zk.create("/g/c2", b"c2", include_data=True)
    ctx.note("create /g/q- sequence include_data=True (create2)")
    zk.create("/g/q-", b"", sequence=True, include_data=True)
    ctx.note("create /g/a again: NODEEXISTS")
    expect_exc(NodeExistsError, zk.create, "/g/a", b"x")
    ctx.note("create /g/no/x: NONODE (missing parent)")
    expect_exc(NoNodeError, zk.create, "/g/no/x", b"x")
    ctx.note("create /g/e/x: NOCHILDRENFOREPHEMERALS")
    expect_exc(NoChildrenForEphemeralsError, zk.create, "/g/e/x", b"x")
    ctx.note("create '/g/b\\x01' (control character in the path): BADARGUMENTS")
    expect_exc(BadArgumentsError, zk.create, "/g/b\x01", b"")
    ctx.note("create /g/i with ACL auth:'' and no credentials: INVALIDACL (Kazoo sends the empty id as a null string)")
    expect_exc(InvalidACLError, zk.create, "/g/i", b"", acl=[ACL(31, Id("auth", ""))])
    ctx.note("stop(): closeSession")
    zk.stop()
    zk.close()


@scenario(KAZOO, "exists / getData / getChildren / getChildren2 / sync without watches, NONODE replies")
def sc_kazoo_read(ctx):
    from kazoo.exceptions import NoNodeError
    h = ctx.helper
    h.create("/g/a", b"hello")
    h.create("/g/e", b"")
    h.create("/g/n", None)
    h.create("/g/a/c1", b"1")
    h.create("/g/a/c2", b"2")
    zk = kazoo_client(ctx)
    ctx.note("connect")
    zk.start()
    ctx.note("exists /g/a watch=false")
    zk.exists("/g/a")
    ctx.note("exists /g/nope watch=false: NONODE, no body")
    zk.exists("/g/nope")
    ctx.note("getData /g/a ('hello')")
    zk.get("/g/a")
    ctx.note("getData /g/e (empty data)")
    zk.get("/g/e")
    ctx.note("getData /g/n (null data: length -1)")
    zk.get("/g/n")
    ctx.note("getData /g/nope: NONODE")
    expect_exc(NoNodeError, zk.get, "/g/nope")
    ctx.note("getChildren /g/a")
    zk.get_children("/g/a")
    ctx.note("getChildren2 /g/a (include_data=True)")
    zk.get_children("/g/a", include_data=True)
    ctx.note("getChildren /g/e (no children: empty vector)")
    zk.get_children("/g/e")
    ctx.note("getChildren /g/nope: NONODE")
    expect_exc(NoNodeError, zk.get_children, "/g/nope")
    ctx.note("sync /g/a")
    zk.sync("/g/a")
    ctx.note("stop(): closeSession")
    zk.stop()
    zk.close()


@scenario(KAZOO, "setData and delete incl. BADVERSION, NONODE, NOTEMPTY")
def sc_kazoo_write(ctx):
    from kazoo.exceptions import BadVersionError, NoNodeError, NotEmptyError, BadArgumentsError
    h = ctx.helper
    h.create("/g/a", b"v0")
    h.create("/g/p", b"")
    h.create("/g/p/k", b"")
    zk = kazoo_client(ctx)
    ctx.note("connect")
    zk.start()
    ctx.note("setData /g/a 'v1' version -1")
    zk.set("/g/a", b"v1")
    ctx.note("setData /g/a 'v2' version 1")
    zk.set("/g/a", b"v2", version=1)
    ctx.note("setData /g/a version 7: BADVERSION")
    expect_exc(BadVersionError, zk.set, "/g/a", b"v3", version=7)
    ctx.note("setData /g/nope: NONODE")
    expect_exc(NoNodeError, zk.set, "/g/nope", b"x")
    ctx.note("setData /g/a null data")
    zk.set("/g/a", None)
    ctx.note("delete /g/p: NOTEMPTY")
    expect_exc(NotEmptyError, zk.delete, "/g/p")
    ctx.note("delete /g/a version 9: BADVERSION")
    expect_exc(BadVersionError, zk.delete, "/g/a", version=9)
    ctx.note("delete /g/a version 3")
    zk.delete("/g/a", version=3)
    ctx.note("delete /g/nope: NONODE")
    expect_exc(NoNodeError, zk.delete, "/g/nope")
    ctx.note("delete /zookeeper: BADARGUMENTS")
    expect_exc(BadArgumentsError, zk.delete, "/zookeeper")
    ctx.note("stop(): closeSession")
    zk.stop()
    zk.close()


@scenario(KAZOO, "digest auth (xid -4), create with digest ACLs, getACL/setACL, NOAUTH, BADVERSION on setACL")
def sc_kazoo_acl_auth(ctx):
    from kazoo.exceptions import BadVersionError, NoAuthError
    from kazoo.security import make_digest_acl, make_acl, OPEN_ACL_UNSAFE
    zk = kazoo_client(ctx)
    ctx.note("connect")
    zk.start()
    ctx.note("auth digest bob:secret (AuthPacket xid -4, op 100)")
    zk.add_auth("digest", "bob:secret")
    bob_all = make_digest_acl("bob", "secret", all=True)
    world_read = make_acl("world", "anyone", read=True)
    ctx.note("create /g/s ACL [digest bob ALL, world:anyone READ]")
    zk.create("/g/s", b"s", acl=[bob_all, world_read])
    ctx.note("getACL /g/s")
    zk.get_acls("/g/s")
    ctx.note("setACL /g/s [digest bob READ|WRITE|ADMIN] version 0")
    zk.set_acls("/g/s", [make_digest_acl("bob", "secret", read=True, write=True, admin=True)], version=0)
    ctx.note("getACL /g/s (aversion 1)")
    zk.get_acls("/g/s")
    ctx.note("setACL /g/s version 5: BADVERSION")
    expect_exc(BadVersionError, zk.set_acls, "/g/s", OPEN_ACL_UNSAFE, version=5)
    ctx.note("create /g/cr ACL [auth:'' ALL] (CREATOR_ALL; Kazoo sends the empty id as null)")
    zk.create("/g/cr", b"", acl=[make_acl("auth", "", all=True)])
    ctx.note("getACL /g/cr (expanded to digest bob)")
    zk.get_acls("/g/cr")
    ctx.note("create /g/o ACL [digest eve ALL] then getData /g/o: NOAUTH")
    zk.create("/g/o", b"o", acl=[make_digest_acl("eve", "pw", all=True)])
    expect_exc(NoAuthError, zk.get, "/g/o")
    ctx.note("getACL /g/o: NOAUTH (needs READ or ADMIN)")
    try:
        zk.get_acls("/g/o")
    except NoAuthError:
        pass
    ctx.note("stop(): closeSession")
    zk.stop()
    zk.close()


@scenario(KAZOO, "auth with an unknown scheme: AUTHFAILED, server closes; Kazoo reconnects, re-sends it, gives up")
def sc_kazoo_auth_failed(ctx):
    from kazoo.exceptions import AuthFailedError
    zk = kazoo_client(ctx)
    ctx.note("connect")
    zk.start()
    ctx.note("auth scheme 'bogus' (xid -4): AUTHFAILED then the server closes the socket")
    try:
        zk.add_auth("bogus", "x")
    except AuthFailedError:
        pass
    time.sleep(2.0)
    ctx.note("client stop/close (nothing more on the wire expected)")
    try:
        zk.stop()
    finally:
        zk.close()


@scenario(KAZOO, "one-shot watches and notifications (xid -1): NodeCreated/NodeDataChanged/NodeChildrenChanged/NodeDeleted")
def sc_kazoo_watches(ctx):
    h = ctx.helper
    h.create("/g/a", b"a")
    h.create("/g/b", b"b")
    h.create("/g/c", b"")
    h.create("/g/d", b"d")
    zk = kazoo_client(ctx)
    ctx.note("connect")
    zk.start()
    q = queue.Queue()

    def w(ev):
        q.put(ev)

    ctx.note("exists /g/x watch=true: NONODE (exist watch armed)")
    zk.exists("/g/x", watch=w)
    ctx.note("create /g/x: NodeCreated /g/x arrives before the create reply")
    zk.create("/g/x", b"x")
    wait_q(q, "NodeCreated")
    ctx.note("getData /g/a watch=true")
    zk.get("/g/a", watch=w)
    ctx.note("setData /g/a: NodeDataChanged /g/a")
    zk.set("/g/a", b"a2")
    wait_q(q, "NodeDataChanged")
    ctx.note("getData /g/a watch=true again; another session sets /g/a: lone NodeDataChanged notification")
    zk.get("/g/a", watch=w)
    h.set("/g/a", b"a3")
    wait_q(q, "NodeDataChanged (other session)")
    ctx.note("getChildren /g/c watch=true")
    zk.get_children("/g/c", watch=w)
    ctx.note("create /g/c/1: NodeChildrenChanged /g/c")
    zk.create("/g/c/1", b"")
    wait_q(q, "NodeChildrenChanged")
    ctx.note("exists /g/b watch=true (node exists: data watch)")
    zk.exists("/g/b", watch=w)
    ctx.note("delete /g/b: NodeDeleted /g/b")
    zk.delete("/g/b")
    wait_q(q, "NodeDeleted (exists)")
    ctx.note("getData /g/d watch=true; getChildren2 /g/d watch=true")
    zk.get("/g/d", watch=w)
    zk.get_children("/g/d", watch=w, include_data=True)
    ctx.note("delete /g/d: one NodeDeleted /g/d (server sends one notification for data+child watch)")
    zk.delete("/g/d")
    wait_q(q, "NodeDeleted (getData)")
    ctx.note("getChildren2 /g/c watch=true; delete /g/c/1: NodeChildrenChanged /g/c")
    zk.get_children("/g/c", watch=w, include_data=True)
    zk.delete("/g/c/1")
    wait_q(q, "NodeChildrenChanged (delete)")
    time.sleep(0.3)
    ctx.note("stop(): closeSession")
    zk.stop()
    zk.close()


@scenario(KAZOO, "multi (op 14): success with create/setData/check/delete, two failed multis with per-op error results")
def sc_kazoo_multi(ctx):
    ctx.helper.create("/g/a", b"a")
    zk = kazoo_client(ctx)
    ctx.note("connect")
    zk.start()
    ctx.note("multi OK: create /g/t '1', setData /g/a 'b', check /g/a v1, delete /g/t")
    t = zk.transaction()
    t.create("/g/t", b"1")
    t.set_data("/g/a", b"b")
    t.check("/g/a", 1)
    t.delete("/g/t")
    res = t.commit()
    log.info("multi ok: %r", res)
    ctx.note("multi FAILS at op 2: create /g/u, check /g/a v9 (BADVERSION), setData /g/a")
    t = zk.transaction()
    t.create("/g/u", b"u")
    t.check("/g/a", 9)
    t.set_data("/g/a", b"c")
    res = t.commit()
    log.info("multi fail: %r", res)
    ctx.note("multi FAILS at op 1: delete /g/nope (NONODE), create /g/v")
    t = zk.transaction()
    t.delete("/g/nope")
    t.create("/g/v", b"")
    res = t.commit()
    log.info("multi fail: %r", res)
    ctx.note("stop(): closeSession")
    zk.stop()
    zk.close()


@scenario(KAZOO, "session resume after the proxy cuts the connection (ConnectRequest with sessionId/passwd/lastZxidSeen); Kazoo 2.8 does not send SetWatches")
def sc_kazoo_reconnect(ctx):
    from kazoo.protocol.states import KazooState
    ctx.helper.create("/g/a", b"a")
    zk = kazoo_client(ctx)
    states = queue.Queue()
    zk.add_listener(lambda s: states.put(s))
    ctx.note("connect")
    zk.start()
    wait_q(states, "CONNECTED")
    q = queue.Queue()
    ctx.note("getData /g/a watch=true")
    zk.get("/g/a", watch=lambda ev: q.put(ev))
    ctx.note("proxy cuts the connection; Kazoo reconnects and resumes the session")
    ctx.proxy.cut(hold=True)
    while wait_q(states, "SUSPENDED") != KazooState.SUSPENDED:
        pass
    ctx.proxy.release()
    while wait_q(states, "CONNECTED again") != KazooState.CONNECTED:
        pass
    time.sleep(0.3)
    ctx.note("another session sets /g/a: no notification, Kazoo 2.8 did not re-arm the watch")
    ctx.helper.set("/g/a", b"b")
    time.sleep(0.5)
    ctx.note("getData /g/a on the resumed connection")
    zk.get("/g/a")
    ctx.note("stop(): closeSession")
    zk.stop()
    zk.close()


@scenario(KAZOO, "session expiry seen at reconnect: resume attempt answered with timeOut=0/sessionId=0, then a new session")
def sc_kazoo_session_expired(ctx):
    from kazoo.protocol.states import KazooState
    zk = kazoo_client(ctx, timeout=1.0,
                      connection_retry=dict(max_tries=-1, delay=0.2, backoff=1, max_jitter=0.1))
    states = queue.Queue()
    zk.add_listener(lambda s: states.put(s))
    ctx.note("KazooClient(timeout=1.0): connect")
    zk.start()
    wait_q(states, "CONNECTED")
    ctx.note("create /g/e ephemeral")
    zk.create("/g/e", b"e", ephemeral=True)
    ctx.note("proxy cuts the connection and refuses new ones for 3 s (> session timeout): the server expires the session")
    ctx.proxy.cut(hold=False, refuse=True)
    while wait_q(states, "SUSPENDED") != KazooState.SUSPENDED:
        pass
    time.sleep(3.0)
    ctx.note("proxy accepts again: resume attempt gets the 'invalid session' ConnectResponse and the server closes; Kazoo reports LOST and opens a new session")
    ctx.proxy.release()
    while wait_q(states, "LOST") != KazooState.LOST:
        pass
    while wait_q(states, "CONNECTED (new session)") != KazooState.CONNECTED:
        pass
    ctx.note("exists /g/e on the new session: NONODE (the ephemeral went with the old session)")
    zk.exists("/g/e")
    ctx.note("stop(): closeSession")
    zk.stop()
    zk.close()


@scenario(KAZOO, "chroot /g: paths on the wire carry the chroot, events too")
def sc_kazoo_chroot(ctx):
    zk = kazoo_client(ctx, hosts=ctx.hosts + "/g")
    ctx.note("KazooClient(hosts='127.0.0.1:PORT/g'): connect")
    zk.start()
    q = queue.Queue()
    ctx.note("create /a (wire: /g/a; reply path /g/a)")
    zk.create("/a", b"a")
    ctx.note("create /s- sequence (wire: /g/s-)")
    zk.create("/s-", b"", sequence=True)
    ctx.note("getData /a watch=true (wire /g/a)")
    zk.get("/a", watch=lambda ev: q.put(ev))
    ctx.note("setData /a: NodeDataChanged with server path /g/a")
    zk.set("/a", b"b")
    wait_q(q, "NodeDataChanged")
    ctx.note("getChildren / (wire: /g)")
    zk.get_children("/")
    ctx.note("stop(): closeSession")
    zk.stop()
    zk.close()


# --------------------------------------------------------------------------------------
# Java scenarios (GoldenJava.java)
# --------------------------------------------------------------------------------------

JAVA = "java"


def java_classes(tmp):
    out = os.path.join(tmp, "classes")
    if not os.path.isdir(out):
        os.makedirs(out)
        subprocess.run(["javac", "-nowarn", "-cp", ZK_JAR, "-d", out,
                        os.path.join(HERE, "GoldenJava.java")], check=True)
    return out


def run_java(ctx, scen, extra_jvm=()):
    classes = java_classes(ctx.tmp)
    cmd = ["java", "-Xmx128m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"]
    cmd += list(extra_jvm)
    cmd += ["-cp", classes + ":" + ZK_JAR + ":" + SLF4J, "GoldenJava", scen,
            str(ctx.proxy.port), str(ctx.server.port)]
    errf = open(os.path.join(ctx.tmp, "java-%s.log" % scen), "wb")
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errf,
                         cwd=ctx.tmp, text=True, bufsize=1, start_new_session=True)
    RUNNING_CHILDREN.add(p)
    timer = threading.Timer(120, p.kill)
    timer.start()
    try:
        for line in p.stdout:
            line = line.rstrip("\n")
            if line.startswith("NOTE "):
                ctx.note(line[5:])
            elif line == "CUT":
                ctx.proxy.cut(hold=True)
            elif line == "RELEASE":
                ctx.proxy.release()
            else:
                log.warning("java says: %s", line)
                continue
            p.stdin.write("ok\n")
            p.stdin.flush()
        rc = p.wait(timeout=30)
    finally:
        timer.cancel()
        if p.poll() is None:
            p.kill()
            p.wait()
        RUNNING_CHILDREN.discard(p)
        errf.close()
    if rc != 0:
        with open(os.path.join(ctx.tmp, "java-%s.log" % scen), "rb") as f:
            sys.stderr.write(f.read().decode(errors="replace")[-4000:])
        raise RuntimeError("GoldenJava %s exited with %s" % (scen, rc))


@scenario(JAVA, "Java client everyday calls: create (op 1 vs create2 with Stat), exists, getData, setData, getChildren/getChildren2, sync, errors, closeSession")
def sc_java_basic(ctx):
    run_java(ctx, "basic")


@scenario(JAVA, "createContainer (op 19) and createTTL (op 21), NODEEXISTS on createTTL")
def sc_java_container_ttl(ctx):
    run_java(ctx, "container_ttl")


@scenario(JAVA, "multi (op 14) from the Java client: create/ephemeral/setData/check/delete; container+TTL+sequential creates; a failed multi")
def sc_java_multi(ctx):
    run_java(ctx, "multi")


@scenario(JAVA, "multiRead (op 22): getChildren/getData results incl. null data and per-op NONODE errors")
def sc_java_multiread(ctx):
    run_java(ctx, "multiread")


@scenario(JAVA, "SetWatches (op 101) after a reconnect; events fired during re-arm; re-armed watches firing later")
def sc_java_setwatches(ctx):
    run_java(ctx, "setwatches")


@scenario(JAVA, "SetWatches2 (op 105) after a reconnect with persistent + recursive + data watches")
def sc_java_setwatches2(ctx):
    run_java(ctx, "setwatches2")


@scenario(JAVA, "addWatch (op 106) persistent and recursive with events; removeWatches (18) / checkWatches (17); NOWATCHER")
def sc_java_addwatch(ctx):
    run_java(ctx, "addwatch")


@scenario(JAVA, "digest auth, getEphemerals (103), getAllChildrenNumber (104), whoAmI (107), getConfig")
def sc_java_info(ctx):
    run_java(ctx, "info")


@scenario(JAVA, "SASL DIGEST-MD5 (op 102) token exchange right after the handshake, then whoAmI")
def sc_java_sasl(ctx):
    jaas = os.path.join(ctx.tmp, "client.jaas")
    with open(jaas, "w") as f:
        f.write(CLIENT_JAAS)
    run_java(ctx, "sasl", ["-Djava.security.auth.login.config=" + jaas])


@scenario(JAVA, "reconfig (op 16) via ZooKeeperAdmin on a server without reconfigEnabled: RECONFIGDISABLED (-123), null strings")
def sc_java_reconfig(ctx):
    run_java(ctx, "reconfig")


@scenario(JAVA, "Java client: auth with an unknown scheme gives AUTHFAILED and the server closes; Java stops")
def sc_java_auth_failed(ctx):
    run_java(ctx, "auth_failed")


# --------------------------------------------------------------------------------------
# Frame decoder (annotations and --check)
# --------------------------------------------------------------------------------------

OPS = {
    0: "notification", 1: "create", 2: "delete", 3: "exists", 4: "getData", 5: "setData",
    6: "getACL", 7: "setACL", 8: "getChildren", 9: "sync", 11: "ping", 12: "getChildren2",
    13: "check", 14: "multi", 15: "create2", 16: "reconfig", 17: "checkWatches",
    18: "removeWatches", 19: "createContainer", 20: "deleteContainer", 21: "createTTL",
    22: "multiRead", 100: "auth", 101: "setWatches", 102: "sasl", 103: "getEphemerals",
    104: "getAllChildrenNumber", 105: "setWatches2", 106: "addWatch", 107: "whoAmI",
    -10: "createSession", -11: "closeSession", -1: "error",
}
ERRS = {
    0: "OK", -1: "SYSTEMERROR", -2: "RUNTIMEINCONSISTENCY", -3: "DATAINCONSISTENCY",
    -4: "CONNECTIONLOSS", -5: "MARSHALLINGERROR", -6: "UNIMPLEMENTED", -7: "OPERATIONTIMEOUT",
    -8: "BADARGUMENTS", -12: "UNKNOWNSESSION", -13: "NEWCONFIGNOQUORUM",
    -14: "RECONFIGINPROGRESS", -100: "APIERROR", -101: "NONODE", -102: "NOAUTH",
    -103: "BADVERSION", -108: "NOCHILDRENFOREPHEMERALS", -110: "NODEEXISTS", -111: "NOTEMPTY",
    -112: "SESSIONEXPIRED", -113: "INVALIDCALLBACK", -114: "INVALIDACL", -115: "AUTHFAILED",
    -118: "SESSIONMOVED", -119: "NOTREADONLY", -120: "EPHEMERALONLOCALSESSION",
    -121: "NOWATCHER", -122: "REQUESTTIMEOUT", -123: "RECONFIGDISABLED",
    -124: "SESSIONCLOSEDREQUIRESASLAUTH", -125: "QUOTAEXCEEDED", -127: "THROTTLEDOP",
}
EVENTS = {1: "NodeCreated", 2: "NodeDeleted", 3: "NodeDataChanged", 4: "NodeChildrenChanged"}
CREATE_MODES = {0: "PERSISTENT", 1: "EPHEMERAL", 2: "PERSISTENT_SEQUENTIAL",
                3: "EPHEMERAL_SEQUENTIAL", 4: "CONTAINER", 5: "PERSISTENT_WITH_TTL",
                6: "PERSISTENT_SEQUENTIAL_WITH_TTL"}


class DecodeError(Exception):
    pass


class R:
    """Bounded big-endian Jute reader."""

    def __init__(self, b):
        self.b = b
        self.o = 0

    def need(self, n):
        if n < 0 or self.o + n > len(self.b):
            raise DecodeError("need %d bytes at %d of %d" % (n, self.o, len(self.b)))

    def int(self):
        self.need(4)
        v = struct.unpack_from(">i", self.b, self.o)[0]
        self.o += 4
        return v

    def long(self):
        self.need(8)
        v = struct.unpack_from(">q", self.b, self.o)[0]
        self.o += 8
        return v

    def bool(self):
        self.need(1)
        v = self.b[self.o]
        self.o += 1
        return bool(v)

    def buf(self):
        n = self.int()
        if n == -1:
            return None
        if n < -1:
            raise DecodeError("negative buffer length %d" % n)
        self.need(n)
        v = self.b[self.o:self.o + n]
        self.o += n
        return v

    def str(self):
        v = self.buf()
        return None if v is None else v.decode("utf-8", "replace")

    def vec(self, fn):
        n = self.int()
        if n == -1:
            return None
        if n < -1 or n > len(self.b) - self.o:
            raise DecodeError("bad vector count %d" % n)
        return [fn() for _ in range(n)]

    def left(self):
        return len(self.b) - self.o


def fmt_data(d):
    if d is None:
        return "null"
    if len(d) <= 24 and all(32 <= c < 127 for c in d):
        return repr(d.decode())
    return "%d bytes" % len(d)


def r_stat(r):
    s = dict(czxid=r.long(), mzxid=r.long(), ctime=r.long(), mtime=r.long(), version=r.int(),
             cversion=r.int(), aversion=r.int(), ephemeralOwner=r.long(), dataLength=r.int(),
             numChildren=r.int(), pzxid=r.long())
    return "Stat(version=%d cversion=%d aversion=%d ephemeralOwner=%#x dataLength=%d numChildren=%d)" % (
        s["version"], s["cversion"], s["aversion"], s["ephemeralOwner"], s["dataLength"],
        s["numChildren"])


def r_acl(r):
    perms = r.int()
    return "%d:%s:%s" % (perms, r.str(), r.str())


def r_request_body(r, op):
    """Decodes a request record; returns a short description."""
    if op in (1, 15, 19, 21):
        path, data = r.str(), r.buf()
        acl = r.vec(lambda: r_acl(r))
        flags = r.int()
        s = "%s data=%s acl=%s flags=%d(%s)" % (path, fmt_data(data), acl, flags,
                                               CREATE_MODES.get(flags, "?"))
        if op == 21:
            s += " ttl=%d" % r.long()
        return s, path
    if op == 2 or op == 13:
        path = r.str()
        return "%s version=%d" % (path, r.int()), path
    if op in (3, 4, 8, 12):
        path = r.str()
        return "%s watch=%s" % (path, r.bool()), path
    if op == 5:
        path, data = r.str(), r.buf()
        return "%s data=%s version=%d" % (path, fmt_data(data), r.int()), path
    if op == 6 or op == 9 or op == 103 or op == 104:
        path = r.str()
        return "%s" % path, path
    if op == 7:
        path = r.str()
        acl = r.vec(lambda: r_acl(r))
        return "%s acl=%s version=%d" % (path, acl, r.int()), path
    if op == 16:
        j, l, n = r.str(), r.str(), r.str()
        return "joining=%r leaving=%r newMembers=%r curConfigId=%d" % (j, l, n, r.long()), None
    if op == 17 or op == 18:
        path = r.str()
        return "%s type=%d" % (path, r.int()), path
    if op == 106:
        path = r.str()
        return "%s mode=%d" % (path, r.int()), path
    if op == 100:
        t, scheme, auth = r.int(), r.str(), r.buf()
        return "type=%d scheme=%s auth=%s" % (t, scheme, fmt_data(auth)), None
    if op == 101 or op == 105:
        rz = r.long()
        names = ["data", "exist", "child"] + (["persistent", "persistentRecursive"] if op == 105 else [])
        parts = ["relativeZxid=%#x" % rz]
        for nm in names:
            parts.append("%s=%s" % (nm, r.vec(r.str)))
        return " ".join(parts), None
    if op == 102:
        return "token=%s" % fmt_data(r.buf()), None
    if op in (11, -11, 107):
        return "", None
    if op == 14 or op == 22:
        ops = []
        while True:
            t, done, err = r.int(), r.bool(), r.int()
            if done:
                if t != -1 or err != -1:
                    raise DecodeError("odd multi terminator %d/%s/%d" % (t, done, err))
                break
            desc, _ = r_request_body(r, t)
            ops.append("%s %s" % (OPS.get(t, t), desc))
        return "[" + "; ".join(ops) + "]", None
    raise DecodeError("no request decoder for op %d" % op)


def r_response_body(r, op):
    if op == 1:
        return "path=%s" % r.str()
    if op in (15, 19, 21):
        return "path=%s %s" % (r.str(), r_stat(r))
    if op in (2, 11, -11, 17, 18, 100, 101, 105, 13):
        return ""
    if op in (3, 5, 7):
        return r_stat(r)
    if op == 4 or op == 16:
        d = r.buf()
        return "data=%s %s" % (fmt_data(d), r_stat(r))
    if op == 6:
        acl = r.vec(lambda: r_acl(r))
        return "acl=%s %s" % (acl, r_stat(r))
    if op == 8 or op == 103:
        return "%s" % r.vec(r.str)
    if op == 12:
        ch = r.vec(r.str)
        return "%s %s" % (ch, r_stat(r))
    if op == 9:
        return "path=%s" % r.str()
    if op == 102:
        return "token=%s" % fmt_data(r.buf())
    if op == 104:
        return "totalNumber=%d" % r.int()
    if op == 106:
        return "ErrorResponse err=%d" % r.int()
    if op == 107:
        return "%s" % r.vec(lambda: "%s:%s" % (r.str(), r.str()))
    if op == 14 or op == 22:
        res = []
        while True:
            t, done, err = r.int(), r.bool(), r.int()
            if done:
                if t != -1 or err != -1:
                    raise DecodeError("odd multi terminator %d/%s/%d" % (t, done, err))
                break
            if t == -1:
                e = r.int()
                res.append("error(%s%s)" % (ERRS.get(e, e), "" if e == err else " hdr %d" % err))
            else:
                body = r_response_body(r, t)
                res.append("%s%s%s" % (OPS.get(t, t), " " if body else "", body))
        return "[" + "; ".join(res) + "]"
    raise DecodeError("no response decoder for op %d" % op)


class ConnState:
    def __init__(self):
        self.first_c = True
        self.first_s = True
        self.pending = []        # FIFO of (xid, op) for replies matched in order
        self.auth_pending = []


def describe(st, d, payload):
    """Returns (description, kind) for one frame; kind is used for the INDEX."""
    r = R(payload)
    if d == "C":
        if st.first_c:
            st.first_c = False
            pv, lz, to, sid, pw = r.int(), r.long(), r.int(), r.long(), r.buf()
            ro = r.bool() if r.left() else None
            desc = ("ConnectRequest protocolVersion=%d lastZxidSeen=%#x timeOut=%d sessionId=%#x "
                    "passwd=%s readOnly=%s (%d bytes)" % (pv, lz, to, sid,
                                                           "16 zero bytes" if pw == bytes(16) else (pw.hex() if pw else pw),
                                                           ro, len(payload)))
            kind = "ConnectRequest(%dB)" % len(payload)
        else:
            xid, op = r.int(), r.int()
            body, _ = r_request_body(r, op)
            name = OPS.get(op, "op%d" % op)
            desc = "request xid=%d %s(%d) %s" % (xid, name, op, body)
            kind = "C:%s(%d)" % (name, op)
            if xid == -4:
                st.auth_pending.append((xid, op))
            elif xid == -2:
                kind = "C:ping(11,xid-2)"
            else:
                st.pending.append((xid, op))
            if xid == -2 and op != 11:
                raise DecodeError("xid -2 with op %d" % op)
    else:
        if st.first_s:
            st.first_s = False
            pv, to, sid, pw = r.int(), r.int(), r.long(), r.buf()
            ro = r.bool() if r.left() else None
            desc = ("ConnectResponse protocolVersion=%d timeOut=%d sessionId=%#x passwd=%s "
                    "readOnly=%s (%d bytes)" % (pv, to, sid, pw.hex() if pw else pw, ro, len(payload)))
            kind = "ConnectResponse(%dB)" % len(payload)
        else:
            xid, zxid, err = r.int(), r.long(), r.int()
            ename = ERRS.get(err, str(err))
            if xid == -1:
                t, s, p = r.int(), r.int(), r.str()
                desc = "notification xid=-1 zxid=%d %s state=%d path=%s" % (zxid, EVENTS.get(t, t), s, p)
                kind = "S:event %s" % EVENTS.get(t, t)
            elif xid == -2:
                desc = "ping reply xid=-2 zxid=%#x err=%s" % (zxid, ename)
                kind = "S:ping reply"
            elif xid == -4:
                if st.auth_pending:
                    st.auth_pending.pop(0)
                desc = "auth reply xid=-4 zxid=%#x err=%s" % (zxid, ename)
                kind = "S:auth reply %s" % ename
            else:
                if not st.pending:
                    raise DecodeError("reply xid %d with nothing pending" % xid)
                pxid, op = st.pending.pop(0)
                if pxid != xid:
                    raise DecodeError("reply xid %d but head of FIFO is %d" % (xid, pxid))
                name = OPS.get(op, "op%d" % op)
                if err == 0:
                    body = r_response_body(r, op)
                else:
                    body = ""
                    if r.left():
                        body = "(%d trailing bytes after error)" % r.left()
                        r.o = len(payload)
                desc = "reply xid=%d zxid=%#x err=%s to %s%s%s" % (xid, zxid, ename, name,
                                                                   " " if body else "", body)
                kind = "S:%s reply %s" % (name, ename)
    if r.left():
        raise DecodeError("%d undecoded trailing bytes" % r.left())
    return desc, kind


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------

def write_frames(path, name, client_desc, desc, server_version, rec, today):
    out = []
    out.append("# zkwire golden wire capture: %s" % name)
    out.append("# %s" % desc)
    out.append("# client: %s" % client_desc)
    out.append("# server: ZooKeeper %s (Debian zookeeper 3.8.0-11+deb12u2), standalone, loopback, via recording proxy"
               % server_version)
    out.append("# captured %s by tests/golden/capture.py; format in tests/golden/README.md" % today)
    out.append("# C = client->server, S = server->client; each line one frame payload without its 4-byte length")
    out.append("# '# >>' lines are driver notes, '# --' connection events, other '#' lines decode the next frame")
    conns = {}
    kinds = []
    refused = 0
    for ev in rec.events:
        if ev[0] != "refused" and refused:
            out.append("# -- %d connection attempt(s) refused by the proxy (simulated outage, no bytes)" % refused)
            refused = 0
        if ev[0] == "refused":
            refused += 1
        elif ev[0] == "note":
            out.append("# >> " + ev[1])
        elif ev[0] == "open":
            conns[ev[1]] = ConnState()
            out.append("# -- connection %d open%s" % (ev[1], " (held by the proxy until released)" if ev[2] else ""))
        elif ev[0] == "close":
            out.append("# -- connection %d closed: %s" % (ev[1], ev[2]))
        elif ev[0] == "frame":
            _, cid, d, payload = ev
            st = conns.setdefault(cid, ConnState())
            try:
                text, kind = describe(st, d, payload)
            except (DecodeError, struct.error) as e:
                text, kind = "UNDECODED (%s)" % e, "%s:undecoded" % d
                log.warning("%s: frame not decoded: %s", name, e)
            kinds.append(kind)
            text = "".join(ch if 32 <= ord(ch) != 127 else "\\x%02x" % ord(ch) for ch in text)
            out.append("# " + text)
            out.append("%s %s" % (d, payload.hex()))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return kinds


def parse_frames_file(path):
    """Yields ('conn', n) / ('C'|'S', bytes) in file order."""
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# -- connection ") and " open" in line:
                yield ("conn", int(line.split()[3]))
            elif line.startswith("C ") or line.startswith("S "):
                yield (line[0], bytes.fromhex(line[2:]))
            elif line and not line.startswith("#"):
                raise ValueError("%s: bad line %r" % (path, line))


def check_files(names=None):
    """Re-decodes every frame of data/*.frames; returns the number of problems."""
    bad = 0
    files = sorted(f for f in os.listdir(DATA) if f.endswith(".frames"))
    for fn in files:
        if names and fn[:-7] not in names:
            continue
        conns = {}
        cur = None
        n = 0
        for kind, val in parse_frames_file(os.path.join(DATA, fn)):
            if kind == "conn":
                cur = conns[val] = ConnState()
                continue
            n += 1
            try:
                describe(cur, kind, val)
            except (DecodeError, struct.error) as e:
                print("%s frame %d: %s" % (fn, n, e))
                bad += 1
        print("%-36s %3d frames, %d connection(s)" % (fn, n, len(conns)))
    return bad


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------

RUNNING_CHILDREN = set()


def write_index(results):
    lines = ["# scenario -> client and frame kinds (generated by capture.py; counts in parentheses)",
             "# scenario\tclient\tframe kinds"]
    for name in sorted(results):
        client, kinds = results[name]
        counts = {}
        for k in kinds:
            counts[k] = counts.get(k, 0) + 1
        order = sorted(counts, key=lambda k: (not k.startswith("Connect"), not k.startswith("C:"), k))
        lines.append("%s\t%s\t%s" % (name, client, ", ".join("%s(%d)" % (k, counts[k]) for k in order)))
    with open(os.path.join(DATA, "INDEX"), "w") as f:
        f.write("\n".join(lines) + "\n")


def read_index():
    res = {}
    p = os.path.join(DATA, "INDEX")
    if os.path.exists(p):
        with open(p) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                name, client, _ = line.rstrip("\n").split("\t", 2)
                res[name] = client
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-s", "--scenario", action="append", help="run only these (repeatable)")
    ap.add_argument("--list", action="store_true", help="list scenarios")
    ap.add_argument("--check", action="store_true", help="only re-decode existing data/*.frames")
    ap.add_argument("--keep-tmp", action="store_true", help="keep the temp dir (server and client logs)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("capture").setLevel(logging.INFO)
    if not args.verbose:
        logging.getLogger("kazoo").setLevel(logging.ERROR)

    if args.list:
        for n, (_, client, desc) in SCENARIOS.items():
            print("%-28s %-6s %s" % (n, client, desc))
        return 0
    if args.check:
        return 1 if check_files(args.scenario) else 0

    names = args.scenario or list(SCENARIOS)
    for n in names:
        if n not in SCENARIOS:
            ap.error("unknown scenario %s" % n)

    import kazoo.version
    kazoo_desc = "Kazoo %s (Debian python3-kazoo 2.8.0-2) on /usr/bin/python3 %s" % (
        kazoo.version.__version__, sys.version.split()[0])
    jv = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    java_desc = ("ZooKeeper Java client 3.8.0 (Debian libzookeeper-java 3.8.0-11+deb12u2, "
                 "tests/golden/GoldenJava.java) on %s" % jv.strip())

    def on_signal(signum, frame):
        raise SystemExit("signal %d" % signum)
    signal.signal(signal.SIGTERM, on_signal)

    os.makedirs(DATA, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="zkwire-golden-")
    server = Server(tmp)
    helper = None
    results = {}
    failures = []
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        server.start()
        from kazoo.client import KazooClient
        helper = KazooClient(hosts="127.0.0.1:%d" % server.port, timeout=10.0)
        helper.start()
        helper.add_auth("digest", "super:golden")
        if any(SCENARIOS[n][1] == JAVA for n in names):
            java_classes(tmp)
        for name in names:
            fn, client, desc = SCENARIOS[name]
            log.info("scenario %s", name)
            rec = Recorder()
            proxy = Proxy(rec, server.port)
            ctx = Ctx(name, rec, proxy, server, helper, tmp)
            watchdog = threading.Timer(180, lambda: os.kill(os.getpid(), signal.SIGTERM))
            watchdog.daemon = True
            watchdog.start()
            try:
                if helper.exists("/g"):
                    helper.delete("/g", recursive=True)
                helper.create("/g", b"")
                fn(ctx)
                time.sleep(0.3)      # let trailing frames and closes arrive
            except Exception as e:
                log.exception("scenario %s failed", name)
                failures.append((name, e))
                proxy.stop()
                continue
            finally:
                watchdog.cancel()
            proxy.stop()
            kinds = write_frames(os.path.join(DATA, name + ".frames"), name,
                                 kazoo_desc if client == KAZOO else java_desc, desc,
                                 server.version, rec, today)
            results[name] = (client, kinds)
            log.info("  %d frames", len(kinds))
    finally:
        if helper is not None:
            try:
                helper.stop()
                helper.close()
            except Exception:
                pass
        for p in list(RUNNING_CHILDREN):
            if p.poll() is None:
                p.kill()
                p.wait()
        server.stop()
        if args.keep_tmp or failures:
            log.warning("temp dir kept: %s", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    # merge with an existing INDEX so that partial runs keep the other rows
    if results:
        all_results = {}
        for n in sorted(f[:-7] for f in os.listdir(DATA) if f.endswith(".frames")):
            if n in results:
                all_results[n] = results[n]
            else:
                st_kinds = []
                conns = {}
                cur = None
                for kind, val in parse_frames_file(os.path.join(DATA, n + ".frames")):
                    if kind == "conn":
                        cur = conns[val] = ConnState()
                        continue
                    try:
                        st_kinds.append(describe(cur, kind, val)[1])
                    except (DecodeError, struct.error):
                        st_kinds.append("%s:undecoded" % kind)
                client = SCENARIOS[n][1] if n in SCENARIOS else read_index().get(n, "?")
                all_results[n] = (client, st_kinds)
        write_index(all_results)
    if failures:
        for n, e in failures:
            print("FAILED %s: %s" % (n, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
