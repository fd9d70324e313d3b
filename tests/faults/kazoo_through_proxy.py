"""Kazoo through the zkwire fault-injection proxy (run by kazoo_proxy_test with Debian's /usr/bin/python3).

Usage: kazoo_through_proxy.py HOSTS PATH
Creates PATH (its parent must exist) once, while the proxy drops the create's reply and resets the connection,
then waits for Kazoo to reconnect and prints one JSON line: what the create raised, whether PATH exists, the
parent's children and whether the session survived.
"""
import json
import posixpath
import sys
import time

from kazoo.client import KazooClient
from kazoo.exceptions import ConnectionLoss, SessionExpiredError


def main():
    hosts, path = sys.argv[1], sys.argv[2]
    zk = KazooClient(hosts=hosts, timeout=10.0)
    zk.start(timeout=15)
    session = zk.client_id[0]
    result = {"session": session}
    try:
        zk.create(path, b"x")
        result["create"] = "ok"
    except ConnectionLoss:
        result["create"] = "connection_loss"
    except Exception as e:  # reported, so the C++ side can show what happened
        result["create"] = "error: %r" % (e,)
    deadline = time.time() + 20
    while True:
        try:
            result["exists"] = zk.exists(path) is not None
            result["children"] = sorted(zk.get_children(posixpath.dirname(path)))
            break
        except (ConnectionLoss, SessionExpiredError):
            if time.time() > deadline:
                raise
            time.sleep(0.1)
    result["same_session"] = zk.client_id[0] == session
    zk.stop()
    zk.close()
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
