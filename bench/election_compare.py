#!/usr/bin/python3
"""Leader failover: zkwire's election recipe (build/bin/zkwire_election_bench, bench/election_bench.cpp) against
Curator's LeaderLatch (bench/CuratorElectionBench.java), on the same server, interleaved.

Usage: /usr/bin/python3 bench/election_compare.py --bench build/bin/zkwire_election_bench -s HOST:PORT [-n N]
                                                  [--rounds R] [--kills K] [--session-ms MS] [--selector]
                                                  [--zkwire build/bin/zkwire] [--naming latch|lock|kazoo]
                                                  [--baseline LABEL=OTHER/zkwire_election_bench]...

Two figures for each side, in each round, the sides taking turns in an order that rotates from round to round:
  handoff   two participants, each with a session of its own (and threads of its own: zkwire's bench runs each
            client on a thread, as Curator's clients have theirs); the leader leaves (zkwire: async_leave; Curator:
            LeaderLatch.close()) and the other one is told it leads (zkwire: the listener's `gained`; Curator:
            LeaderLatchListener.isLeader); the one that left joins again after that, untimed, on both sides. Timed
            in one process from the call that leaves to the moment the next leader's code is told, N times after
            N/3 (Curator: 300) untimed ones; the p50 of each round. The follower is queued and settled (20 ms) before
            each handoff. Split at the moment the follower's client hears of the leader node's deletion (a watch of
            the bench's own on that node, on both sides): `notified` (the delete's commit and the notification, the
            same requests on both sides) and `after` (the recipe's own requests and work until it is told).
  kill -9   a participant process that leads is killed with SIGKILL; the time from the kill to the moment the
            participant of another process, queued behind it, is told it leads (both on CLOCK_MONOTONIC). Nothing
            can notice a killed process but the server's expiry of its session, so this is bounded below by the
            session timeout (--session-ms, default 2000, both sides) and reported with it subtracted as well. K
            samples per side per round (default 2).
With --selector, Curator's LeaderSelector's handoff is measured too (a third column); with --baseline (repeatable),
another build's zkwire_election_bench (e.g. before a change) takes its turn as one more side, shown as LABEL. With --zkwire, `zkwire bench
--ops get` gives a round trip on the same server, for scale.

Curator: bench/CuratorElectionBench.java is compiled with javac (default-jdk-headless) into a temporary directory
against Debian's libcurator-*-java jars in /usr/share/java (bench/lock_compare.py's Curator helper); its JVM gets 300
untimed handoffs first to warm the JIT. Prints markdown tables with the ratios and the election targets of
docs/design.md#performance-targets."""

import argparse
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

from lock_compare import Curator, median


def by_op(out):
    """The JSON lines a handoff prints (handoff, notified, after_notified), by their "op"."""
    lines = [json.loads(line) for line in out.strip().splitlines() if line.startswith("{")]
    return {line["op"]: line for line in lines}


def zkwire_handoff(bench, servers, count, warmup, naming):
    out = subprocess.run([bench, "-s", servers, "handoff", "-n", str(count), "--warmup", str(warmup), "--naming",
                          naming], check=True, capture_output=True, text=True, timeout=600).stdout
    return by_op(out)


def curator_handoff(curator, servers, recipe, count, warmup, settle_ms):
    result = subprocess.run(curator.command(servers, "handoff", recipe, count, warmup, settle_ms), capture_output=True,
                            text=True, timeout=600)
    if result.returncode != 0:
        raise RuntimeError("CuratorElectionBench failed: " + result.stderr.strip())
    return by_op(result.stdout)


def read_line(process, timeout):
    """The next line of the process's stdout, or None after `timeout` seconds."""
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    return process.stdout.readline().strip() if ready else None


def wait_for(process, word, timeout, name):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = read_line(process, deadline - time.monotonic())
        if line is None:
            break
        if line.split()[:1] == [word]:
            return line
        if line == "" and process.poll() is not None:
            break
    raise RuntimeError(f"{name}: no '{word}' line within {timeout} s (exit {process.poll()})")


def kill_sample(command, name, session_ms):
    """Milliseconds from SIGKILL of a leading participant to the next participant's leadership."""
    path = f"/election-kill-{uuid.uuid4().hex[:8]}"
    first = subprocess.Popen(command(path), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    second = None
    try:
        wait_for(first, "leader", 60, name)
        second = subprocess.Popen(command(path), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        wait_for(second, "joined", 60, name)
        time.sleep(0.3)  # its listing and watch done
        killed_at = time.monotonic_ns()
        os.kill(first.pid, signal.SIGKILL)
        line = wait_for(second, "leader", 10 + 3 * session_ms / 1000, name)
        return (int(line.split()[1]) - killed_at) / 1e6
    finally:
        for p in (first, second):
            if p is None:
                continue
            if p.poll() is None:
                p.stdin.close()
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def spread(values, fmt="{:.2f}"):
    if not values:
        return "–"
    return f"{fmt.format(median(values))} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True, help="zkwire_election_bench")
    parser.add_argument("-s", "--servers", required=True)
    parser.add_argument("-n", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kills", type=int, default=2)
    parser.add_argument("--session-ms", type=int, default=2000)
    parser.add_argument("--selector", action="store_true")
    parser.add_argument("--zkwire", help="the zkwire CLI, for a get's round trip on the same server")
    parser.add_argument("--naming", default="latch", choices=["latch", "lock", "kazoo"])
    parser.add_argument("--baseline", action="append", default=[], metavar="LABEL=BENCH",
                        help="another build's zkwire_election_bench, measured as one more side (repeatable)")
    args = parser.parse_args()
    work_dir = tempfile.mkdtemp(prefix="zkwire-election-compare.")
    try:
        curator = Curator(work_dir, "CuratorElectionBench")
        run(args, curator)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)


def run(args, curator):
    warmup = max(1, args.n // 3)
    baselines = dict(b.split("=", 1) for b in args.baseline)
    sides = ["zkwire", "latch"] + list(baselines) + (["selector"] if args.selector else [])
    names = {"zkwire": "zkwire", "latch": "Curator LeaderLatch", "selector": "Curator LeaderSelector"}
    names.update({label: label for label in baselines})
    handoff = {side: [] for side in sides}
    notified = {side: [] for side in sides}
    after = {side: [] for side in sides}
    kills = {"zkwire": [], "latch": []}
    gets = []

    def measure_handoff(side):
        if side == "zkwire" or side in baselines:
            return zkwire_handoff(args.bench if side == "zkwire" else baselines[side], args.servers, args.n, warmup,
                                  args.naming)
        return curator_handoff(curator, args.servers, side, args.n, 300, 20)

    commands = {
        "zkwire": lambda path: [args.bench, "-s", args.servers, "participant", path, str(args.session_ms), "--naming",
                                args.naming],
        "latch": lambda path: curator.command(args.servers, "participant", "latch", path, args.session_ms),
    }
    for round_number in range(args.rounds):
        print(f"election_compare: round {round_number + 1}/{args.rounds}", file=sys.stderr)
        shift = round_number % len(sides)
        for side in sides[shift:] + sides[:shift]:
            lines = measure_handoff(side)
            handoff[side].append(lines["handoff"]["p50_us"])
            if "notified" in lines:  # a baseline built before the split prints the whole only
                notified[side].append(lines["notified"]["p50_us"])
                after[side].append(lines["after_notified"]["p50_us"])
        kill_order = ["zkwire", "latch"] if round_number % 2 == 0 else ["latch", "zkwire"]
        for _ in range(args.kills):
            for side in kill_order:
                kills[side].append(kill_sample(commands[side], side, args.session_ms))
        if args.zkwire:
            out = subprocess.run([args.zkwire, "-s", args.servers, "bench", "--ops", "get", "-n", str(args.n * 3),
                                  "--json"], check=True, capture_output=True, text=True).stdout
            gets.append(json.loads(out.strip().splitlines()[-1])["p50_us"])

    print("### Leader failover: zkwire's election against Curator's LeaderLatch")
    print()
    print(f"{args.rounds} interleaved rounds; handoff: {args.n} timed handoffs per side per round (p50 per round), "
          f"zkwire naming `{args.naming}`; kill -9: {args.kills} samples per side per round, session timeout "
          f"{args.session_ms} ms on both sides. Curator from Debian's libcurator-*-java "
          "(bench/CuratorElectionBench.java, 300 untimed handoffs first to warm the JIT).")
    print()
    others = [side for side in sides if side not in ("zkwire", "latch")]
    header = "| figure | zkwire | Curator LeaderLatch |" + "".join(f" {names[o]} |" for o in others) + \
        " zkwire / LeaderLatch |" + "".join(f" {names[o]} / LeaderLatch |" for o in others if o in baselines)
    print(header)
    print("|---" + "|---:" * (header.count("|") - 2) + "|")

    def ratio_cells(series):
        cells = [spread([z / c for z, c in zip(series["zkwire"], series["latch"])])]
        for o in others:
            if o in baselines:
                cells.append(spread([z / c for z, c in zip(series[o], series["latch"])]))
        return cells

    for title, series in (("handoff after a clean exit, p50 (µs)", handoff),
                          ("— leave to the notification's arrival, p50 (µs)", notified),
                          ("— the notification to told, p50 (µs)", after)):
        if not series["zkwire"] or not series["latch"]:
            continue
        cells = [spread(series[side], "{:.0f}") for side in ["zkwire", "latch"] + others]
        # a baseline built before the split has the whole only
        print(f"| {title} | " + " | ".join(cells) + " | " + " | ".join(ratio_cells(series)) + " |")
    blanks = [""] * (len(others) + len(baselines))
    z_kill, c_kill = kills["zkwire"], kills["latch"]
    if z_kill and c_kill:
        cells = [spread(z_kill, "{:.0f}"), spread(c_kill, "{:.0f}")] + blanks[:len(others)]
        print("| next leader after kill -9, median (ms) | " + " | ".join(cells) +
              f" | {median(z_kill) / median(c_kill):.2f} |" + "".join(f" {b} |" for b in blanks[len(others):]))
        beyond = [k - args.session_ms for k in z_kill]
        c_beyond = [k - args.session_ms for k in c_kill]
        cells = [spread(beyond, "{:.0f}"), spread(c_beyond, "{:.0f}")] + blanks
        print("| — beyond the session timeout (ms) | " + " | ".join(cells) + " | |")
    if gets:
        print(f"| zkwire get p50, for scale (µs) | {spread(gets, '{:.0f}')} |" + " |" * (header.count("|") - 3))
    print()
    print("Ranges are min–max over the rounds (kill -9: over the samples). A ratio below 1 favours zkwire.")
    print()
    print("| target | measured | wanted | |")
    print("|---|---:|---:|---|")
    r = median([z / c for z, c in zip(handoff["zkwire"], handoff["latch"])])
    print(f"| handoff p50, zkwire / Curator LeaderLatch (median of rounds) | {r:.2f} | <= 0.50 | "
          f"{'met' if r <= 0.5 else 'missed'} |")
    print()


if __name__ == "__main__":
    main()
