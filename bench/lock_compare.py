#!/usr/bin/python3
"""Locks: zkwire's recipe (`zkwire bench --ops get,lock`) against Kazoo's Lock and Curator's InterProcessMutex, on
the same server, interleaved; zkwire's uncontended lock against the bare requests it is made of; zkwire's semaphore
against Curator's InterProcessSemaphoreV2.

Usage: /usr/bin/python3 bench/lock_compare.py --zkwire build/bin/zkwire -s HOST:PORT [-n N] [--rounds R]
                                              [--curator auto|on|off] [--lock-bench PATH] [--leases K]

Measures, for each side: uncontended acquire+release latency (one session, one lock, one cycle at a time) and the
handoff rate with 2 and 8 contenders (each its own session, all on one lock, each acquiring and releasing at once,
over and over). The sides take turns within each round, in an order that rotates from round to round, so that a
change in the machine's load hits them alike. Each round also runs build/bin/zkwire_lock_bench (--lock-bench;
bench/lock_bench.cpp), which times, interleaved on one client: the lock's acquire+release, a bare create
(EPHEMERAL_SEQUENTIAL, named, filled and placed like a lock node) + delete, the same create and a listing back to
back + delete (the lock's own requests without the recipe), and a semaphore acquire+release (1 lease of K); and,
with Curator, InterProcessSemaphoreV2's acquire+return of 1 lease of K. The ratios of the first three are taken per
round and reported as median and range. Prints markdown tables with the ratios and the lock targets of
docs/design.md#performance-targets.

Needs Debian's python3-kazoo (run with /usr/bin/python3). Curator: bench/CuratorLockBench.java is compiled with javac
(default-jdk-headless) into a temporary directory against Debian's libcurator-*-java jars in /usr/share/java; with
--curator auto (the default) Curator is left out, with the reason printed, when they are missing, unless CI=true
(then, as with --curator on, that is an error). Kazoo's logging is silenced, Curator's goes to slf4j-nop.
zkwire and Kazoo run 20 untimed cycles before each measurement; Curator runs --curator-warmup (default 500), since
a JVM runs its code interpreted until the JIT has compiled it, and the comparison is meant to be with Curator in its
steady state (on a loaded machine, 20 cycles left Curator's p50 several times slower)."""

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
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


CURATOR_JARS = ["curator-recipes", "curator-framework", "curator-client", "zookeeper", "zookeeper-jute", "guava",
                "slf4j-api", "slf4j-nop"]
JAVA_DIR = "/usr/share/java"


class Curator:
    """A Java program of bench/ (default CuratorLockBench.java), compiled once into a temporary directory against
    Debian's Curator jars and run once per measurement."""

    def __init__(self, work_dir, program="CuratorLockBench"):
        jars = [os.path.join(JAVA_DIR, f"{name}.jar") for name in CURATOR_JARS]
        missing = [j for j in jars if not os.path.exists(j)]
        if missing:
            raise RuntimeError("missing " + ", ".join(missing) + " (Debian's libcurator-*-java, libslf4j-java)")
        for tool in ("javac", "java"):
            if shutil.which(tool) is None:
                raise RuntimeError(f"no {tool} (Debian's default-jdk-headless)")
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{program}.java")
        self.program = program
        self.classpath = ":".join([work_dir] + jars)
        result = subprocess.run(["javac", "-d", work_dir, "-cp", self.classpath, source], capture_output=True,
                                text=True)
        if result.returncode != 0:
            raise RuntimeError("javac failed:\n" + result.stderr)

    def command(self, servers, *args):
        """The java command line that runs the program with SERVERS and ARGS."""
        return ["java", "-cp", self.classpath, self.program, servers] + [str(a) for a in args]

    def run(self, servers, *args):
        result = subprocess.run(self.command(servers, *args), capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            raise RuntimeError(f"{self.program} failed: " + result.stderr.strip())
        return json.loads(result.stdout.strip().splitlines()[-1])

    def uncontended(self, servers, count, warmup):
        return self.run(servers, "uncontended", count, warmup)

    def handoff(self, servers, contenders, count, warmup):
        return self.run(servers, "handoff", contenders, count, warmup)

    def semaphore(self, servers, leases, count, warmup):
        return self.run(servers, "semaphore", leases, count, warmup)


def lock_bench(program, servers, count, warmup, leases):
    """bench/lock_bench.cpp: {op: row} for lock, create+delete, create+list+delete, semaphore and ratio."""
    out = subprocess.run([program, "-s", servers, "-n", str(count), "--warmup", str(warmup), "--leases", str(leases)],
                         check=True, capture_output=True, text=True).stdout
    return {row["op"]: row for row in (json.loads(line) for line in out.splitlines() if line.strip())}


def median(values):
    return sorted(values)[len(values) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zkwire", required=True)
    parser.add_argument("-s", "--servers", required=True)
    parser.add_argument("-n", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--curator", choices=["auto", "on", "off"], default="auto")
    parser.add_argument("--curator-warmup", type=int, default=500)
    parser.add_argument("--lock-bench", help="zkwire_lock_bench (default: next to --zkwire)")
    parser.add_argument("--leases", type=int, default=4, help="the semaphores' leases (default 4)")
    args = parser.parse_args()
    if args.lock_bench is None:
        args.lock_bench = os.path.join(os.path.dirname(os.path.abspath(args.zkwire)), "zkwire_lock_bench")
    if not os.access(args.lock_bench, os.X_OK):
        parser.error(f"no zkwire_lock_bench at {args.lock_bench} (build the target, or give --lock-bench)")
    logging.getLogger("kazoo").setLevel(logging.CRITICAL)
    warmup = 20

    work_dir = tempfile.mkdtemp(prefix="zkwire-lock-compare.")
    curator, curator_missing = None, ""
    try:
        if args.curator != "off":
            try:
                curator = Curator(work_dir)
            except RuntimeError as e:
                if args.curator == "on" or os.environ.get("CI") == "true":
                    raise
                curator_missing = str(e)
                print(f"lock_compare: Curator left out: {e}", file=sys.stderr)
        else:
            curator_missing = "--curator off"
        run(args, curator, curator_missing, warmup)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


def run(args, curator, curator_missing, warmup):
    sides = ["zkwire", "kazoo"] + (["curator"] if curator else [])
    unc = {side: [] for side in sides}
    hand = {side: {2: [], 8: []} for side in sides}
    z_get = []
    reference = []  # per round: zkwire_lock_bench's rows
    curator_semaphore = []

    def uncontended(side):
        if side == "zkwire":
            rows = zkwire_bench(args.zkwire, args.servers, "get,lock", args.n, 1)
            z_get.append(rows["get"]["p50_us"])
            return rows["lock"]["p50_us"]
        if side == "kazoo":
            return kazoo_uncontended(args.servers, args.n, warmup)["p50_us"]
        return curator.uncontended(args.servers, args.n, args.curator_warmup)["p50_us"]

    def handoff(side, k):
        if side == "zkwire":
            return zkwire_bench(args.zkwire, args.servers, "lock", args.n, k)["lock-handoff"]
        if side == "kazoo":
            return kazoo_handoff(args.servers, k, args.n)
        return curator.handoff(args.servers, k, args.n, args.curator_warmup)

    for round_number in range(args.rounds):
        print(f"lock_compare: round {round_number + 1}/{args.rounds}", file=sys.stderr)
        shift = round_number % len(sides)
        order = sides[shift:] + sides[:shift]
        for side in order:
            unc[side].append(uncontended(side))
        for k in (2, 8):
            for side in order:
                hand[side][k].append(handoff(side, k))
        semaphore_order = ["zkwire", "curator"] if round_number % 2 == 0 else ["curator", "zkwire"]
        for side in semaphore_order:
            if side == "zkwire":
                reference.append(lock_bench(args.lock_bench, args.servers, args.n, warmup, args.leases))
            elif curator:
                curator_semaphore.append(curator.semaphore(args.servers, args.leases, args.n,
                                                           args.curator_warmup)["p50_us"])

    print("### Locks: zkwire against Kazoo's Lock and Curator's InterProcessMutex")
    print()
    print(f"Medians over {args.rounds} interleaved rounds of {args.n} cycles each; Kazoo "
          f"from Debian's python3-kazoo on /usr/bin/python3"
          + (", Curator from Debian's libcurator-*-java (bench/CuratorLockBench.java, one JVM per measurement, "
             f"{args.curator_warmup} untimed cycles first to warm the JIT; zkwire and Kazoo {warmup})."
             if curator else "."))
    if not curator:
        print(f"Curator not measured: {curator_missing}.")
    print()
    header = "| figure | zkwire | Kazoo |" + (" Curator |" if curator else "") + " zkwire / Kazoo |" + \
        (" zkwire / Curator |" if curator else "")
    print(header)
    print("|---" + "|---:" * (header.count("|") - 2) + "|")

    def row(name, values, fmt="{:.0f}"):
        z, k = values["zkwire"], values["kazoo"]
        cells = [fmt.format(z), fmt.format(k)]
        if curator:
            cells.append(fmt.format(values["curator"]))
        cells.append(f"{z / k:.2f}")
        if curator:
            cells.append(f"{z / values['curator']:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")

    row("uncontended acquire+release p50 (us)", {side: median(unc[side]) for side in sides})
    for k in (2, 8):
        row(f"handoff rate, {k} contenders (acquisitions/s)",
            {side: median([r["ops_per_sec"] for r in hand[side][k]]) for side in sides})
        row(f"wait p50, {k} contenders (us)", {side: median([r["p50_us"] for r in hand[side][k]]) for side in sides})
    print()
    print("For latencies a ratio below 1 favours zkwire; for rates a ratio above 1 does.")
    print()
    def spread(values, fmt="{:.2f}"):
        return f"{fmt.format(median(values))} ({fmt.format(min(values))}–{fmt.format(max(values))})"

    unc_over_cd = [r["ratio"]["lock_over_create_delete"] for r in reference]
    unc_over_cld = [r["ratio"]["lock_over_create_list_delete"] for r in reference]
    print(f"#### Uncontended lock against its requests, and the semaphore (zkwire_lock_bench, {args.rounds} rounds)")
    print()
    print("One session, one cycle at a time, the kinds interleaved in blocks within each round; p50 per round, "
          "median (range) over the rounds. create+delete: a bare EPHEMERAL_SEQUENTIAL create named, filled and "
          "placed like a lock node, then its delete. create+list+delete: the same with a getChildren of the "
          "directory sent right behind the create (the lock's own requests, without the recipe). Semaphore: "
          f"1 lease of {args.leases}, acquire+release.")
    print()
    print("| figure | median (range) |")
    print("|---|---:|")
    for op in ("lock", "create+delete", "create+list+delete", "semaphore"):
        print(f"| {op} p50 (us) | {spread([r[op]['p50_us'] for r in reference], '{:.0f}')} |")
    print(f"| lock / create+delete | {spread(unc_over_cd)} |")
    print(f"| lock / create+list+delete | {spread(unc_over_cld)} |")
    if curator_semaphore:
        z_sem = [r["semaphore"]["p50_us"] for r in reference]
        print(f"| Curator InterProcessSemaphoreV2 p50 (us) | {spread(curator_semaphore, '{:.0f}')} |")
        print(f"| semaphore, zkwire / Curator | "
              f"{spread([z / c for z, c in zip(z_sem, curator_semaphore)])} |")
    print()
    zu = median(unc["zkwire"])
    zg = median(z_get)
    z8 = median([r["ops_per_sec"] for r in hand["zkwire"][8]])
    k8 = median([r["ops_per_sec"] for r in hand["kazoo"][8]])
    print("| target | measured | wanted | |")
    print("|---|---:|---:|---|")
    print(f"| uncontended acquire+release p50 / get p50 (zkwire) | {zu / zg:.2f} | <= 2.20 | "
          f"{'met' if zu / zg <= 2.2 else 'missed'} |")
    print(f"| uncontended acquire+release p50 / create+delete p50 (median of rounds) | {median(unc_over_cd):.2f} | "
          f"<= 1.10 | {'met' if median(unc_over_cd) <= 1.1 else 'missed'} |")
    print(f"| handoff rate with 8 contenders, zkwire / Kazoo | {z8 / k8:.2f} | >= 1.50 | "
          f"{'met' if z8 / k8 >= 1.5 else 'missed'} |")
    if curator:
        c8 = median([r["ops_per_sec"] for r in hand["curator"][8]])
        print(f"| handoff rate with 8 contenders, zkwire / Curator | {z8 / c8:.2f} | >= 3.50 | "
              f"{'met' if z8 / c8 >= 3.5 else 'missed'} |")
    print()

if __name__ == "__main__":
    main()
