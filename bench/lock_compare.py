#!/usr/bin/python3
"""Locks: zkwire's recipe (`zkwire bench --ops get,lock`) against Kazoo's Lock, on the same server, interleaved.

Usage: /usr/bin/python3 bench/lock_compare.py --zkwire build/bin/zkwire -s HOST:PORT [-n N] [--rounds R]

Measures, for each side: uncontended acquire+release latency (one session, one lock, one cycle at a time) and the
handoff rate with 2 and 8 contenders (each its own session, all on one lock, each acquiring and releasing at once,
over and over). Prints a markdown table with the ratios and the targets of docs/design.md#performance-targets
(zkwire's uncontended acquire+release p50 at most 2.2 x its get p50; handoff rate with 8 contenders at least 1.5 x
Kazoo's).
Needs Debian's python3-kazoo (run with /usr/bin/python3). Kazoo's logging is silenced.
"""

import argparse
import json
import logging
import subprocess
import sys
import threading
import time
import uuid

from kazoo.client import KazooClient
from kazoo.recipe.lock import Lock


def percentile(samples, q):
    if not samples:
        return 0.0
    ordered = sorted(samples)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil, like the histogram's rank
    return ordered[int(rank) - 1]


def kazoo_uncontended(servers, count, warmup):
    client = KazooClient(hosts=servers)
    client.start()
    path = f"/kazoo-bench-{uuid.uuid4().hex[:8]}"
    lock = Lock(client, path, "kazoo-bench")
    samples = []
    for i in range(warmup + count):
        start = time.perf_counter()
        lock.acquire()
        lock.release()
        if i >= warmup:
            samples.append((time.perf_counter() - start) * 1e6)
    client.delete(path, recursive=True)
    client.stop()
    client.close()
    return {"p50_us": percentile(samples, 50), "p99_us": percentile(samples, 99), "count": len(samples)}


def kazoo_handoff(servers, contenders, count):
    path = f"/kazoo-bench-{uuid.uuid4().hex[:8]}"
    clients = []
    for _ in range(contenders):
        c = KazooClient(hosts=servers)
        c.start()
        clients.append(c)
    waits = []
    done = [0]
    mutex = threading.Lock()
    start_gate = threading.Barrier(contenders + 1)

    def contend(client):
        lock = Lock(client, path, "kazoo-bench")
        start_gate.wait()
        while True:
            with mutex:
                if done[0] >= count:
                    return
            start = time.perf_counter()
            lock.acquire()
            waited = (time.perf_counter() - start) * 1e6
            with mutex:
                done[0] += 1
                waits.append(waited)
            lock.release()

    threads = [threading.Thread(target=contend, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    start_gate.wait()
    began = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    clients[0].delete(path, recursive=True)
    for c in clients:
        c.stop()
        c.close()
    return {"ops_per_sec": done[0] / elapsed, "p50_us": percentile(waits, 50), "p99_us": percentile(waits, 99),
            "count": done[0]}


def zkwire_bench(zkwire, servers, ops, count, clients):
    out = subprocess.run([zkwire, "-s", servers, "bench", "--ops", ops, "-n", str(count), "--clients", str(clients),
                          "--warmup", "20", "--json"], check=True, capture_output=True, text=True).stdout
    return {row["op"]: row for row in (json.loads(line) for line in out.splitlines() if line.strip())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zkwire", required=True)
    parser.add_argument("-s", "--servers", required=True)
    parser.add_argument("-n", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    logging.getLogger("kazoo").setLevel(logging.CRITICAL)

    z_unc, k_unc, z_get = [], [], []
    z_hand = {2: [], 8: []}
    k_hand = {2: [], 8: []}
    for round_number in range(args.rounds):
        print(f"lock_compare: round {round_number + 1}/{args.rounds}", file=sys.stderr)
        rows = zkwire_bench(args.zkwire, args.servers, "get,lock", args.n, 1)
        z_unc.append(rows["lock"]["p50_us"])
        z_get.append(rows["get"]["p50_us"])
        k_unc.append(kazoo_uncontended(args.servers, args.n, 20)["p50_us"])
        for k in (2, 8):
            if round_number % 2 == 0:
                z_hand[k].append(zkwire_bench(args.zkwire, args.servers, "lock", args.n, k)["lock-handoff"])
                k_hand[k].append(kazoo_handoff(args.servers, k, args.n))
            else:
                k_hand[k].append(kazoo_handoff(args.servers, k, args.n))
                z_hand[k].append(zkwire_bench(args.zkwire, args.servers, "lock", args.n, k)["lock-handoff"])

    def median(values):
        return sorted(values)[len(values) // 2]

    print("### Locks: zkwire against Kazoo's Lock")
    print()
    print(f"Medians over {args.rounds} interleaved rounds of {args.n} cycles each; Kazoo "
          f"from Debian's python3-kazoo on /usr/bin/python3.")
    print()
    print("| figure | zkwire | Kazoo | zkwire / Kazoo |")
    print("|---|---:|---:|---:|")
    zu, ku = median(z_unc), median(k_unc)
    print(f"| uncontended acquire+release p50 (us) | {zu:.0f} | {ku:.0f} | {zu / ku:.2f} |")
    for k in (2, 8):
        zr = median([r["ops_per_sec"] for r in z_hand[k]])
        kr = median([r["ops_per_sec"] for r in k_hand[k]])
        zw = median([r["p50_us"] for r in z_hand[k]])
        kw = median([r["p50_us"] for r in k_hand[k]])
        print(f"| handoff rate, {k} contenders (acquisitions/s) | {zr:.0f} | {kr:.0f} | {zr / kr:.2f} |")
        print(f"| wait p50, {k} contenders (us) | {zw:.0f} | {kw:.0f} | {zw / kw:.2f} |")
    print()
    zg = median(z_get)
    z8 = median([r["ops_per_sec"] for r in z_hand[8]])
    k8 = median([r["ops_per_sec"] for r in k_hand[8]])
    print("| target | measured | wanted | |")
    print("|---|---:|---:|---|")
    print(f"| uncontended acquire+release p50 / get p50 (zkwire) | {zu / zg:.2f} | <= 2.20 | "
          f"{'met' if zu / zg <= 2.2 else 'missed'} |")
    print(f"| handoff rate with 8 contenders, zkwire / Kazoo | {z8 / k8:.2f} | >= 1.50 | "
          f"{'met' if z8 / k8 >= 1.5 else 'missed'} |")
    print()


if __name__ == "__main__":
    main()
