"""Kazoo's Election (Debian's python3-kazoo, run with /usr/bin/python3) as participants of the election tests: on
the same election path as zkwire's participants (election_peers_test.cpp), and as contenders of the nemesis's
comparison run (tests/faults/nemesis_test.cpp). Two modes:

  kazoo_election_peer.py interop HOSTS PATH DIR ID_PREFIX PARTICIPANTS ROUNDS HOLD_MS
    PARTICIPANTS participants, each with a session of its own and the id "ID_PREFIX-N", lead ROUNDS times each:
    Election.run() with the critical section of election_oracle.py as the leader's function (each run joins anew
    and leaves when the function returns). Meanwhile an observer with a session of its own asks
    Election.contenders() who leads (the first contender), every 20 ms, and appends
    "kazoo BEFORE_NS AFTER_NS LEADER_ID_OR_-" to DIR/observations, until DIR/stop exists. Prints "sections=N".

  kazoo_election_peer.py nemesis HOSTS PATH ID SESSION_TIMEOUT_MS COMMAND...
    One participant: Election.run() whose function runs COMMAND with ZKWIRE_LEADER_ID and ZKWIRE_FENCING_TOKEN
    (the czxid of its node), as `zkwire elect` does, and waits for it. Kazoo's Election is its Lock, which tells
    the function nothing when the connection or the session is lost, so the command runs to its end whatever
    happens: that is what the comparison run shows. Exits with the command's status.

Exit status 0 when every round ran (interop).
"""

import logging
import os
import subprocess
import sys
import threading
import time

from kazoo.client import KazooClient
from kazoo.recipe.election import Election

import election_oracle


def connect(hosts, timeout_s):
    client = KazooClient(hosts=hosts, timeout=timeout_s)
    client.start(timeout=60)
    return client


def czxid(client, election, path):
    stat = client.exists(path + "/" + election.lock.node)
    return stat.czxid if stat else 0


def interop(hosts, path, directory, prefix, participants, rounds, hold_ms):
    failures = []

    def participant(name):
        try:
            client = connect(hosts, 20.0)
            try:
                for _ in range(rounds):
                    election = Election(client, path, name)
                    election.run(lambda: election_oracle.section(directory, name, czxid(client, election, path),
                                                                 hold_ms))
            finally:
                client.stop()
                client.close()
        except Exception as e:  # reported below; the thread must not die silently
            failures.append("%s: %r" % (name, e))

    def observer():
        client = connect(hosts, 20.0)
        view = Election(client, path)
        deadline = time.monotonic() + 600
        try:
            while not os.path.exists(os.path.join(directory, "stop")) and time.monotonic() < deadline:
                before = time.monotonic_ns()
                try:
                    contenders = view.contenders()
                    leader = contenders[0] if contenders and contenders[0] else "-"
                except Exception:
                    leader = "?"  # no answer: the line says so, the oracle skips it
                after = time.monotonic_ns()
                election_oracle.append(os.path.join(directory, "observations"),
                                       "kazoo %d %d %s" % (before, after, leader))
                time.sleep(0.02)
        finally:
            client.stop()
            client.close()

    threads = [threading.Thread(target=participant, args=("%s-%d" % (prefix, n),)) for n in range(participants)]
    watcher = threading.Thread(target=observer)
    for t in threads + [watcher]:
        t.start()
    for t in threads + [watcher]:
        t.join()
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    print("sections=%d" % (participants * rounds))
    return 0


def log(text):
    """A line of the contender's log (stderr), with CLOCK_MONOTONIC in seconds, the clock of the nemesis's records."""
    print("%.3f %s" % (time.monotonic(), text), file=sys.stderr, flush=True)


def nemesis(hosts, path, name, session_timeout_ms, command):
    log("%s connects" % name)
    client = connect(hosts, session_timeout_ms / 1000.0)
    client.add_listener(lambda state: log("connection %s" % state))
    status = [0]
    election = Election(client, path, name)
    log("%s joins" % name)

    def lead():
        env = dict(os.environ, ZKWIRE_LEADER_ID=name, ZKWIRE_FENCING_TOKEN=str(czxid(client, election, path)))
        log("%s leads on %s" % (name, election.lock.node))
        status[0] = subprocess.call(command, env=env)
        log("%s: the command ended with %d" % (name, status[0]))

    try:
        election.run(lead)
    finally:
        client.stop()
        client.close()
    return status[0]


def main():
    logging.basicConfig(level=logging.CRITICAL)
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "interop" and len(sys.argv) == 9:
        hosts, path, directory, prefix = sys.argv[2:6]
        participants, rounds, hold_ms = (int(a) for a in sys.argv[6:9])
        return interop(hosts, path, directory, prefix, participants, rounds, hold_ms)
    if mode == "nemesis" and len(sys.argv) > 6:
        return nemesis(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
