"""A Kazoo Lock contender for the interop tests of `zkwire lock` (tests/integration/cli_lock_test.cpp).

Takes the lock ROUNDS times and, while holding it, runs the same critical section as the zkwire contenders:
a non-atomic read-sleep-write of a counter file (an overlap loses an update), a mkdir marker that fails when
another holder is inside, and the lock node's czxid (the fencing token) appended to a token file.

usage: /usr/bin/python3 kazoo_lock_worker.py HOSTS LOCK_PATH ROUNDS DIR [EXTRA_PATTERN]
  DIR holds counter, inside/ (the marker), tokens and violations.
  EXTRA_PATTERN is passed to Lock(extra_lock_patterns=...) so Kazoo orders foreign nodes (e.g. "-lock-" for
  Curator-style names).
Run it with Debian's /usr/bin/python3 (python3-kazoo). Exit status 0 when every round ran.
"""

import os
import sys
import time

from kazoo.client import KazooClient
from kazoo.recipe.lock import Lock


def critical_section(directory, token):
    inside = os.path.join(directory, "inside")
    try:
        os.mkdir(inside)
    except FileExistsError:
        with open(os.path.join(directory, "violations"), "a") as f:
            f.write("kazoo entered while another holder was inside\n")
    counter = os.path.join(directory, "counter")
    with open(counter) as f:
        value = int(f.read().strip() or "0")
    time.sleep(0.03)
    with open(counter + ".tmp", "w") as f:
        f.write("%d\n" % (value + 1))
    os.replace(counter + ".tmp", counter)
    with open(os.path.join(directory, "tokens"), "a") as f:
        f.write("%d kazoo\n" % token)
    try:
        os.rmdir(inside)
    except FileNotFoundError:
        pass


def main():
    hosts, lock_path, rounds, directory = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    extra = [sys.argv[5]] if len(sys.argv) > 5 and sys.argv[5] else []
    zk = KazooClient(hosts=hosts, timeout=10.0)
    zk.start(timeout=30)
    try:
        for _ in range(rounds):
            lock = Lock(zk, lock_path, identifier="kazoo-%d" % os.getpid(), extra_lock_patterns=extra)
            if not lock.acquire(timeout=60):
                print("kazoo: lock not acquired within 60 s", file=sys.stderr)
                return 1
            try:
                stat = zk.exists(lock_path + "/" + lock.node)
                critical_section(directory, stat.czxid)
            finally:
                lock.release()
    finally:
        zk.stop()
        zk.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
