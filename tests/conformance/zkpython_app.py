#!/usr/bin/python3
"""An application of Debian's zkpython binding (python3-zookeeper, `import zookeeper`), unmodified, that prints a
deterministic transcript of what the binding and the libzookeeper_mt.so.2 under it did.

  zkpython_app.py HOSTS ROOT

consumers.py runs it on Debian's library and on another and compares the transcripts. Needs the PyIOBase_Type
stand-in (zkpython_shim.c) preloaded; README.md says why.

What the binding can do on Debian 12's Python 3.11: it was built without PY_SSIZE_T_CLEAN, and Python 3.10 made every
'#' format of PyArg_ParseTuple and Py_BuildValue in such a module raise SystemError. Every call that carries node data
or credentials takes one (create, set, set2, acreate, aset, add_auth) and get and aget build their result with one,
so none of them works; the transcript shows create and add_auth failing so. The nodes and data changes the binding
observes are made by Kazoo (pure Python, no libzookeeper) in the same process: the binding reads, lists, watches,
deletes, reads and sets ACLs, with the synchronous and asynchronous forms.

Run-specific values are printed normalized: the root node as <root>, session ids by name (<session K> is Kazoo's),
zxids relative to the root node's czxid, times as relations. Watcher events and completions arrive on the library's
completion thread; they are handed to the main thread, which waits for each one it expects (a Condition) and prints
them in a fixed order. Sequence numbers need no normalizing: the root is new in every run."""

import base64
import hashlib
import logging
import sys
import threading

import zookeeper
from kazoo.client import KazooClient
from kazoo.security import make_digest_acl

WAIT_S = 30  # a bound for a wait that never ends on a broken library, not a timing requirement

OPEN_ACL_UNSAFE = [{"perms": zookeeper.PERM_ALL, "scheme": "world", "id": "anyone"}]
READ_ACL_UNSAFE = [{"perms": zookeeper.PERM_READ, "scheme": "world", "id": "anyone"}]


def constant_name(value, suffix):
    for name in sorted(dir(zookeeper)):
        if name.endswith(suffix) and name.isupper() and getattr(zookeeper, name) == value:
            return name
    return f"{suffix.strip('_').lower()} {value}"


def event_name(value):
    return constant_name(value, "_EVENT")


def state_name(value):
    return constant_name(value, "_STATE")


def rc_name(value):
    for name in sorted(dir(zookeeper)):
        if name.isupper() and "_" not in name and getattr(zookeeper, name) == value:
            return name
    return f"rc {value}"


class Transcript:
    """Prints lines with the run's values replaced by stable names."""

    def __init__(self, root):
        self.root = root
        self.sessions = {}
        self.base_zxid = None

    def session(self, session_id, name=None):
        if session_id == 0:
            return "0"
        if session_id not in self.sessions:
            self.sessions[session_id] = f"<session {name or len(self.sessions)}>"
        return self.sessions[session_id]

    def zxid(self, zxid):
        return f"z{zxid - self.base_zxid:+d}" if self.base_zxid is not None else "z?"

    def stat(self, stat):
        if stat is None:
            return "None"
        # Milliseconds: a create and a set can share one.
        times = "ctime<=mtime" if 0 < stat["ctime"] <= stat["mtime"] else f"ctime={stat['ctime']} mtime={stat['mtime']}"
        return (f"{{version={stat['version']} cversion={stat['cversion']} aversion={stat['aversion']} "
                f"dataLength={stat['dataLength']} numChildren={stat['numChildren']} "
                f"ephemeralOwner={self.session(stat['ephemeralOwner'])} czxid={self.zxid(stat['czxid'])} "
                f"mzxid={self.zxid(stat['mzxid'])} pzxid={self.zxid(stat['pzxid'])} {times}}}")

    def text(self, value):
        return str(value).replace(self.root, "<root>")

    def say(self, line):
        print(self.text(line), flush=True)


class Inbox:
    """What the library's threads delivered (watcher events, completions), taken by the main thread in the order
    the transcript wants, whatever order they came in."""

    def __init__(self, transcript):
        self.transcript = transcript
        self.cond = threading.Condition()
        self.items = []
        self.main_thread = threading.get_ident()

    def put(self, *item):
        # A callback on the caller's own thread breaks the C client's contract (they run on its completion thread).
        if threading.get_ident() == self.main_thread:
            item += ("on the caller's thread",)
        with self.cond:
            self.items.append(item)
            self.cond.notify_all()

    def take(self, kind, what):
        """The first delivered item of this kind, waiting for it; None (and a TIMEOUT line) if none comes."""
        with self.cond:
            if not self.cond.wait_for(lambda: any(item[0] == kind for item in self.items), timeout=WAIT_S):
                self.transcript.say(f"  TIMEOUT: no {kind} ({what})")
                return None
            for i, item in enumerate(self.items):
                if item[0] == kind:
                    return self.items.pop(i)
        return None

    def rest(self):
        with self.cond:
            items, self.items = self.items, []
            return items


def watcher_for(inbox, kind):
    def watcher(handle, event_type, state, path):
        inbox.put(kind, handle, event_type, state, path)
    return watcher


def completion_for(inbox, kind):
    def completion(handle, rc, *rest):
        inbox.put(kind, handle, rc, *rest)
    return completion


def call(t, label, function, *args):
    """Runs a synchronous call and prints its result or the exception the binding raised."""
    try:
        result = function(*args)
    except (zookeeper.ZooKeeperException, SystemError, ValueError, TypeError) as error:
        t.say(f"{label}: raises {type(error).__name__}: {error}")
        return None
    t.say(f"{label}: {t.stat(result) if isinstance(result, dict) else result}")
    return result


def show_event(t, item):
    if item is None:
        return
    _, _, event_type, state, path, *extra = item
    t.say(f"  event {event_name(event_type)} state={state_name(state)} path='{path}'"
          f"{' ' + extra[0] if extra else ''}")


def wait_session(t, inbox, kind, label):
    t.say(f"{label}:")
    show_event(t, inbox.take(kind, label))


def connect(hosts, inbox, kind, client_id=None):
    if client_id is None:
        return zookeeper.init(hosts, watcher_for(inbox, kind), 10000)
    return zookeeper.init(hosts, watcher_for(inbox, kind), 10000, client_id)


def show_acl(acl):
    return "[" + ", ".join(f"{a['scheme']}:{a['id']}:{a['perms']}" for a in acl) + "]"


def sorted_children(zh, path, *watcher):
    return sorted(zookeeper.get_children(zh, path, *watcher))


def defects(t, zh, root):
    t.say("== what the binding cannot do on Python 3.11")
    try:
        zookeeper.set_log_stream(sys.stderr)
        t.say("set_log_stream(sys.stderr): accepted")
    except ValueError as error:
        # The PyIOBase_Type stand-in matches no object: the binding refuses every stream.
        t.say(f"set_log_stream(sys.stderr): raises ValueError: {error}")
    call(t, "create", zookeeper.create, zh, f"{root}/x", "x", OPEN_ACL_UNSAFE)
    call(t, "add_auth", zookeeper.add_auth, zh, "digest", "alice:secret", None)
    try:
        zookeeper.client_id(zh)
    except UnicodeDecodeError:
        pass
    # It builds the 16-byte random password as a NUL-terminated UTF-8 string, so which of the two it does depends on
    # the session's password: the transcript shows only that the call returned.
    t.say("client_id: (id, password), or UnicodeDecodeError for most passwords")


def reads(t, zh, kz, root):
    t.say("== reads of what Kazoo wrote")
    kz.create(root, b"root")
    stat = zookeeper.exists(zh, root)
    t.base_zxid = stat["czxid"]
    t.say(f"exists root: {t.stat(stat)}")
    kz.create(f"{root}/plain", b"v0")
    kz.set(f"{root}/plain", b"v1")
    kz.create(f"{root}/eph", b"e", ephemeral=True)
    t.session(zookeeper.exists(zh, f"{root}/eph")["ephemeralOwner"], "K")
    for _ in range(2):
        kz.create(f"{root}/seq-", b"s", sequence=True)
    kz.create(f"{root}/eseq-", b"", ephemeral=True, sequence=True)
    kz.create(f"{root}/ro", b"r", acl=[make_digest_acl("alice", "secret", all=True)])
    kz.create(f"{root}/ro/child", b"")
    kz.create(f"{root}/tree/a/b", b"", makepath=True)
    call(t, "exists plain", zookeeper.exists, zh, f"{root}/plain")
    call(t, "exists eph", zookeeper.exists, zh, f"{root}/eph")
    call(t, "exists absent", zookeeper.exists, zh, f"{root}/absent")
    call(t, "exists root", zookeeper.exists, zh, root)
    call(t, "get_children root", sorted_children, zh, root)
    call(t, "get_children plain", zookeeper.get_children, zh, f"{root}/plain")
    call(t, "get_children /", lambda *a: root[1:] in zookeeper.get_children(*a), zh, "/")
    call(t, "get_acl plain", lambda *a: show_acl(zookeeper.get_acl(*a)[1]), zh, f"{root}/plain")

    t.say("== errors")
    codes = sorted({getattr(zookeeper, n) for n in dir(zookeeper) if n.isupper() and "_" not in n and n != "OK"})
    for rc in codes:
        t.say(f"zerror({rc_name(rc)}): {zookeeper.zerror(rc)}")
    call(t, "exists relative path", zookeeper.exists, zh, "relative")
    call(t, "exists trailing slash", zookeeper.exists, zh, f"{root}/plain/")
    call(t, "exists empty path", zookeeper.exists, zh, "")
    call(t, "get_children absent", zookeeper.get_children, zh, f"{root}/absent")
    call(t, "get_children ro (digest ACL)", zookeeper.get_children, zh, f"{root}/ro")
    call(t, "get_acl ro", zookeeper.get_acl, zh, f"{root}/ro")
    call(t, "get_acl absent", zookeeper.get_acl, zh, f"{root}/absent")
    call(t, "delete absent", zookeeper.delete, zh, f"{root}/absent")
    call(t, "delete non-empty tree", zookeeper.delete, zh, f"{root}/tree")
    call(t, "delete plain version 0", zookeeper.delete, zh, f"{root}/plain", 0)
    call(t, "delete ro/child (no DELETE on ro)", zookeeper.delete, zh, f"{root}/ro/child")
    call(t, "delete /zookeeper", zookeeper.delete, zh, "/zookeeper")
    call(t, "delete /", zookeeper.delete, zh, "/")
    call(t, "set_acl ro", zookeeper.set_acl, zh, f"{root}/ro", -1, OPEN_ACL_UNSAFE)
    call(t, "set_acl plain version 5", zookeeper.set_acl, zh, f"{root}/plain", 5, OPEN_ACL_UNSAFE)
    call(t, "set_acl plain digest id without colon", zookeeper.set_acl, zh, f"{root}/plain", -1,
         [{"perms": zookeeper.PERM_ALL, "scheme": "digest", "id": "no-colon"}])
    call(t, "set_acl plain empty ACL", zookeeper.set_acl, zh, f"{root}/plain", -1, [])
    call(t, "set_acl plain unknown scheme", zookeeper.set_acl, zh, f"{root}/plain", -1,
         [{"perms": zookeeper.PERM_ALL, "scheme": "nosuch", "id": "x"}])

    t.say("== deletes and ACLs")
    call(t, "delete plain version 1", zookeeper.delete, zh, f"{root}/plain", 1)
    call(t, "exists plain", zookeeper.exists, zh, f"{root}/plain")
    call(t, "delete tree/a/b any version", zookeeper.delete, zh, f"{root}/tree/a/b", -1)
    call(t, "set_acl tree version 0 (read, admin)", zookeeper.set_acl, zh, f"{root}/tree", 0,
         [{"perms": zookeeper.PERM_READ | zookeeper.PERM_ADMIN, "scheme": "world", "id": "anyone"}])
    call(t, "set_acl tree version 0 again", zookeeper.set_acl, zh, f"{root}/tree", 0, OPEN_ACL_UNSAFE)
    stat, acl = zookeeper.get_acl(zh, f"{root}/tree")
    t.say(f"get_acl tree: {show_acl(acl)} {t.stat(stat)}")
    call(t, "delete tree/a (no DELETE on tree)", zookeeper.delete, zh, f"{root}/tree/a")
    alice = hashlib.sha1(b"alice:secret").digest()
    call(t, "set_acl tree digest alice", zookeeper.set_acl, zh, f"{root}/tree", 1,
         [{"perms": zookeeper.PERM_ALL, "scheme": "digest", "id": "alice:" + base64.b64encode(alice).decode()}])
    call(t, "get_children tree", zookeeper.get_children, zh, f"{root}/tree")


def watches(t, zh, kz, inbox, root):
    t.say("== watches")
    # get's result cannot be built ('#' format: SystemError), but the library's zoo_wget ran before that: on a node
    # its watch is set; on an absent node the library's code comes through (NoNodeException) and no watch is left.
    kz.create(f"{root}/data", b"d")
    call(t, "get data with a watch", zookeeper.get, zh, f"{root}/data", watcher_for(inbox, "get watch"))
    call(t, "get absent with a watch", zookeeper.get, zh, f"{root}/nodata", watcher_for(inbox, "absent get watch"))
    kz.set(f"{root}/data", b"e")
    show_event(t, inbox.take("get watch", "get's watch on a set"))
    kz.create(f"{root}/nodata", b"")
    call(t, "exists later with a watch", zookeeper.exists, zh, f"{root}/later", watcher_for(inbox, "created"))
    kz.create(f"{root}/later", b"")
    show_event(t, inbox.take("created", "exists watch on an absent node"))
    call(t, "exists later with a watch", zookeeper.exists, zh, f"{root}/later", watcher_for(inbox, "changed"))
    kz.set(f"{root}/later", b"1")
    show_event(t, inbox.take("changed", "exists watch on a node set"))
    kz.set(f"{root}/later", b"2")
    call(t, "get_children root with a watch", lambda *a: len(zookeeper.get_children(*a)), zh, root,
         watcher_for(inbox, "child"))
    kz.create(f"{root}/new", b"")
    show_event(t, inbox.take("child", "child watch on a create"))
    kz.delete(f"{root}/new")
    call(t, "exists later with a watch", zookeeper.exists, zh, f"{root}/later", watcher_for(inbox, "deleted"))
    call(t, "get_children later with a watch", zookeeper.get_children, zh, f"{root}/later",
         watcher_for(inbox, "parent deleted"))
    call(t, "delete later", zookeeper.delete, zh, f"{root}/later")
    show_event(t, inbox.take("deleted", "exists watch on our own delete"))
    show_event(t, inbox.take("parent deleted", "child watch on our own delete"))
    # Notifications come in order on one thread: once these fired, a second firing of the one-shot watches above
    # (set again, a child deleted) would already have been delivered.
    leftover = [item for item in inbox.rest() if not item[0].startswith("session")]
    t.say(f"one-shot watches fired once: {not leftover}{' ' + str(leftover) if leftover else ''}")


def asynchronous(t, zh, kz, inbox, root):
    t.say("== asynchronous calls")
    kz.create(f"{root}/async/child", b"c", makepath=True)
    order = []
    done = threading.Condition()

    def completion(label, shape):
        def callback(handle, rc, *rest):
            try:
                shown = shape(rest)
            except Exception as error:  # pylint: disable=broad-except  (shown in the transcript, not lost)
                shown = f"unexpected arguments {rest!r}: {error}"
            with done:
                order.append((label, rc_name(rc), shown, threading.get_ident()))
                done.notify_all()
        return callback

    def stat_of(rest):
        return t.stat(rest[0]) if rest and rest[0] is not None else str(rest)

    def children_of(rest):
        return str(sorted(rest[0])) if rest and rest[0] is not None else str(rest)

    def acl_of(rest):
        return f"{show_acl(rest[0])} aversion={rest[1]['aversion']}" if rest and rest[1] else str(rest)

    def value_of(rest):
        return t.text(rest[0]) if rest else ""

    def nothing(rest):
        return str(rest) if rest else ""

    node = f"{root}/async"
    calls = [
        ("aexists", lambda cb: zookeeper.aexists(zh, node, None, cb), stat_of),
        ("aexists absent", lambda cb: zookeeper.aexists(zh, f"{root}/absent", None, cb), stat_of),
        ("aget_children", lambda cb: zookeeper.aget_children(zh, node, None, cb), children_of),
        ("aget_children absent", lambda cb: zookeeper.aget_children(zh, f"{root}/absent", None, cb), children_of),
        ("aget_acl", lambda cb: zookeeper.aget_acl(zh, node, cb), acl_of),
        ("aset_acl version 1", lambda cb: zookeeper.aset_acl(zh, node, 1, READ_ACL_UNSAFE, cb), nothing),
        ("aset_acl version 0", lambda cb: zookeeper.aset_acl(zh, node, 0, OPEN_ACL_UNSAFE, cb), nothing),
        ("aget_acl", lambda cb: zookeeper.aget_acl(zh, node, cb), acl_of),
        ("sync (zookeeper.async)", lambda cb: getattr(zookeeper, "async")(zh, node, cb), value_of),
        ("adelete non-empty", lambda cb: zookeeper.adelete(zh, node, -1, cb), nothing),
        ("adelete child version 3", lambda cb: zookeeper.adelete(zh, f"{node}/child", 3, cb), nothing),
        ("adelete child version 0", lambda cb: zookeeper.adelete(zh, f"{node}/child", 0, cb), nothing),
        ("adelete child again", lambda cb: zookeeper.adelete(zh, f"{node}/child", -1, cb), nothing),
        ("aget_children", lambda cb: zookeeper.aget_children(zh, node, None, cb), children_of),
        ("adelete", lambda cb: zookeeper.adelete(zh, node, -1, cb), nothing),
        ("aexists", lambda cb: zookeeper.aexists(zh, node, None, cb), stat_of),
    ]
    # Issued back to back: the C client completes them in the order they were issued, on its completion thread.
    for label, issue, shape in calls:
        rc = issue(completion(label, shape))
        if rc != zookeeper.OK:
            t.say(f"{label}: returned {rc_name(rc)}")
    with done:
        if not done.wait_for(lambda: len(order) >= len(calls), timeout=WAIT_S):
            t.say(f"  TIMEOUT: {len(order)} of {len(calls)} completions")
    for label, rc, shape, _ in order:
        t.say(f"{label}: {rc} {shape}".rstrip())
    threads = {thread for *_, thread in order}
    t.say(f"completion threads: {len(threads)}, the caller's among them: {threading.get_ident() in threads}")

    # Watches set by asynchronous reads fire like the synchronous ones'.
    zookeeper.aexists(zh, f"{root}/awatch", watcher_for(inbox, "aexists watch"), completion_for(inbox, "aexists"))
    item = inbox.take("aexists", "aexists with a watch")
    if item is not None:
        t.say(f"aexists awatch with a watch: {rc_name(item[2])} {t.stat(item[3]) if len(item) > 3 else ''}")
    zookeeper.aget_children(zh, root, watcher_for(inbox, "aget_children watch"),
                            completion_for(inbox, "aget_children"))
    item = inbox.take("aget_children", "aget_children with a watch")
    if item is not None:
        t.say(f"aget_children root with a watch: {rc_name(item[2])} {len(item[3])} children")
    kz.create(f"{root}/awatch", b"")
    show_event(t, inbox.take("aexists watch", "aexists's watch on a create"))
    show_event(t, inbox.take("aget_children watch", "aget_children's watch on a create"))


def sessions(t, zh, kz, hosts, inbox, root):
    t.say("== sessions")
    t.say(f"state: {state_name(zookeeper.state(zh))}, recv_timeout: {zookeeper.recv_timeout(zh)}, "
          f"unrecoverable: {bool(zookeeper.is_unrecoverable(zh))}")
    zookeeper.set_watcher(zh, watcher_for(inbox, "replaced watcher"))
    call(t, "exists eph", zookeeper.exists, zh, f"{root}/eph")
    kz.stop()  # Kazoo's session ends: its ephemeral nodes go
    call(t, "exists eph once its owner closed", zookeeper.exists, zh, f"{root}/eph")
    call(t, "get_children root", sorted_children, zh, root)

    # A session id the server does not know (resuming needs the password, which the binding cannot pass through:
    # it strncpy's a UTF-8 string into the 16-byte password).
    made_up = connect(hosts, inbox, "session made-up", (0x1234567, "password"))
    wait_session(t, inbox, "session made-up", "handle given an unknown session id")
    t.say(f"state: {state_name(zookeeper.state(made_up))}, "
          f"unrecoverable: {bool(zookeeper.is_unrecoverable(made_up))}")
    call(t, "exists root on that handle", zookeeper.exists, made_up, root)
    call(t, "aexists root on that handle", zookeeper.aexists, made_up, root, None,
         completion_for(inbox, "expired aexists"))
    call(t, "close that handle", zookeeper.close, made_up)

    other = connect(hosts, inbox, "session other")
    wait_session(t, inbox, "session other", "second handle connects")
    call(t, "close second handle", zookeeper.close, other)
    call(t, "exists root on the first handle", lambda *a: zookeeper.exists(*a) is not None, zh, root)


def main():
    hosts, root = sys.argv[1], sys.argv[2]
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)  # Kazoo's own logging, on stderr
    t = Transcript(root)
    inbox = Inbox(t)
    zookeeper.set_debug_level(zookeeper.LOG_LEVEL_ERROR)

    t.say("== session")
    zh = connect(hosts, inbox, "session")
    wait_session(t, inbox, "session", "handle connects")
    t.say(f"state: {state_name(zookeeper.state(zh))}, recv_timeout: {zookeeper.recv_timeout(zh)}")
    kz = KazooClient(hosts=hosts, timeout=10.0)
    kz.start(timeout=WAIT_S)
    kz.add_auth("digest", "alice:secret")

    defects(t, zh, root)
    reads(t, zh, kz, root)
    watches(t, zh, kz, inbox, root)
    asynchronous(t, zh, kz, inbox, root)
    sessions(t, zh, kz, hosts, inbox, root)

    t.say("== close")
    call(t, "close first handle", zookeeper.close, zh)
    call(t, "state after close", zookeeper.state, zh)
    leftover = inbox.rest()
    t.say(f"undelivered or unexpected callbacks: {len(leftover)}")
    for item in leftover:
        t.say(f"  {item[0]}: {item[2:]}")
    kz.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
