"""The critical section of the election interop tests (election_peers_test.cpp), shared by every side.

A leader, whoever's recipe elected it, makes DIR/inside (an existing one means another leader is inside: a line in
DIR/violations), holds for HOLD_MS, removes it and appends "ID TOKEN START_NS END_NS" to DIR/sections, on
CLOCK_MONOTONIC (time.monotonic_ns here; System.nanoTime in the Java worker; steady_clock in the test), so that the
test can compare the sections with what each side's listing named as leader meanwhile. TOKEN is the leader's
fencing token, the czxid of its node.

With ZKWIRE_LISTING_CLI, ZKWIRE_LISTING_CONNECT and ZKWIRE_LISTING_PATH in the environment, the section also asks
`zkwire leader --json` who leads, once it is inside, and appends "zkwire-cli BEFORE_NS AFTER_NS LEADER_ID_OR_-" to
DIR/observations: asked and answered within the section, the answer must name this leader, whichever side it is.

As a program it is the command of zkwire's participants:
  /usr/bin/python3 election_oracle.py DIR ID HOLD_MS
with ZKWIRE_LEADER_ID (must be ID) and ZKWIRE_FENCING_TOKEN from `zkwire elect`.
"""

import json
import os
import subprocess
import sys
import time


def append(path, line):
    """One line with one write (O_APPEND: lines of concurrent processes do not interleave)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def ask_zkwire(directory):
    """`zkwire leader --json` once, when the environment names it, its answer appended to the observations."""
    cli = os.environ.get("ZKWIRE_LISTING_CLI")
    if not cli:
        return
    before = time.monotonic_ns()
    out = subprocess.run([cli, "-s", os.environ["ZKWIRE_LISTING_CONNECT"], "leader", "--json",
                          os.environ["ZKWIRE_LISTING_PATH"]], capture_output=True, text=True, timeout=60)
    after = time.monotonic_ns()
    leader = "?"
    if out.returncode == 0:
        leader = json.loads(out.stdout).get("leader") or "-"
    append(os.path.join(directory, "observations"), "zkwire-cli %d %d %s" % (before, after, leader))


def section(directory, participant, token, hold_ms):
    inside = os.path.join(directory, "inside")
    alone = True
    try:
        os.mkdir(inside)
    except FileExistsError:
        alone = False
        append(os.path.join(directory, "violations"), "%s led while another leader was inside" % participant)
    start = time.monotonic_ns()
    ask_zkwire(directory)
    time.sleep(hold_ms / 1000.0)
    end = time.monotonic_ns()
    if alone:
        os.rmdir(inside)
    append(os.path.join(directory, "sections"), "%s %d %d %d" % (participant, token, start, end))


def main():
    directory, participant, hold_ms = sys.argv[1], sys.argv[2], int(sys.argv[3])
    told = os.environ.get("ZKWIRE_LEADER_ID", "")
    if told != participant:
        append(os.path.join(directory, "violations"),
               "%s's command was told ZKWIRE_LEADER_ID=%r" % (participant, told))
    section(directory, participant, int(os.environ.get("ZKWIRE_FENCING_TOKEN", "0")), hold_ms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
