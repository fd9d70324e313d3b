#!/usr/bin/python3
"""Regenerates the seed corpora in tests/fuzz/corpus/fuzz_<family>/ from the golden wire captures.

Seeds come from tests/golden/data/*.frames (lines `C <hex>` client->server and `S <hex>` server->client frame
payloads without the length prefix, `#` comments, `# -- connection N open` events) plus a few hand-made edge cases
(empty input, huge lengths, a 2^30 vector count, ...). Each seed is laid out the way its fuzz target reads its input
(see the header comment of tests/fuzz/fuzz_<family>.cpp). Files are named `golden-<scenario>-<n>-<what>` or
`edge-<what>`; identical contents are written once. Only files with those prefixes are replaced, so reproducers
kept next to them (`repro-*`) survive a regeneration.

Usage: /usr/bin/python3 tests/fuzz/make_corpus.py   (no arguments; standard library only)
"""

import pathlib
import re
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = HERE.parent / "golden" / "data"
CORPUS = HERE / "corpus"
MAX_SEED = 4096  # tests/fuzz/run passes -max_len=4096

# Opcodes (docs/protocol.md#opcodes) used to name seeds and to find the request a reply answers.
OPS = {
    0: "notification", 1: "create", 2: "delete", 3: "exists", 4: "getData", 5: "setData", 6: "getACL",
    7: "setACL", 8: "getChildren", 9: "sync", 11: "ping", 12: "getChildren2", 13: "check", 14: "multi",
    15: "create2", 16: "reconfig", 17: "checkWatches", 18: "removeWatches", 19: "createContainer",
    20: "deleteContainer", 21: "createTTL", 22: "multiRead", 100: "auth", 101: "setWatches", 102: "sasl",
    103: "getEphemerals", 104: "getAllChildrenNumber", 105: "setWatches2", 106: "addWatch", 107: "whoAmI",
    -10: "createSession", -11: "closeSession", -1: "error",
}
SPECIAL_XIDS = {-1: 0, -2: 11, -4: 100}  # notification, ping, auth
# Requests whose body starts with a path (ustring), for path seeds.
PATH_FIRST = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 15, 17, 18, 19, 21, 103, 104, 106}
MULTI_OPS = {14, 22}


def be32(v):
    return struct.pack(">i", v)


def ube32(v):
    return struct.pack(">I", v)


def int32_at(b, off):
    return struct.unpack_from(">i", b, off)[0]


class Seeds:
    """Seeds of every target, deduplicated by content."""

    def __init__(self):
        self.by_target = {}

    def add(self, target, name, data):
        if len(data) > MAX_SEED:
            return
        seeds = self.by_target.setdefault(target, {})
        if data in seeds.values():
            return
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        assert name not in seeds, (target, name)
        seeds[name] = data

    def write(self):
        total = 0
        for target, seeds in sorted(self.by_target.items()):
            directory = CORPUS / target
            directory.mkdir(parents=True, exist_ok=True)
            for old in directory.iterdir():
                if old.name.startswith(("golden-", "edge-")):
                    old.unlink()
            for name, data in sorted(seeds.items()):
                (directory / name).write_bytes(data)
                total += len(data)
            print(f"{target}: {len(seeds)} seeds")
        print(f"total {total} bytes")


def read_scenario(path):
    """Yields (direction, kind, payload) for each frame; kind is connect, an opcode, or None if unknown."""
    expect_connect = {"C": False, "S": False}
    pending = {}  # xid -> opcode of the request
    for line in path.read_text().splitlines():
        if line.startswith("# -- connection") and line.endswith("open"):
            expect_connect = {"C": True, "S": True}
            pending.clear()
            continue
        if not line or line.startswith("#"):
            continue
        direction, hexdata = line.split(None, 1)
        payload = bytes.fromhex(hexdata.strip())
        if expect_connect[direction]:
            expect_connect[direction] = False
            yield direction, "connect", payload
            continue
        if direction == "C":
            xid, op = int32_at(payload, 0), int32_at(payload, 4)
            pending[xid] = op
            yield direction, op, payload
        else:
            xid = int32_at(payload, 0)
            op = SPECIAL_XIDS.get(xid, pending.pop(xid, None))
            yield direction, op, payload


def golden_seeds(seeds):
    for path in sorted(GOLDEN.glob("*.frames")):
        scenario = path.stem
        server_stream = b""
        for n, (direction, kind, payload) in enumerate(read_scenario(path)):
            tag = f"golden-{scenario}-{n:03d}"
            if kind == "connect":
                seeds.add("fuzz_connect_response", f"{tag}-connect-{'response' if direction == 'S' else 'request'}",
                          payload)
                if direction == "S":
                    server_stream += ube32(len(payload)) + payload
                continue
            if kind is None:
                continue
            name = OPS.get(kind, str(kind))
            if direction == "C":
                seeds.add("fuzz_request", f"{tag}-{name}", payload)
                if kind in PATH_FIRST and len(payload) >= 12:
                    length = int32_at(payload, 8)
                    if 0 <= length <= len(payload) - 12:
                        p = payload[12:12 + length]
                        seeds.add("fuzz_path", f"{tag}-{name}-path", b"\x00" + p)
                        seeds.add("fuzz_path", f"{tag}-{name}-path-sequential", b"\x01" + p)
                        seeds.add("fuzz_path", f"{tag}-{name}-path-chroot", b"\x02/app\xff" + p)
                continue
            server_stream += ube32(len(payload)) + payload
            err = int32_at(payload, 12) if len(payload) >= 16 else None
            # The reply target reads 0xff + a raw int32 opcode, independent of its table of known opcodes.
            seeds.add("fuzz_reply", f"{tag}-{name}-reply", b"\xff" + be32(kind) + payload)
            if kind == 0:
                seeds.add("fuzz_notification", f"{tag}-notification", payload)
            if kind in MULTI_OPS and err == 0:
                seeds.add("fuzz_multi_response", f"{tag}-{name}-body", payload[16:])
        if server_stream:
            frame_reader_seeds(seeds, f"golden-{scenario}", server_stream)


def feed_steps(stream, chunk):
    """fuzz_frame_reader steps feeding `stream` in chunks of `chunk` bytes (action 0)."""
    out = b""
    for i in range(0, len(stream), chunk):
        piece = stream[i:i + chunk]
        if len(piece) < 63:
            out += bytes([len(piece) << 2]) + piece
        else:
            out += bytes([63 << 2]) + struct.pack(">H", len(piece)) + piece
    return out


def prepare_steps(stream, chunk):
    """The same through prepare()/commit() (action 1)."""
    out = b""
    for i in range(0, len(stream), chunk):
        piece = stream[i:i + chunk]
        out += bytes([(len(piece) << 2) | 1]) + piece
    return out


def frame_reader_seeds(seeds, tag, stream):
    # Byte 0 = 0 selects max_frame_size 4096. Keep each seed under the length limit.
    budget = MAX_SEED - 600
    stream = stream[:budget]
    seeds.add("fuzz_frame_reader", f"{tag}-stream-chunks7", b"\x00" + feed_steps(stream, 7))
    seeds.add("fuzz_frame_reader", f"{tag}-stream-chunks1000", b"\x00" + feed_steps(stream, 1000))
    seeds.add("fuzz_frame_reader", f"{tag}-stream-prepare13", b"\x00" + prepare_steps(stream[:1500], 13))


def edge_seeds(seeds):
    zero_pw = b"\x00" * 16
    # ConnectResponse: protocolVersion, timeOut, sessionId, passwd, [readOnly].
    resp = be32(0) + be32(10000) + struct.pack(">q", 0x1000005D2810003) + be32(16) + zero_pw
    seeds.add("fuzz_connect_response", "edge-response-without-readonly-36", resp)
    seeds.add("fuzz_connect_response", "edge-response-readonly-true", resp + b"\x01")
    seeds.add("fuzz_connect_response", "edge-response-readonly-2-invalid", resp + b"\x02")
    seeds.add("fuzz_connect_response", "edge-response-expired",
              be32(0) + be32(0) + struct.pack(">q", 0) + be32(16) + zero_pw + b"\x00")
    seeds.add("fuzz_connect_response", "edge-response-null-passwd", be32(0) + be32(4000) + b"\x00" * 8 + be32(-1))
    seeds.add("fuzz_connect_response", "edge-response-huge-passwd-length",
              be32(0) + be32(4000) + b"\x00" * 8 + be32(0x7FFFFFFF) + zero_pw)
    seeds.add("fuzz_connect_response", "edge-response-negative-passwd-length",
              be32(0) + be32(4000) + b"\x00" * 8 + be32(-2) + zero_pw)
    seeds.add("fuzz_connect_response", "edge-response-trailing-bytes", resp + b"\x00\x00")
    seeds.add("fuzz_connect_response", "edge-empty", b"")

    # Replies: 0xff + raw opcode + ReplyHeader(xid, zxid, err) + body.
    def reply(op, xid, err, body=b""):
        return b"\xff" + be32(op) + be32(xid) + struct.pack(">q", 0x22) + be32(err) + body

    stat = b"\x00" * 68
    seeds.add("fuzz_reply", "edge-empty", b"")
    seeds.add("fuzz_reply", "edge-getChildren-count-2pow30", reply(8, 1, 0, be32(1 << 30)))
    seeds.add("fuzz_reply", "edge-getChildren-null-vector", reply(8, 1, 0, be32(-1)))
    seeds.add("fuzz_reply", "edge-getChildren-null-name", reply(8, 1, 0, be32(1) + be32(-1)))
    seeds.add("fuzz_reply", "edge-getData-huge-length", reply(4, 1, 0, be32(0x7FFFFFFF) + stat))
    seeds.add("fuzz_reply", "edge-getData-null", reply(4, 1, 0, be32(-1) + stat))
    seeds.add("fuzz_reply", "edge-getACL-count-2pow30", reply(6, 1, 0, be32(1 << 30) + stat))
    seeds.add("fuzz_reply", "edge-error-with-trailing-body", reply(4, 1, -101, b"junk"))
    seeds.add("fuzz_reply", "edge-unknown-opcode-12345", reply(12345, 1, 0))
    seeds.add("fuzz_reply", "edge-whoAmI-two", reply(107, 1, 0, be32(2) + be32(6) + b"digest" + be32(3) + b"bob"
                                                     + be32(2) + b"ip" + be32(9) + b"127.0.0.1"))
    seeds.add("fuzz_reply", "edge-sasl-null-token", reply(102, 1, 0, be32(-1)))
    seeds.add("fuzz_reply", "edge-getAllChildrenNumber", reply(104, 1, 0, be32(7)))
    seeds.add("fuzz_reply", "edge-getEphemerals", reply(103, 1, 0, be32(1) + be32(4) + b"/e/1"))
    seeds.add("fuzz_reply", "edge-create2", reply(15, 1, 0, be32(4) + b"/g/a" + stat))
    seeds.add("fuzz_reply", "edge-truncated-header", b"\xff" + be32(4) + be32(1) + b"\x00\x00")

    # Notifications: ReplyHeader(-1, -1, 0) + WatcherEvent(type, state, path).
    note = be32(-1) + struct.pack(">q", -1) + be32(0)
    seeds.add("fuzz_notification", "edge-empty", b"")
    seeds.add("fuzz_notification", "edge-null-path", note + be32(3) + be32(3) + be32(-1))
    seeds.add("fuzz_notification", "edge-wrong-xid", be32(7) + struct.pack(">q", -1) + be32(0)
              + be32(1) + be32(3) + be32(2) + b"/a")
    seeds.add("fuzz_notification", "edge-err-set", be32(-1) + struct.pack(">q", -1) + be32(-112))
    seeds.add("fuzz_notification", "edge-huge-path-length", note + be32(1) + be32(3) + be32(0x7FFFFFFF))

    # Multi response bodies: MultiHeader(type, done, err) + body, terminator (-1, true, -1).
    def mh(t, done, err):
        return be32(t) + bytes([done]) + be32(err)

    end = mh(-1, 1, -1)
    seeds.add("fuzz_multi_response", "edge-empty", b"")
    seeds.add("fuzz_multi_response", "edge-only-terminator", end)
    seeds.add("fuzz_multi_response", "edge-terminator-odd-type", mh(5, 1, 0))
    seeds.add("fuzz_multi_response", "edge-create2-result", mh(15, 0, 0) + be32(4) + b"/g/t" + stat + end)
    seeds.add("fuzz_multi_response", "edge-getData-getChildren",
              mh(4, 0, 0) + be32(1) + b"x" + stat + mh(8, 0, 0) + be32(2) + be32(1) + b"a" + be32(1) + b"b" + end)
    seeds.add("fuzz_multi_response", "edge-all-rolled-back",
              mh(-1, 0, -2) + be32(-2) + mh(-1, 0, -2) + be32(-2) + end)
    seeds.add("fuzz_multi_response", "edge-unknown-result-type", mh(99, 0, 0) + end)
    seeds.add("fuzz_multi_response", "edge-bad-done-byte", mh(2, 0, 0)[:4] + b"\x02" + be32(0) + end)
    seeds.add("fuzz_multi_response", "edge-getChildren-count-2pow30", mh(8, 0, 0) + be32(1 << 30) + end)

    # Requests: RequestHeader(xid, type) + body.
    acl = be32(1) + be32(31) + be32(5) + b"world" + be32(6) + b"anyone"
    seeds.add("fuzz_request", "edge-empty", b"")
    seeds.add("fuzz_request", "edge-ping", be32(-2) + be32(11))
    seeds.add("fuzz_request", "edge-unknown-type", be32(1) + be32(20))
    seeds.add("fuzz_request", "edge-create-container-mode-via-create2",
              be32(1) + be32(15) + be32(2) + b"/c" + be32(-1) + acl + be32(4))
    seeds.add("fuzz_request", "edge-createTTL", be32(1) + be32(21) + be32(2) + b"/t" + be32(1) + b"t" + acl
              + be32(5) + struct.pack(">q", 60000))
    seeds.add("fuzz_request", "edge-create-acl-count-2pow30", be32(1) + be32(1) + be32(2) + b"/c" + be32(0)
              + be32(1 << 30) + be32(0))
    seeds.add("fuzz_request", "edge-setWatches2", be32(-8) + be32(105) + struct.pack(">q", 0x22)
              + (be32(1) + be32(2) + b"/a") * 3 + be32(0) + be32(-1))
    seeds.add("fuzz_request", "edge-reconfig-nulls", be32(1) + be32(16) + be32(-1) + be32(-1) + be32(-1)
              + struct.pack(">q", -1))
    seeds.add("fuzz_request", "edge-multiRead-mixed",
              be32(1) + be32(22) + mh(4, 0, -1) + be32(2) + b"/a" + b"\x00" + mh(2, 0, -1) + be32(2) + b"/a"
              + be32(-1) + end)

    # Paths: flags byte (bit 0 sequential, bit 1 chroot mode: chroot 0xff path) + bytes.
    for name, p in [
        ("root", b"/"), ("empty", b""), ("relative", b"a/b"), ("trailing-slash", b"/a/"), ("double-slash", b"/a//b"),
        ("dot", b"/a/./b"), ("dotdot", b"/a/.."), ("dots-ok", b"/a/.../b.c"), ("nul", b"/a\x00b"),
        ("control", b"/a\x1fb"), ("del", b"/a\x7f"), ("c1-control", "/a\u0085".encode()),
        ("bmp-ok", "/caf\u00e9/\u4e2d".encode()), ("private-use", "/\uf8ff".encode()),
        ("special-fff0", "/\ufff0".encode()), ("non-bmp", "/\U0001F600".encode()),
        ("cesu-surrogate", b"/\xed\xa0\x80"), ("overlong-slash", b"/a\xc0\xafb"), ("truncated-utf8", b"/a\xe4\xb8"),
        ("above-10ffff", b"/\xf4\x90\x80\x80"), ("zookeeper-config", b"/zookeeper/config"),
    ]:
        seeds.add("fuzz_path", f"edge-{name}", b"\x00" + p)
    seeds.add("fuzz_path", "edge-sequential-prefix-trailing-slash", b"\x01/a/")
    seeds.add("fuzz_path", "edge-sequential-root", b"\x01/")
    seeds.add("fuzz_path", "edge-chroot-child", b"\x02/app/root\xff/x/y")
    seeds.add("fuzz_path", "edge-chroot-root", b"\x02/app\xff/")
    seeds.add("fuzz_path", "edge-chroot-sibling-prefix", b"\x02/app\xff/apple")
    seeds.add("fuzz_path", "edge-chroot-none", b"\x02/\xff/a")

    # Frame reader: byte 0 max_frame_size (0: 4096, 2: 16, 3: 0), then steps (see fuzz_frame_reader.cpp).
    frame = ube32(5) + b"hello"
    seeds.add("fuzz_frame_reader", "edge-empty", b"")
    seeds.add("fuzz_frame_reader", "edge-one-frame-bytewise", b"\x00" + feed_steps(frame, 1))
    seeds.add("fuzz_frame_reader", "edge-negative-length", b"\x00" + feed_steps(be32(-5) + b"abc", 7))
    seeds.add("fuzz_frame_reader", "edge-length-4097-too-large", b"\x00" + feed_steps(ube32(4097), 4))
    seeds.add("fuzz_frame_reader", "edge-length-2pow31-1", b"\x00" + feed_steps(ube32(0x7FFFFFFF), 4))
    seeds.add("fuzz_frame_reader", "edge-zero-length-frames", b"\x03" + feed_steps(ube32(0) * 5, 3))
    seeds.add("fuzz_frame_reader", "edge-max16-exact", b"\x02" + feed_steps(ube32(16) + b"x" * 16 + ube32(17), 9))
    seeds.add("fuzz_frame_reader", "edge-synth-prefix-then-body", b"\x00" + bytes([(10 << 2) | 3])
              + bytes([(10 << 2) | 0]) + b"0123456789")
    seeds.add("fuzz_frame_reader", "edge-overcommit", b"\x00" + bytes([(8 << 2) | 2]) + frame[:8] + b"\xff")
    seeds.add("fuzz_frame_reader", "edge-max-frame-in-big-reads",
              b"\x00" + bytes([(63 << 2) | 1]) + struct.pack(">H", 2000) + ube32(4096) + b"z" * 1996
              + bytes([(63 << 2) | 1]) + struct.pack(">H", 2100) + b"z" * 100)

    # Jute: config byte (bits 0-1 max_length selector, bits 2-7 op count) + data + op bytes (kind | param << 4).
    def jute(data, ops, selector=0):
        ops = bytes(ops)
        assert len(ops) < 64
        return bytes([(len(ops) << 2) | selector]) + data + ops

    INT, LONG, BOOL, VIEW, BUF, USTR, USTRV, COUNT, STRVEC, LONGVEC, BUFVEC, FINISH, SKIP, REST = range(14)
    seeds.add("fuzz_jute", "edge-empty", b"")
    seeds.add("fuzz_jute", "edge-connect-response", jute(resp + b"\x00", [INT, INT, LONG, BUF, BOOL, FINISH]))
    seeds.add("fuzz_jute", "edge-getChildren-reply",
              jute(be32(7) + struct.pack(">q", 0x22) + be32(0) + be32(2) + be32(2) + b"c1" + be32(2) + b"c2",
                   [INT, LONG, INT, STRVEC, FINISH, REST]))
    seeds.add("fuzz_jute", "edge-count-2pow30", jute(be32(1 << 30) + b"\x00" * 16, [COUNT | 0x30, STRVEC, LONGVEC]))
    seeds.add("fuzz_jute", "edge-huge-buffer-length", jute(be32(0x7FFFFFFF) + b"abc", [BUF, VIEW]))
    seeds.add("fuzz_jute", "edge-length-over-limit-16", jute(be32(17) + b"a" * 17, [USTR], selector=2))
    seeds.add("fuzz_jute", "edge-negative-length", jute(be32(-2) + b"abcd", [VIEW, INT]))
    seeds.add("fuzz_jute", "edge-null-buffers", jute(be32(-1) * 4, [VIEW, BUF, USTR, USTRV]))
    seeds.add("fuzz_jute", "edge-invalid-bool", jute(b"\x01\x00\x02", [BOOL, BOOL, BOOL, BOOL]))
    seeds.add("fuzz_jute", "edge-vectors", jute(be32(2) + struct.pack(">qq", 1, -1) + be32(2) + be32(-1) + be32(1)
                                                  + b"x" + be32(-1), [LONGVEC, BUFVEC, COUNT, FINISH]))
    seeds.add("fuzz_jute", "edge-skip-rest", jute(be32(5) + b"trailing", [INT, SKIP, REST, FINISH, INT]))
    seeds.add("fuzz_jute", "edge-trailing-bytes", jute(be32(5) + b"x", [INT, FINISH, REST]))


def main():
    if not GOLDEN.is_dir():
        sys.exit(f"make_corpus.py: {GOLDEN} not found")
    seeds = Seeds()
    edge_seeds(seeds)
    golden_seeds(seeds)
    seeds.write()


if __name__ == "__main__":
    main()
